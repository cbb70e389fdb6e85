// The authorisation server's state for hosted MCP agents (docs/mcp-oauth.md): interactions, sessions, grants,
// authorisation codes and dynamically registered clients, one row each, kept by oidc-provider through
// src/domain/oauth-artifacts.ts. In the database (not in memory) so that every instance sees the same codes and
// clients; bounded by their expiry (swept as rows are written) and, for registered clients, by a global cap.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_artifacts')
    /** The oidc-provider model: Interaction, Session, Grant, AuthorizationCode, Client, … */
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    /** The model's payload, JSON. */
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('uid', 'text')
    /** Null: kept until destroyed (registered clients get an expiry too, see the adapter). */
    .addColumn('expires_at', 'text')
    /** Set once an authorisation code is used: a second use is refused. */
    .addColumn('consumed_at', 'text')
    .addPrimaryKeyConstraint('oauth_artifacts_pk', ['model', 'id'])
    .execute();
  await db.schema.createIndex('oauth_artifacts_grant').on('oauth_artifacts').column('grant_id').execute();
  await db.schema.createIndex('oauth_artifacts_uid').on('oauth_artifacts').columns(['model', 'uid']).execute();
  await db.schema.createIndex('oauth_artifacts_expiry').on('oauth_artifacts').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_artifacts').execute();
}
