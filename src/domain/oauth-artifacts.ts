// oidc-provider's storage (docs/mcp-oauth.md "State"): its artefacts (interactions, sessions, grants, authorisation
// codes, registered clients, …) as rows of oauth_artifacts, so that every instance of the gateway sees the same ones.
// Rows expire with the artefact; expired rows are swept as new ones are written. An authorisation code is consumed
// by one conditional UPDATE, so two token requests racing with the same code cannot both succeed. Access tokens are
// not stored here: the one the provider makes is swapped for a named access token (src/oauth/token-minting.ts).
import { createHash, randomUUID } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';

/** A registered client (dynamic client registration) is kept this long after its last registration. */
export const REGISTERED_CLIENT_DAYS = 90;
/** No artefact's payload is larger than this (a registration's metadata is the largest). */
const MAX_PAYLOAD_BYTES = 64 * 1024;
/** Expired rows are swept at most this often by one instance. */
const SWEEP_EVERY_MS = 60_000;

/**
 * The named access token a grant's code was redeemed for, kept while a replay of that code can still be noticed (the
 * code lives 60 s): a replay revokes it.
 */
const ISSUED_TOKEN = 'IssuedAccessToken';
const ISSUED_TOKEN_SECONDS = 600;

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
): Promise<boolean> {
  await db
    .insertInto('oauth_artifacts')
    .values({
      model: ISSUED_TOKEN,
      id: issued.tokenId,
      payload: JSON.stringify({ accountId: issued.accountId, tokenId: issued.tokenId }),
      grant_id: issued.grantId,
      uid: null,
      expires_at: new Date(Date.now() + ISSUED_TOKEN_SECONDS * 1000).toISOString(),
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

/** Models whose artefacts are not kept: the access token the provider makes is replaced before it is handed out. */
const NOT_STORED = new Set(['AccessToken']);

interface Row {
  payload: string;
  expires_at: string | null;
  consumed_at: string | null;
}

const live = (row: Row | undefined, now: string): row is Row =>
  !!row && (row.expires_at === null || row.expires_at > now);

function toPayload(row: Row): AdapterPayload {
  const payload = JSON.parse(row.payload) as AdapterPayload;
  return row.consumed_at ? { ...payload, consumed: Math.floor(Date.parse(row.consumed_at) / 1000) } : payload;
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
        .where('id', '=', id)
        .executeTakeFirst();
    return {
      async upsert(id, payload, expiresIn) {
        if (NOT_STORED.has(model)) return;
        const json = JSON.stringify(payload);
        if (Buffer.byteLength(json) > MAX_PAYLOAD_BYTES) throw new errors.InvalidRequest('request too large');
        const now = new Date();
        const seconds = expiresIn ?? (model === 'Client' ? REGISTERED_CLIENT_DAYS * 86_400 : undefined);
        const values = {
          payload: json,
          grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
          uid: typeof payload.uid === 'string' ? payload.uid : null,
          expires_at: seconds === undefined ? null : new Date(now.getTime() + seconds * 1000).toISOString(),
        };
        await db
          .insertInto('oauth_artifacts')
          .values({ model, id, consumed_at: null, ...values })
          .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(values))
          .execute();
        await sweep(now.toISOString());
      },
      async find(id) {
        const found = await row(id);
        return live(found, new Date().toISOString()) ? toPayload(found) : undefined;
      },
      async findByUid(uid) {
        const found = await db
          .selectFrom('oauth_artifacts')
          .select(['payload', 'expires_at', 'consumed_at'])
          .where('model', '=', model)
          .where('uid', '=', uid)
          .executeTakeFirst();
        return live(found, new Date().toISOString()) ? toPayload(found) : undefined;
      },
      // The device flow (the only user of user codes) is off.
      findByUserCode: async () => undefined,
      async consume(id) {
        const result = await db
          .updateTable('oauth_artifacts')
          .set({ consumed_at: new Date().toISOString() })
          .where('model', '=', model)
          .where('id', '=', id)
          .where('consumed_at', 'is', null)
          .executeTakeFirst();
        if (result.numUpdatedRows > 0n) return;
        // Another request used it between the provider's check and now: this one loses, and it is a second use of
        // the code like any other (OAuth 2.1 §4.1.3): the grant, and the token the first use gets, are revoked.
        const code = await db
          .selectFrom('oauth_artifacts')
          .select('grant_id')
          .where('model', '=', model)
          .where('id', '=', id)
          .executeTakeFirst();
        if (code?.grant_id) await revokeGrant(db, code.grant_id);
        throw new errors.InvalidGrant('authorization code already consumed');
      },
      async destroy(id) {
        await db.deleteFrom('oauth_artifacts').where('model', '=', model).where('id', '=', id).execute();
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
 * Dynamic client registrations are counted per client address in rows of this model (the address hashed, in `uid`),
 * each kept for the hour it counts in.
 */
const REGISTRATION = 'RegistrationByAddress';
const REGISTRATION_WINDOW_SECONDS = 3600;
/** The network an address stands for: an IPv4 address itself, an IPv6 address's /64 (one subscriber's, usually). */
function networkOf(address: string): string {
  if (!address.includes(':')) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group || '0', 16).toString(16))
    .join(':')}::/64`;
}

const addressKey = (address: string) =>
  createHash('sha256')
    .update(`oauth-registration:${networkOf(address)}`)
    .digest('base64url');

/**
 * Takes one of this client address's registrations of the hour (an IPv6 address counts for its /64), before the
 * registration runs: the row is written first and the count taken after, so requests racing each other cannot all pass
 * (past the limit each removes its own row and is refused). `wait` is the seconds until the oldest of the hour's
 * registrations stops counting; `release` gives the registration back when it did not happen. Shared by every
 * instance (the rows are in the database) and swept with the other expired rows.
 */
export async function takeRegistration(
  db: Kysely<Database>,
  address: string,
  perHour: number,
): Promise<{ wait: number } | { release(): Promise<void> }> {
  const now = new Date();
  const key = addressKey(address);
  const id = randomUUID();
  await db
    .insertInto('oauth_artifacts')
    .values({
      model: REGISTRATION,
      id,
      payload: '{}',
      grant_id: null,
      uid: key,
      expires_at: new Date(now.getTime() + REGISTRATION_WINDOW_SECONDS * 1000).toISOString(),
      consumed_at: null,
    })
    .execute();
  const release = async () => {
    await db.deleteFrom('oauth_artifacts').where('model', '=', REGISTRATION).where('id', '=', id).execute();
  };
  const rows = await db
    .selectFrom('oauth_artifacts')
    .select('expires_at')
    .where('model', '=', REGISTRATION)
    .where('uid', '=', key)
    .where('expires_at', '>', now.toISOString())
    .orderBy('expires_at', 'asc')
    .execute();
  if (rows.length <= perHour) return { release };
  await release();
  const oldest = Date.parse(rows[0]?.expires_at ?? '') || now.getTime() + REGISTRATION_WINDOW_SECONDS * 1000;
  return { wait: Math.max(1, Math.ceil((oldest - now.getTime()) / 1000)) };
}

/** Whether the account with this id exists (a grant's account, when a code is redeemed). */
export async function accountExists(db: Kysely<Database>, accountId: string): Promise<boolean> {
  const found = await db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
  return found !== undefined;
}
