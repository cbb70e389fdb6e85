// Idempotency keys (docs/mcp.md "Retries"): a create operation without a natural key (webhookCreate) takes an optional
// key; a retry with the same key and the same input answers the record the first request made, for a day, instead of
// making another. The same key with another input is a CONFLICT (the client reused a key by mistake). Called inside
// the creating transaction, after it serialised the account's writes, so two racing requests with one key cannot both
// create. The key is kept as its digest, bounded in length by the input's rule.
import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { conflict } from '../core/errors.js';
import type { Database } from '../db/types.js';

/** How long a key answers retries. */
export const IDEMPOTENCY_KEY_HOURS = 24;

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');

export interface IdempotentCreate {
  accountId: string;
  /** The operation (webhook.create). */
  scope: string;
  key: string;
  /** What was asked, canonical: another input under the same key is refused. */
  input: unknown;
}

/**
 * The id of the record an earlier request with this key made, or undefined when there was none (or it expired).
 * Throws CONFLICT when the key was used with another input.
 */
export async function earlierResult(
  trx: Transaction<Database> | Kysely<Database>,
  request: IdempotentCreate,
): Promise<string | undefined> {
  const now = new Date().toISOString();
  const row = await trx
    .selectFrom('idempotency_keys')
    .select(['input_digest', 'result_id'])
    .where('account_id', '=', request.accountId)
    .where('scope', '=', request.scope)
    .where('key_digest', '=', digest(request.key))
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.input_digest !== digest(JSON.stringify(request.input))) {
    throw conflict('This idempotencyKey was used with other arguments: send a new key for a new request');
  }
  return row.result_id;
}

/** Notes the record a request with this key made (and sweeps the account's expired keys). */
export async function rememberResult(
  trx: Transaction<Database> | Kysely<Database>,
  request: IdempotentCreate,
  resultId: string,
): Promise<void> {
  const now = new Date();
  await trx
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', request.accountId)
    .where('expires_at', '<=', now.toISOString())
    .execute();
  const values = {
    account_id: request.accountId,
    scope: request.scope,
    key_digest: digest(request.key),
    input_digest: digest(JSON.stringify(request.input)),
    result_id: resultId,
    expires_at: new Date(now.getTime() + IDEMPOTENCY_KEY_HOURS * 3_600_000).toISOString(),
  };
  // An expired key of the same name is replaced.
  await trx
    .insertInto('idempotency_keys')
    .values(values)
    .onConflict((oc) => oc.columns(['account_id', 'scope', 'key_digest']).doUpdateSet(values))
    .execute();
}
