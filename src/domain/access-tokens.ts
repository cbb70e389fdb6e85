// Named access tokens (docs/security.md): long-lived bearer tokens an account creates for its agents and scripts
// (the MCP door, CI jobs), usable on every door like a login's token. Shown once, stored as a SHA-256 digest,
// optionally read-only and optionally expiring; revoking one deletes it, and the very next request with it is refused
// on every instance (the credential cache only trusts what the database's change version vouches for:
// src/domain/account-cache.ts).
import { timingSafeEqual } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import type { AccessTokensTable, Database, TokenResource } from '../db/types.js';
import { apiKeyHint, hashApiKey, newId } from '../security/api-keys.js';
import type { TokenIssuer } from '../security/tokens.js';
import { type Account, serializeForAccount, toAccount } from './accounts.js';
import { badInput, notFound } from '../core/errors.js';

/** At most this many unexpired tokens per account (revoke one to make room; expired ones go as new ones are made). */
export const MAX_ACCESS_TOKENS = 50;
/** The latest expiry a token may have, in days from now. */
export const MAX_ACCESS_TOKEN_DAYS = 3650;

export interface AccessToken {
  tokenId: string;
  name: string;
  /** "****" and the token's last 4 characters. */
  hint: string;
  readOnly: boolean;
  createdAt: string;
  /** Null: it does not expire. */
  expiresAt: string | null;
  /** 'mcp': issued to an agent through OAuth and good at /mcp only; null: good on every door. */
  resource: TokenResource | null;
}

/** What a request authenticated with an access token knows about it. */
export interface AccessTokenCredential extends AccessToken {
  account: Account;
  tokenHash: string;
}

const toAccessToken = (row: Selectable<AccessTokensTable>): AccessToken => ({
  tokenId: row.token_id,
  name: row.name,
  hint: row.token_hint,
  readOnly: row.read_only === 1,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  resource: row.resource,
});

export const accessTokenNameField = z.string().trim().min(1).max(100);

/** The rules of a new token: a name, and an expiry in the future (at most MAX_ACCESS_TOKEN_DAYS ahead) if any. */
export const accessTokenCreateSchema = z.object({
  name: accessTokenNameField,
  readOnly: z.boolean().default(false),
  expiresAt: z
    .date()
    .nullish()
    .refine((date) => !date || date.getTime() > Date.now(), 'must be in the future')
    .refine(
      (date) => !date || date.getTime() <= Date.now() + MAX_ACCESS_TOKEN_DAYS * 86_400_000,
      `must be at most ${MAX_ACCESS_TOKEN_DAYS} days from now`,
    ),
});

export type AccessTokenCreate = z.output<typeof accessTokenCreateSchema>;

