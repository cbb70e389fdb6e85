// Accounts: sign-up, password login, bearer and API-key lookup, key rotation (docs/decisions.md §4).
import type { Kysely, Selectable } from 'kysely';
import { isUniqueViolation } from '../db/errors.js';
import { reusableQuery } from '../db/reusable-query.js';
import type { AccountsTable, Database } from '../db/types.js';
import { apiKeyHint, hashApiKey, newApiKey, newId } from '../security/api-keys.js';
import { costOf, DEFAULT_COST, dummyPasswordHash, hashPassword, verifyPassword } from '../security/passwords.js';
import type { TokenIssuer } from '../security/tokens.js';
import { conflict, forbidden, unauthenticated } from '../core/errors.js';

export interface Account {
  id: string;
  email: string;
  apiKeyHint: string;
  createdAt: string;
  /** Access tokens of another version are refused (bumped by key rotation and password changes). */
  tokenVersion: number;
}

export const toAccount = (row: Selectable<AccountsTable>): Account => ({
  id: row.id,
  email: row.email,
  apiKeyHint: row.api_key_hint,
  createdAt: row.created_at,
  tokenVersion: row.token_version,
});

export async function signUp(
  db: Kysely<Database>,
  input: { email: string; password: string },
  options: { allowSignup: boolean; passwordCost?: number },
): Promise<{ account: Account; apiKey: string }> {
  if (!options.allowSignup) throw forbidden('Sign-up is disabled');
  const apiKey = newApiKey();
  const row = {
    id: newId('acc'),
    email: input.email.toLowerCase(),
    password_hash: await hashPassword(input.password, options.passwordCost),
    api_key_hash: hashApiKey(apiKey),
    api_key_hint: apiKeyHint(apiKey),
    created_at: new Date().toISOString(),
    token_version: 0,
  };
  try {
    await db.insertInto('accounts').values(row).execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('An account with this email already exists');
    throw error;
  }
  return { account: toAccount(row), apiKey };
}

/**
 * Writes the account's own row inside `trx`, so that check-then-insert transactions of one account (booking without
 * overlap, the webhook cap) run one after the other, on PostgreSQL as on SQLite.
 */
export async function serializeForAccount(trx: Kysely<Database>, accountId: string): Promise<void> {
  await trx.updateTable('accounts').set({ id: accountId }).where('id', '=', accountId).execute();
}

