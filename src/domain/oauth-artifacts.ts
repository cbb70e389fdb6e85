// oidc-provider's storage (docs/mcp-oauth.md "State"): its artefacts (interactions, sessions, grants, authorisation
// codes, registered clients, …) as rows of oauth_artifacts, so that every instance of the gateway sees the same ones.
// Rows expire with the artefact; expired rows are swept as new ones are written. An authorisation code is consumed
// by one conditional UPDATE, so two token requests racing with the same code cannot both succeed (a refresh token
// likewise). Access tokens are not stored here: the one the provider makes is swapped for a named access token
// (src/oauth/token-minting.ts). No row holds a usable secret: codes, refresh tokens and registration access tokens are
// kept under their SHA-256 (the value itself is the key oidc-provider looks them up by), and a confidential client's
// secret is kept as its SHA-256 (compared in src/oauth/provider.ts).
import { createHash } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';

/** A registered client (dynamic client registration) is kept this long after a token was last issued to it. */
export const REGISTERED_CLIENT_DAYS = 90;
/** A registered client no token was ever issued to is deleted this long after it registered. */
export const UNUSED_CLIENT_SECONDS = 86_400;
/** No artefact's payload is larger than this (a registration's metadata is the largest). */
const MAX_PAYLOAD_BYTES = 64 * 1024;
/** Expired rows are swept at most this often by one instance. */
const SWEEP_EVERY_MS = 60_000;

/**
 * The named access token a grant's code was redeemed for, kept while a replay of that code can still be noticed (the
 * code lives 60 s): a replay revokes it.
 */
const ISSUED_TOKEN = 'IssuedAccessToken';
/** Without a refresh token the note is kept while a replay of the code can be noticed; with one, as long as it lives. */
export const ISSUED_TOKEN_SECONDS = 600;

/** Models whose ids are bearer secrets: kept under their digest, the value never stored. */
const SECRET_IDS = new Set(['AuthorizationCode', 'RefreshToken', 'RegistrationAccessToken']);
const digestOf = (value: string) => `sha256:${createHash('sha256').update(value).digest('base64url')}`;
/** The row id an artefact is kept under. */
const keyOf = (model: string, id: string) => (SECRET_IDS.has(model) ? digestOf(id) : id);

/** How a confidential client's secret is kept (and compared: src/oauth/provider.ts). */
export const clientSecretDigest = (secret: string): string => digestOf(`client-secret:${secret}`);

/**
 * Revokes a grant (a code of it was used twice): the Grant row first, then the named tokens its codes were redeemed
 * for, then every other artefact of it. In this order a redemption that records its token (recordIssuedToken) either
 * is seen here or sees the grant gone and revokes its token itself.
 */
export async function revokeGrant(db: Kysely<Database>, grantId: string): Promise<void> {
  await db.deleteFrom('oauth_artifacts').where('model', '=', 'Grant').where('id', '=', grantId).execute();
  const issued = await db
    .selectFrom('oauth_artifacts')
    .select('payload')
    .where('model', '=', ISSUED_TOKEN)
    .where('grant_id', '=', grantId)
    .execute();
  for (const { payload } of issued) {
    const { accountId, tokenId } = JSON.parse(payload) as { accountId: string; tokenId: string };
    await db.deleteFrom('access_tokens').where('account_id', '=', accountId).where('token_id', '=', tokenId).execute();
  }
  await db.deleteFrom('oauth_artifacts').where('grant_id', '=', grantId).execute();
}

/**
 * Notes which named access token a grant's code was redeemed for (see ISSUED_TOKEN), then checks that the grant still
 * exists: a replay of the code between the provider's consuming it and this note revoked the grant without seeing
 * the token, so the token is revoked here and false is answered (the redemption must then fail).
 */
