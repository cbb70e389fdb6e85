// Per-account integration records of every kind (src/domain/integrations.schema.ts). Secret fields are sealed with
// AES-256-GCM before they reach the database; readers get them masked, except the one internal reader that
// needs them whole (signature checks).
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import { maskSecret, type SecretBox } from '../security/secrets.js';
import { badInput, type InputIssue, notFound } from '../core/errors.js';
import type { IntegrationKind } from './integrations.schema.js';

export type FieldValues = Record<string, string | null>;

/** What any door may show: plain fields as stored, secret fields masked. */
export interface IntegrationView {
  kind: string;
  connected: true;
  fields: FieldValues;
  updatedAt: string;
}

/** Characters that do not show (zero-width spaces and joiners, word joiners, the BOM, the soft hyphen) and spaces. */
const UNSEEN = /[\s\u00AD\u180E\u200B-\u200F\u2060-\u2064\uFEFF]/gu;
/** Characters drawn like an asterisk that NFKC leaves as they are (it makes the fullwidth and small ones "*"). */
const ASTERISK_LIKE = /[\u066D\u204E\u2055\u2217\u2731\u2732\u2733]/gu;

/**
 * Whether a value looks like a mask this gateway shows ("****" and the last 4, or "****" alone) rather than a secret:
 * once unseen characters and spaces are dropped and asterisk-like characters read as "*", only asterisks, or a run of
 * three or more followed by at most 6 characters, or two followed by at most 4. So the mask with an asterisk or a
 * character more or fewer, or with a zero-width space in it, is never taken for a new secret.
 */
export function looksLikeMask(value: string): boolean {
  const seen = value.normalize('NFKC').replace(UNSEEN, '').replace(ASTERISK_LIKE, '*');
  return /^\*+$/u.test(seen) || /^\*{3,}[^*]{0,6}$/u.test(seen) || /^\*{2}[^*]{0,4}$/u.test(seen);
}

/**
 * The plain fields and the secrets to store. A secret sent back as exactly the mask the server shows of the stored one
 * keeps the stored secret (a settings form, or an agent, changes one field and sends back what it read); any other
 * mask-like value (looksLikeMask) is refused, never stored as the secret. `stored` is null when the kind is not
 * connected.
 */
function split(kind: IntegrationKind, input: Record<string, unknown>, stored: FieldValues | null) {
  const fields: FieldValues = {};
  const secrets: FieldValues = {};
  const issues: InputIssue[] = [];
  for (const [name, field] of Object.entries(kind.fields)) {
    const value = typeof input[name] === 'string' ? input[name] : null;
    if (!field.secret) fields[name] = value;
    else if (value !== null && looksLikeMask(value)) {
      const kept = stored?.[name] ?? null;
      if (kept !== null && value === maskSecret(kept)) secrets[name] = kept;
      else {
        issues.push({
          path: ['input', name],
          type: 'value_error',
          message:
            'looks like a masked value, not a secret: send back exactly the mask the server showed to keep the ' +
            'stored secret, or the real secret to replace it',
        });
      }
    } else secrets[name] = value;
  }
  if (issues.length > 0) throw badInput(issues);
  return { fields, secrets };
}

function view(kind: IntegrationKind, row: { fields: string; secrets: string; updated_at: string }, box: SecretBox) {
  const secrets = JSON.parse(box.open(row.secrets)) as FieldValues;
  const masked = Object.fromEntries(Object.entries(secrets).map(([name, value]) => [name, value && maskSecret(value)]));
  return {
    kind: kind.kind,
    connected: true as const,
    fields: { ...(JSON.parse(row.fields) as FieldValues), ...masked },
    updatedAt: row.updated_at,
  };
}

/** Stores (or replaces) the account's integration of this kind; `input` has passed the kind's schema. */
export async function connectIntegration(
  db: Kysely<Database>,
  box: SecretBox,
  accountId: string,
  kind: IntegrationKind,
  input: Record<string, unknown>,
): Promise<IntegrationView> {
  // What is stored already, when a secret is sent back as its mask.
  const keepsAny = Object.entries(kind.fields).some(([name, field]) => {
    const value = input[name];
    return field.secret && typeof value === 'string' && looksLikeMask(value);
  });
  const stored = keepsAny ? await readIntegrationSecrets(db, box, accountId, kind) : null;
  const { fields, secrets } = split(kind, input, stored);
  const row = {
    account_id: accountId,
    kind: kind.kind,
    fields: JSON.stringify(fields),
    secrets: box.seal(JSON.stringify(secrets)),
    updated_at: new Date().toISOString(),
  };
  await db
    .insertInto('integrations')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'kind'])
        .doUpdateSet({ fields: row.fields, secrets: row.secrets, updated_at: row.updated_at }),
    )
    .execute();
  return view(kind, row, box);
}

/** Every connected integration of the account, by kind, masked. One query. */
export async function listIntegrations(
  db: Kysely<Database>,
  box: SecretBox,
  accountId: string,
  kinds: readonly IntegrationKind[],
): Promise<Map<string, IntegrationView>> {
  const rows = await db.selectFrom('integrations').selectAll().where('account_id', '=', accountId).execute();
  const result = new Map<string, IntegrationView>();
  for (const row of rows) {
    const kind = kinds.find((k) => k.kind === row.kind);
    if (kind) result.set(kind.kind, view(kind, row, box));
  }
  return result;
}

/** Deletes the stored record, credentials included; a kind that is not connected is NOT_FOUND. */
export async function disconnectIntegration(
  db: Kysely<Database>,
  accountId: string,
  kind: IntegrationKind,
): Promise<void> {
  const result = await db
    .deleteFrom('integrations')
    .where('account_id', '=', accountId)
    .where('kind', '=', kind.kind)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound(kind.notFound);
}

export async function isIntegrationConnected(
  db: Kysely<Database>,
  accountId: string,
  kind: IntegrationKind,
): Promise<boolean> {
  const row = await db
    .selectFrom('integrations')
    .select('kind')
    .where('account_id', '=', accountId)
    .where('kind', '=', kind.kind)
    .executeTakeFirst();
  return row !== undefined;
}

/** The whole secret values, for verifying provider signatures. Never returned to a client. */
export async function readIntegrationSecrets(
  db: Kysely<Database>,
  box: SecretBox,
  accountId: string,
  kind: IntegrationKind,
): Promise<FieldValues | null> {
  const row = await db
    .selectFrom('integrations')
    .select('secrets')
    .where('account_id', '=', accountId)
    .where('kind', '=', kind.kind)
    .executeTakeFirst();
  return row ? (JSON.parse(box.open(row.secrets)) as FieldValues) : null;
}
