// Keeps secrets out of error bodies: FastAPI-style 422s echo inputs, and graphql-js quotes variable values in
// coercion errors. Any value under a secret field name is shown as "****" + its last 4, as everywhere else.
import { INTEGRATION_KINDS } from '../domain/integrations.schema.js';
import { maskSecret } from './secrets.js';

export const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set([
  'password',
  ...INTEGRATION_KINDS.flatMap((kind) =>
    Object.entries(kind.fields)
      .filter(([, field]) => field.secret)
      .map(([name]) => name),
  ),
]);

/** A copy of `value` with every string under a secret field name masked. */
export function redactSecrets(value: unknown, secret = false): unknown {
  if (typeof value === 'string') return secret ? maskSecret(value) : value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, secret));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, redactSecrets(item, secret || SECRET_FIELD_NAMES.has(key))]),
    );
  }
  return value;
}

/** Every string found under a secret field name, to be scrubbed from messages. */
export function secretValues(value: unknown, secret = false, found: string[] = []): string[] {
  if (typeof value === 'string') {
    if (secret && value.length > 0) found.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) secretValues(item, secret, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) secretValues(item, secret || SECRET_FIELD_NAMES.has(key), found);
  }
  return found;
}

/**
 * `text` with each secret replaced by its mask, as written and as a JSON string escapes it (graphql-js quotes
 * values that way); longest first, so no secret survives inside another.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  const forms = secrets.flatMap((secret) =>
    [secret, JSON.stringify(secret).slice(1, -1)].map((form) => [form, secret]),
  );
  return forms
    .sort(([a], [b]) => (b?.length ?? 0) - (a?.length ?? 0))
    .reduce(
      (scrubbed, [form = '', secret = '']) => (form ? scrubbed.split(form).join(maskSecret(secret)) : scrubbed),
      text,
    );
}