export async function recordIssuedToken(
  db: Kysely<Database>,
  issued: { grantId: string; accountId: string; tokenId: string },
  keepSeconds = ISSUED_TOKEN_SECONDS,
): Promise<boolean> {
  await db
    .insertInto('oauth_artifacts')
    .values({
      model: ISSUED_TOKEN,
      id: issued.tokenId,
      payload: JSON.stringify({ accountId: issued.accountId, tokenId: issued.tokenId }),
      grant_id: issued.grantId,
      uid: null,
      expires_at: new Date(Date.now() + keepSeconds * 1000).toISOString(),
      consumed_at: null,
    })
    .execute();
  const grant = await db
    .selectFrom('oauth_artifacts')
    .select('id')
    .where('model', '=', 'Grant')
    .where('id', '=', issued.grantId)
    .executeTakeFirst();
  if (grant) return true;
  // The note above is among the grant's now: revoking it again revokes this token.
  await revokeGrant(db, issued.grantId);
  return false;
}

/**
 * The named access token a grant's tokens are issued as (a refresh swaps its secret: src/oauth/token-minting.ts), and
 * its note kept for `keepSeconds` more; undefined when the grant has none (never, or its note expired).
 */
export async function issuedTokenOf(
  db: Kysely<Database>,
  grantId: string,
  keepSeconds: number,
): Promise<{ accountId: string; tokenId: string } | undefined> {
  const row = await db
    .selectFrom('oauth_artifacts')
    .select(['id', 'payload'])
    .where('model', '=', ISSUED_TOKEN)
    .where('grant_id', '=', grantId)
    .where('expires_at', '>', new Date().toISOString())
    .executeTakeFirst();
  if (!row) return undefined;
  await db
    .updateTable('oauth_artifacts')
    .set({ expires_at: new Date(Date.now() + keepSeconds * 1000).toISOString() })
    .where('model', '=', ISSUED_TOKEN)
    .where('id', '=', row.id)
    .execute();
  return JSON.parse(row.payload) as { accountId: string; tokenId: string };
}

/** Models whose artefacts are not kept: the access token the provider makes is replaced before it is handed out. */
const NOT_STORED = new Set(['AccessToken']);

interface Row {
  payload: string;
  expires_at: string | null;
  consumed_at: string | null;
}

const live = (row: Row | undefined, now: string): row is Row =>
  !!row && (row.expires_at === null || row.expires_at > now);

function toPayload(row: Row, model: string, id: string): AdapterPayload {
  const payload = JSON.parse(row.payload) as AdapterPayload;
  // A secret id is not in the row: the token is the value it was looked up by.
  if (SECRET_IDS.has(model)) payload.jti = id;
  return row.consumed_at ? { ...payload, consumed: Math.floor(Date.parse(row.consumed_at) / 1000) } : payload;
}

/** What is written of an artefact: no secret id, and a client's secret as its digest. */
function storedPayload(model: string, payload: AdapterPayload): AdapterPayload {
  if (SECRET_IDS.has(model)) {
    const { jti: _jti, ...rest } = payload;
    return rest;
  }
  if (model === 'Client' && typeof payload.client_secret === 'string') {
    return { ...payload, client_secret: clientSecretDigest(payload.client_secret) };
  }
  return payload;
}