/** Creates a token; the answer holds the token itself, which is not stored and cannot be shown again. */
export async function createAccessToken(
  db: Kysely<Database>,
  tokens: TokenIssuer,
  accountId: string,
  input: AccessTokenCreate,
  resource: TokenResource | null = null,
): Promise<{ accessToken: AccessToken; token: string }> {
  const tokenId = newId('tok');
  const token = tokens.mintAccessToken(accountId, tokenId);
  const row = {
    token_id: tokenId,
    account_id: accountId,
    name: input.name,
    token_hash: hashApiKey(token),
    token_hint: apiKeyHint(token),
    read_only: input.readOnly ? 1 : 0,
    created_at: new Date().toISOString(),
    expires_at: input.expiresAt ? input.expiresAt.toISOString() : null,
    resource,
  };
  await db.transaction().execute(async (trx) => {
    // One account's creations run one after the other, so the cap holds under concurrency.
    await serializeForAccount(trx, accountId);
    // Expired tokens are no credential anywhere and do not count: they make room (OAuth approvals mint a token each).
    // One an agent can still refresh stays (its grant's note names it: src/domain/oauth-artifacts.ts).
    await trx
      .deleteFrom('access_tokens')
      .where('account_id', '=', accountId)
      .where('expires_at', '<=', row.created_at)
      .where((eb) =>
        eb(
          'token_id',
          'not in',
          eb
            .selectFrom('oauth_artifacts')
            .select('oauth_artifacts.id')
            .where('oauth_artifacts.model', '=', 'IssuedAccessToken')
            .where('oauth_artifacts.expires_at', '>', row.created_at),
        ),
      )
      .execute();
    const { count } = await trx
      .selectFrom('access_tokens')
      .select((eb) => eb.fn.countAll<string | number>().as('count'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= MAX_ACCESS_TOKENS) {
      throw badInput([
        {
          path: ['input'],
          type: 'too_many',
          message: `An account has at most ${MAX_ACCESS_TOKENS} access tokens; revoke one first`,
        },
      ]);
    }
    await trx.insertInto('access_tokens').values(row).execute();
  });
  return { accessToken: toAccessToken(row), token };
}

/**
 * Gives the account's token a new secret, access and expiry (an OAuth refresh: src/oauth/token-minting.ts); the old
 * secret stops working at once. Null when the token is gone (revoked, or deleted once expired).
 */
export async function rotateAccessToken(
  db: Kysely<Database>,
  tokens: TokenIssuer,
  accountId: string,
  tokenId: string,
  change: { readOnly: boolean; expiresAt: Date },
): Promise<{ accessToken: AccessToken; token: string } | null> {
  const token = tokens.mintAccessToken(accountId, tokenId);
  const row = await db
    .updateTable('access_tokens')
    .set({
      token_hash: hashApiKey(token),
      token_hint: apiKeyHint(token),
      read_only: change.readOnly ? 1 : 0,
      expires_at: change.expiresAt.toISOString(),
    })
    .where('account_id', '=', accountId)
    .where('token_id', '=', tokenId)
    .returningAll()
    .executeTakeFirst();
  return row ? { accessToken: toAccessToken(row), token } : null;
}

/** The account's tokens, newest first (at most MAX_ACCESS_TOKENS exist). */
export async function listAccessTokens(db: Kysely<Database>, accountId: string): Promise<AccessToken[]> {
  const rows = await db
    .selectFrom('access_tokens')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('token_id', 'desc')
    .limit(MAX_ACCESS_TOKENS)
    .execute();
  return rows.map(toAccessToken);
}

/** The account's tokens with these ids (any order; ids of other accounts' tokens find nothing). */
export async function getAccessTokensByIds(
  db: Kysely<Database>,
  accountId: string,
  tokenIds: readonly string[],
): Promise<AccessToken[]> {
  if (tokenIds.length === 0) return [];
  const rows = await db
    .selectFrom('access_tokens')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('token_id', 'in', tokenIds)
    .execute();
  return rows.map(toAccessToken);
}

/** Deletes the account's token: NOT_FOUND when it has none of that id (another account's token included). */
export async function revokeAccessToken(
  db: Kysely<Database>,
  accountId: string,
  tokenId: string,
): Promise<AccessToken> {
  const row = await db
    .deleteFrom('access_tokens')
    .where('account_id', '=', accountId)
    .where('token_id', '=', tokenId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound(`Access token ${tokenId} not found`);
  return toAccessToken(row);
}

/** The token with this id and its account, as the database has them now (null when it was revoked). */
export async function findAccessTokenCredential(
  db: Kysely<Database>,
  tokenId: string,
): Promise<AccessTokenCredential | null> {
  // One round trip: the token and its account together (every request with a named token asks on PostgreSQL).
  const row = await db
    .selectFrom('access_tokens')
    .innerJoin('accounts', 'accounts.id', 'access_tokens.account_id')
    .selectAll('access_tokens')
    .select([
      'accounts.email',
      'accounts.password_hash',
      'accounts.api_key_hash',
      'accounts.api_key_hint',
      'accounts.created_at as account_created_at',
      'accounts.token_version',
    ])
    .where('access_tokens.token_id', '=', tokenId)
    .executeTakeFirst();
  if (!row) return null;
  const account = toAccount({
    id: row.account_id,
    email: row.email,
    password_hash: row.password_hash,
    api_key_hash: row.api_key_hash,
    api_key_hint: row.api_key_hint,
    created_at: row.account_created_at,
    token_version: row.token_version,
  });
  return { ...toAccessToken(row), account, tokenHash: row.token_hash };
}

/** Whether the token with this id still exists (live streams opened with it check it now and then). */
export async function accessTokenExists(db: Kysely<Database>, tokenId: string): Promise<boolean> {
  const row = await db
    .selectFrom('access_tokens')
    .select('token_id')
    .where('token_id', '=', tokenId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether `token` is the credential's token (digests compared in constant time), has not expired, and may be used at
 * `resource` (the door asking: a token bound to /mcp is no credential anywhere else).
 */
export function accessTokenMatches(
  credential: AccessTokenCredential,
  token: string,
  resource: TokenResource | null = null,
  now = Date.now(),
): boolean {
  if (credential.resource !== null && credential.resource !== resource) return false;
  const given = Buffer.from(hashApiKey(token));
  const stored = Buffer.from(credential.tokenHash);
  if (given.length !== stored.length || !timingSafeEqual(given, stored)) return false;
  return credential.expiresAt === null || Date.parse(credential.expiresAt) > now;
}
