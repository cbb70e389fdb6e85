// The caller's credential, checked in the same statement as a hot read (docs/decisions.md §14): on PostgreSQL a read
// request is answered from the account last read for its token, and its first hot read (src/db/reusable-query.ts)
// carries one more column, whether that credential still stands, so that the request costs one round trip, not two.
import { type AliasableExpression, type ExpressionBuilder, sql, type SqlBool } from 'kysely';
import type { CredentialCheck } from '../core/request-context.js';
import type { Database } from './types.js';

/** The column a hot read's rows carry the check in. */
export const CREDENTIAL_COLUMN = '$credential';

/** The check's values as the statement binds them: placeholders of a reusable query, or the check's own values. */
export interface CredentialValues {
  accountId: unknown;
  tokenVersion: unknown;
  tokenId?: unknown;
  tokenHash?: unknown;
}

/** `exists (…)`: the account is there at the token version, and the named access token (if any) with its digest. */
export function credentialStands(
  eb: ExpressionBuilder<Database, keyof Database>,
  values: CredentialValues,
): AliasableExpression<SqlBool> {
  const account = eb
    .selectFrom('accounts')
    .select(sql<number>`1`.as('one'))
    .where('accounts.id', '=', values.accountId as string)
    .where('accounts.token_version', '=', values.tokenVersion as number);
  return eb.exists(
    values.tokenId === undefined
      ? account
      : account
          .innerJoin('access_tokens', 'access_tokens.account_id', 'accounts.id')
          .where('access_tokens.token_id', '=', values.tokenId as string)
          .where('access_tokens.token_hash', '=', values.tokenHash as string),
  );
}

/** The value of each of the check's placeholders (named as in CredentialValues). */
export function credentialValue(check: CredentialCheck, name: keyof CredentialValues): string | number | undefined {
  switch (name) {
    case 'accountId':
      return check.accountId;
    case 'tokenVersion':
      return check.tokenVersion;
    case 'tokenId':
      return check.accessToken?.tokenId;
    case 'tokenHash':
      return check.accessToken?.tokenHash;
  }
}

/** What the column says: PostgreSQL answers a boolean, SQLite 0 or 1. */
export const credentialStood = (value: unknown): boolean => value === true || value === 1;
