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
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../db/dialect.js';
import type { Database } from '../db/types.js';

/** A registered client (dynamic client registration) is kept this long after a token was last issued to it. */
export const REGISTERED_CLIENT_DAYS = 90;
/**
 * A registration no code was issued to yet ("pending": docs/mcp-oauth.md "Registrations") is deleted this long after
 * it registered, or after its consent page was last opened.
 */
export const PENDING_CLIENT_SECONDS = 3600;
/** At most this many pending registrations are evicted by one registration (the rest go with the next ones). */
const MAX_EVICTED_AT_ONCE = 100;
/** PostgreSQL's advisory lock key for settling registrations one at a time ("OAUT"). */
const SETTLEMENT_LOCK = 0x4f415554;
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
  issued: { grantId: string; accountId: string; tokenId: string; clientId?: string; readOnly?: boolean },
  keepSeconds = ISSUED_TOKEN_SECONDS,
): Promise<boolean> {
  await db
    .insertInto('oauth_artifacts')
    .values({
      model: ISSUED_TOKEN,
      id: issued.tokenId,
      payload: JSON.stringify({ accountId: issued.accountId, tokenId: issued.tokenId, readOnly: issued.readOnly }),
      grant_id: issued.grantId,
      // The connection it belongs to (this client, this account), looked up by a step-up (replaceReadOnlyConnections).
      uid: issued.clientId === undefined ? null : connectionKey(issued.clientId, issued.accountId),
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

const connectionKey = (clientId: string, accountId: string) => JSON.stringify(['connection', clientId, accountId]);

/**
 * A step-up (docs/mcp-oauth.md "Step-up"): the client that holds a read-only connection of this account authorised
 * again for full access; its read-only grants (their refresh tokens and named access tokens) are revoked, so that the
 * account lists one token for the agent, not two. Other grants of the same client with full access are separate
 * connections (another device of the same platform, say) and stay. The grant ids revoked.
 */
export async function replaceReadOnlyConnections(
  db: Kysely<Database>,
  connection: { clientId: string; accountId: string; grantId: string },
): Promise<string[]> {
  const notes = await db
    .selectFrom('oauth_artifacts')
    .select(['grant_id', 'payload'])
    .where('model', '=', ISSUED_TOKEN)
    .where('uid', '=', connectionKey(connection.clientId, connection.accountId))
    .where('grant_id', '!=', connection.grantId)
    .execute();
  const readOnly = notes.filter(
    (note): note is { grant_id: string; payload: string } =>
      note.grant_id !== null && (JSON.parse(note.payload) as { readOnly?: unknown }).readOnly === true,
  );
  for (const note of readOnly) await revokeGrant(db, note.grant_id);
  return readOnly.map((note) => note.grant_id);
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

/**
 * The grant a named access token was issued under through OAuth, and the client it was issued to: undefined for a
 * token made otherwise (on the account's own page, say), or whose grant is gone.
 */
export async function grantOfIssuedToken(
  db: Kysely<Database>,
  tokenId: string,
): Promise<{ grantId: string; clientId: string } | undefined> {
  const row = await db
    .selectFrom('oauth_artifacts as issued')
    .innerJoin('oauth_artifacts as grant', (join) =>
      join.onRef('grant.id', '=', 'issued.grant_id').on('grant.model', '=', 'Grant'),
    )
    .select(['issued.grant_id as grantId', 'grant.payload as grant'])
    .where('issued.model', '=', ISSUED_TOKEN)
    .where('issued.id', '=', tokenId)
    .executeTakeFirst();
  if (!row?.grantId) return undefined;
  const { clientId } = JSON.parse(row.grant) as { clientId?: unknown };
  return typeof clientId === 'string' ? { grantId: row.grantId, clientId } : undefined;
}

/** Models whose artefacts are not kept: the access token the provider makes is replaced before it is handed out. */
const NOT_STORED = new Set(['AccessToken']);

/**
 * A refresh token presented again within this many seconds of its use is taken for a retry of that refresh (or a
 * refresh racing it): refused without revoking its grant (docs/mcp-oauth.md "Concurrent refreshes").
 */
export const REFRESH_RETRY_SECONDS = 30;
/** What the token endpoint says then (src/oauth/provider.ts puts it in place of oidc-provider's generic words). */
export const REFRESH_TOKEN_USED_MOMENTS_AGO =
  'this refresh token was used moments ago by another request (a retry?): use the tokens that request got';

const usedMomentsAgo = (row: Row): boolean =>
  row.consumed_at !== null && Date.now() - Date.parse(row.consumed_at) < REFRESH_RETRY_SECONDS * 1000;

/** Whether this refresh token was used within REFRESH_RETRY_SECONDS (to explain a refusal). */
export async function refreshTokenUsedMomentsAgo(db: Kysely<Database>, token: string): Promise<boolean> {
  const found = await artifactRow(db, 'RefreshToken', token);
  return !!found && usedMomentsAgo(found);
}

/** The row of an artefact, by the id the provider knows it by (its digest for a secret one). */
const artifactRow = (db: Kysely<Database>, model: string, id: string): Promise<Row | undefined> =>
  // No id or uid the provider makes holds a NUL (the OAuth door refuses one in any parameter): PostgreSQL would
  // answer an error rather than nothing.
  id.includes('\0')
    ? Promise.resolve(undefined)
    : db
        .selectFrom('oauth_artifacts')
        .select(['payload', 'expires_at', 'consumed_at'])
        .where('model', '=', model)
        .where('id', '=', keyOf(model, id))
        .executeTakeFirst();

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
    const row = (id: string) => artifactRow(db, model, id);
    return {
      async upsert(id, payload, expiresIn) {
        if (NOT_STORED.has(model)) return;
        const json = JSON.stringify(storedPayload(model, payload));
        if (Buffer.byteLength(json) > MAX_PAYLOAD_BYTES) throw new errors.InvalidRequest('request too large');
        const now = new Date();
        const seconds = expiresIn ?? (model === 'Client' ? PENDING_CLIENT_SECONDS : undefined);
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
        // A code issued to a pending registration makes it a client that authorised: it is no longer pending.
        if (model === 'AuthorizationCode' && typeof payload.clientId === 'string') {
          await keepRegisteredClient(db, payload.clientId);
        }
        await sweep(now.toISOString());
      },
      async find(id) {
        const found = await row(id);
        if (!live(found, new Date().toISOString())) return undefined;
        // A refresh token used moments ago: a retry of that refresh (its answer lost to a timeout) or a refresh racing
        // it, not a stolen copy — it is not known (invalid_grant), and its grant is not revoked: the request that used
        // it keeps the tokens it got. Used longer ago, the provider revokes the whole family (a second use).
        if (model === 'RefreshToken' && usedMomentsAgo(found)) return undefined;
        return toPayload(found, model, id);
      },
      async findByUid(uid) {
        if (uid.includes('\0')) return undefined;
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
        if (id.includes('\0')) throw new errors.InvalidGrant('unknown token');
        const result = await db
          .updateTable('oauth_artifacts')
          .set({ consumed_at: new Date().toISOString() })
          .where('model', '=', model)
          .where('id', '=', keyOf(model, id))
          .where('consumed_at', 'is', null)
          .executeTakeFirst();
        if (result.numUpdatedRows > 0n) return;
        // Another request used it between the provider's check and now: this one loses. A refresh token racing its own
        // retry is not a theft (see find): the winner keeps what it gets. A code is: a second use of it like any
        // other (OAuth 2.1 §4.1.3), the grant, and the token the first use gets, are revoked.
        if (model === 'RefreshToken') throw new errors.InvalidGrant(REFRESH_TOKEN_USED_MOMENTS_AGO);
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
        if (id.includes('\0')) return;
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

/** Deletes these pending registrations (one that authorised meanwhile is kept); how many went. */
async function evictPending(db: Kysely<Database>, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .deleteFrom('oauth_artifacts')
    .where('model', '=', 'Client')
    .where('id', 'in', ids)
    .where('pending_address', 'is not', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Marks a registration just made as pending from `address`, then keeps the bounds (docs/mcp-oauth.md
 * "Registrations"): the address's expired pending ones are deleted, at most `perAddress` of its pending ones are kept
 * (the oldest go), and at most `total` pending ones in all (the oldest of all go): never one that authorised, nor
 * (being the newest) the one just made. Answers how many were evicted. Each step is one statement on an index of migration 0018; the
 * two that find what to evict read at most perAddress and total index entries.
 */
export async function settlePendingClient(
  db: Kysely<Database>,
  clientId: string,
  address: string,
  bounds: { perAddress: number; total: number },
): Promise<number> {
  // One settlement at a time, across instances too (PostgreSQL's transaction-scoped advisory lock; SQLite's one
  // connection is held by the transaction): two concurrent ones could each count among the newest a row the other
  // then evicts, and between them evict one pending registration too many. Each then trims to exactly `total`.
  // In turn within this instance first: each waiter for the advisory lock would hold a pooled connection, and a burst
  // of registrations could take every connection of the pool from the other requests.
  const before = settling.get(db) ?? Promise.resolve();
  const settled = before.then(() => settle(db, clientId, address, bounds));
  const next = settled.then(
    () => undefined,
    () => undefined,
  );
  settling.set(db, next);
  void next.then(() => {
    if (settling.get(db) === next) settling.delete(db);
  });
  return settled;
}

/** The settlement under way (and those queued behind it) per database, within this instance. */
const settling = new WeakMap<Kysely<Database>, Promise<void>>();

async function settle(
  db: Kysely<Database>,
  clientId: string,
  address: string,
  bounds: { perAddress: number; total: number },
): Promise<number> {
  const postgres = dialectOf(db) === 'postgres';
  return db.transaction().execute(async (trx) => {
    if (postgres) await sql`select pg_advisory_xact_lock(${SETTLEMENT_LOCK})`.execute(trx);
    const now = new Date().toISOString();
    await trx
      .updateTable('oauth_artifacts')
      .set({ pending_address: address })
      .where('model', '=', 'Client')
      .where('id', '=', clientId)
      .execute();
    await trx
      .deleteFrom('oauth_artifacts')
      .where('model', '=', 'Client')
      .where('pending_address', '=', address)
      .where('expires_at', '<=', now)
      .execute();
    const beyond = await trx
      .selectFrom('oauth_artifacts')
      .select('id')
      .where('model', '=', 'Client')
      .where('pending_address', '=', address)
      .orderBy('expires_at', 'desc')
      .limit(MAX_EVICTED_AT_ONCE)
      .offset(bounds.perAddress)
      .execute();
    const evicted = await evictPending(
      trx,
      beyond.map((row) => row.id),
    );
    // Beyond the newest `total` pending ones of all. Pending rows expire within PENDING_CLIENT_SECONDS (a touch
    // included): the range leaves out clients that authorised, kept for months.
    const newest = new Date(Date.now() + PENDING_CLIENT_SECONDS * 1000 + 1000).toISOString();
    const oldest = await trx
      .selectFrom('oauth_artifacts')
      .select('id')
      .where('model', '=', 'Client')
      .where('expires_at', '>', now)
      .where('expires_at', '<=', newest)
      .where('pending_address', 'is not', null)
      .orderBy('expires_at', 'desc')
      .limit(MAX_EVICTED_AT_ONCE)
      .offset(bounds.total)
      .execute();
    return (
      evicted +
      (await evictPending(
        trx,
        oldest.map((row) => row.id),
      ))
    );
  });
}

/**
 * A pending registration whose consent page was opened is kept PENDING_CLIENT_SECONDS from now, and counts as the
 * newest again (the oldest are evicted first): a user signing in is not overtaken by registrations made meanwhile.
 */
export async function touchPendingClient(db: Kysely<Database>, clientId: string): Promise<void> {
  if (clientId.includes('\0')) return;
  await db
    .updateTable('oauth_artifacts')
    .set({ expires_at: new Date(Date.now() + PENDING_CLIENT_SECONDS * 1000).toISOString() })
    .where('model', '=', 'Client')
    .where('id', '=', clientId)
    .where('pending_address', 'is not', null)
    .execute();
}

/**
 * A registered client a code or a token was issued to is no longer pending, and is kept REGISTERED_CLIENT_DAYS from
 * now (a pending one goes after PENDING_CLIENT_SECONDS). Nothing happens for a client that was not registered here (a
 * metadata document's).
 */
export async function keepRegisteredClient(db: Kysely<Database>, clientId: string): Promise<void> {
  await db
    .updateTable('oauth_artifacts')
    .set({
      expires_at: new Date(Date.now() + REGISTERED_CLIENT_DAYS * 86_400_000).toISOString(),
      pending_address: null,
    })
    .where('model', '=', 'Client')
    .where('id', '=', clientId)
    .execute();
}

/** Whether the account with this id exists (a grant's account, when a code is redeemed). */
export async function accountExists(db: Kysely<Database>, accountId: string): Promise<boolean> {
  const found = await db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
  return found !== undefined;
}