/** Deletes the account with this e-mail and everything it owns (every table cascades from accounts). */
export async function deleteAccountByEmail(db: Kysely<Database>, email: string): Promise<boolean> {
  const deleted = await db.deleteFrom('accounts').where('email', '=', email.toLowerCase()).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

/** How long the cost most stored hashes have is remembered before it is read again. */
const TYPICAL_COST_TTL_MS = 10 * 60 * 1000;
const typicalCosts = new WeakMap<Kysely<Database>, { cost: number; at: number }>();

/**
 * The scrypt cost most stored password hashes have (from a bounded sample), so that a login for an unknown e-mail
 * does the same work as one for a real account even after PASSWORD_HASH_COST has changed (hashes keep the cost they
 * were made with until their owner next logs in).
 */
async function typicalPasswordCost(db: Kysely<Database>, fallback: number): Promise<number> {
  const known = typicalCosts.get(db);
  if (known && Date.now() - known.at < TYPICAL_COST_TTL_MS) return known.cost;
  const rows = await db.selectFrom('accounts').select('password_hash').limit(1000).execute();
  const counts = new Map<number, number>();
  for (const { password_hash } of rows) {
    const cost = costOf(password_hash);
    if (cost !== null) counts.set(cost, (counts.get(cost) ?? 0) + 1);
  }
  const cost = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? fallback;
  typicalCosts.set(db, { cost, at: Date.now() });
  return cost;
}

/**
 * The account whose e-mail and password match, or null. Takes the same time whether or not the e-mail exists: an
 * unknown e-mail is checked against a dummy hash of the cost real hashes have. A successful login re-hashes a
 * password stored with another cost than PASSWORD_HASH_COST, so stored costs follow the setting.
 */
export async function authenticate(
  db: Kysely<Database>,
  email: string,
  password: string,
  passwordCost = DEFAULT_COST,
): Promise<Account | null> {
  const row = await db
    .selectFrom('accounts')
    .selectAll()
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  const stored = row?.password_hash ?? (await dummyPasswordHash(await typicalPasswordCost(db, passwordCost)));
  const ok = await verifyPassword(password, stored);
  if (!row || !ok) return null;
  if (costOf(row.password_hash) !== passwordCost) {
    await db
      .updateTable('accounts')
      .set({ password_hash: await hashPassword(password, passwordCost) })
      .where('id', '=', row.id)
      .execute();
    typicalCosts.delete(db);
  }
  return toAccount(row);
}

/** OAuth2 password flow: an access token for matching credentials, else 401 "Incorrect username or password". */
export async function login(
  db: Kysely<Database>,
  tokens: TokenIssuer,
  email: string,
  password: string,
  passwordCost?: number,
): Promise<{ accessToken: string; tokenType: 'bearer'; expiresIn: number; account: Account }> {
  const account = await authenticate(db, email, password, passwordCost);
  if (!account) throw unauthenticated('Incorrect username or password');
  const { token, expiresIn } = tokens.issue(account.id, account.tokenVersion);
  return { accessToken: token, tokenType: 'bearer', expiresIn, account };
}

const accountById = reusableQuery((db, p: { id: string }) =>
  db.selectFrom('accounts').selectAll().where('id', '=', p.id),
);

/** The id of the account with this e-mail (any case), or null. */
export async function findAccountIdByEmail(db: Kysely<Database>, email: string): Promise<string | null> {
  const row = await db
    .selectFrom('accounts')
    .select('id')
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  return row?.id ?? null;
}

export async function findAccountById(db: Kysely<Database>, id: string): Promise<Account | null> {
  const [row] = await accountById(db, { id });
  return row ? toAccount(row) : null;
}

/** The account's current token version, or null when the account is gone. */
export async function tokenVersionOf(db: Kysely<Database>, accountId: string): Promise<number | null> {
  const row = await db.selectFrom('accounts').select('token_version').where('id', '=', accountId).executeTakeFirst();
  return row ? row.token_version : null;
}

export async function findAccountByApiKey(db: Kysely<Database>, apiKey: string): Promise<Account | null> {
  const row = await db
    .selectFrom('accounts')
    .selectAll()
    .where('api_key_hash', '=', hashApiKey(apiKey))
    .executeTakeFirst();
  return row ? toAccount(row) : null;
}

/** Issues a new API key; the old one, and every access token issued before, stop working at once. */
export async function rotateApiKey(
  db: Kysely<Database>,
  accountId: string,
): Promise<{ account: Account; apiKey: string }> {
  const apiKey = newApiKey();
  const row = await db
    .updateTable('accounts')
    .set((eb) => ({
      api_key_hash: hashApiKey(apiKey),
      api_key_hint: apiKeyHint(apiKey),
      token_version: eb('token_version', '+', 1),
    }))
    .where('id', '=', accountId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { account: toAccount(row), apiKey };
}

/**
 * Changes the password after checking the current one (UNAUTHENTICATED otherwise); every access token issued before
 * stops working at once. Returns a fresh token for the caller.
 */
export async function changePassword(
  db: Kysely<Database>,
  tokens: TokenIssuer,
  accountId: string,
  input: { currentPassword: string; newPassword: string },
  passwordCost?: number,
): Promise<{ accessToken: string; tokenType: 'bearer'; expiresIn: number }> {
  const row = await db.selectFrom('accounts').select('password_hash').where('id', '=', accountId).executeTakeFirst();
  if (!row || !(await verifyPassword(input.currentPassword, row.password_hash))) {
    throw unauthenticated('The current password is not correct');
  }
  const updated = await db
    .updateTable('accounts')
    .set((eb) => ({ token_version: eb('token_version', '+', 1) }))
    .set({ password_hash: await hashPassword(input.newPassword, passwordCost) })
    .where('id', '=', accountId)
    .returning('token_version')
    .executeTakeFirstOrThrow();
  const { token, expiresIn } = tokens.issue(accountId, updated.token_version);
  return { accessToken: token, tokenType: 'bearer', expiresIn };
}