/** The adapter factory oidc-provider is given: one adapter per model name. */
export function oauthArtifactAdapter(db: Kysely<Database>): (model: string) => Adapter {
  let lastSweep = 0;
  const sweep = async (now: string) => {
    if (Date.now() - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = Date.now();
    await db.deleteFrom('oauth_artifacts').where('expires_at', '<', now).execute();
  };
  return (model) => {
    const row = (id: string) =>
      db
        .selectFrom('oauth_artifacts')
        .select(['payload', 'expires_at', 'consumed_at'])
        .where('model', '=', model)
        .where('id', '=', keyOf(model, id))
        .executeTakeFirst();
    return {
      async upsert(id, payload, expiresIn) {
        if (NOT_STORED.has(model)) return;
        const json = JSON.stringify(storedPayload(model, payload));
        if (Buffer.byteLength(json) > MAX_PAYLOAD_BYTES) throw new errors.InvalidRequest('request too large');
        const now = new Date();
        const seconds = expiresIn ?? (model === 'Client' ? UNUSED_CLIENT_SECONDS : undefined);
        const values = {
          payload: json,
          grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
          uid: typeof payload.uid === 'string' ? payload.uid : null,
          expires_at: seconds === undefined ? null : new Date(now.getTime() + seconds * 1000).toISOString(),
        };
        await db
          .insertInto('oauth_artifacts')
          .values({ model, id: keyOf(model, id), consumed_at: null, ...values })
          .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(values))
          .execute();
        await sweep(now.toISOString());
      },
      async find(id) {
        const found = await row(id);
        return live(found, new Date().toISOString()) ? toPayload(found, model, id) : undefined;
      },
      async findByUid(uid) {
        const found = await db
          .selectFrom('oauth_artifacts')
          .select(['payload', 'expires_at', 'consumed_at'])
          .where('model', '=', model)
          .where('uid', '=', uid)
          .executeTakeFirst();
        return live(found, new Date().toISOString()) ? toPayload(found, model, uid) : undefined;
      },
      // The device flow (the only user of user codes) is off.
      findByUserCode: async () => undefined,
      async consume(id) {
        const result = await db
          .updateTable('oauth_artifacts')
          .set({ consumed_at: new Date().toISOString() })
          .where('model', '=', model)
          .where('id', '=', keyOf(model, id))
          .where('consumed_at', 'is', null)
          .executeTakeFirst();
        if (result.numUpdatedRows > 0n) return;
        // Another request used it between the provider's check and now: this one loses, and it is a second use of
        // the code like any other (OAuth 2.1 §4.1.3): the grant, and the token the first use gets, are revoked.
        const code = await db
          .selectFrom('oauth_artifacts')
          .select('grant_id')
          .where('model', '=', model)
          .where('id', '=', keyOf(model, id))
          .executeTakeFirst();
        if (code?.grant_id) await revokeGrant(db, code.grant_id);
        throw new errors.InvalidGrant(
          model === 'RefreshToken' ? 'refresh token already used' : 'authorization code already consumed',
        );
      },
      async destroy(id) {
        await db.deleteFrom('oauth_artifacts').where('model', '=', model).where('id', '=', keyOf(model, id)).execute();
      },
      // A grant is revoked when one of its codes is used twice: the named token the first use got is revoked with it
      // (OAuth 2.1 §4.1.3), for whoever replays a code may have stolen it.
      async revokeByGrantId(grantId) {
        await revokeGrant(db, grantId);
      },
    };
  };
}

/** How many dynamically registered clients exist now (the registration endpoint refuses more than the cap). */
export async function countRegisteredClients(db: Kysely<Database>): Promise<number> {
  const { count } = await db
    .selectFrom('oauth_artifacts')
    .select((eb) => eb.fn.countAll<string | number>().as('count'))
    .where('model', '=', 'Client')
    .where('expires_at', '>', new Date().toISOString())
    .executeTakeFirstOrThrow();
  return Number(count);
}

/**
 * A registered client a token was issued to is kept REGISTERED_CLIENT_DAYS from now (one never used goes after
 * UNUSED_CLIENT_SECONDS). Nothing happens for a client that was not registered here (a metadata document's).
 */
export async function keepRegisteredClient(db: Kysely<Database>, clientId: string): Promise<void> {
  await db
    .updateTable('oauth_artifacts')
    .set({ expires_at: new Date(Date.now() + REGISTERED_CLIENT_DAYS * 86_400_000).toISOString() })
    .where('model', '=', 'Client')
    .where('id', '=', clientId)
    .execute();
}

/** Whether the account with this id exists (a grant's account, when a code is redeemed). */
export async function accountExists(db: Kysely<Database>, accountId: string): Promise<boolean> {
  const found = await db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
  return found !== undefined;
}
