// A named access token issued to an agent through OAuth (docs/mcp-oauth.md) is bound to the resource it was asked
// for: `resource` 'mcp' makes it work at /mcp only; null (every token made by hand) leaves it good on every door.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('access_tokens').addColumn('resource', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('access_tokens').dropColumn('resource').execute();
}
