// Keeps secrets out of error bodies: FastAPI-style 422s echo inputs, and graphql-js quotes variable values in
// coercion errors. Any value under a secret field name is shown as "****" alone: not even its last 4, which a stored
// secret's mask shows but a refused password must not (a refusal tells nothing of what was sent). Which names are
// secret is the domain's to say (SECRET_FIELD_NAMES, src/domain/secrets.schema.ts); callers pass them in.

/** What an error body shows in place of a secret's value. */
export const REDACTED = '****';

/** How deep inputs are walked; anything deeper is shown as "…" (inputs that deep are refused anyway). */
const MAX_DEPTH = 32;

/** A copy of `value` with every string under a secret field name replaced by REDACTED. */
export function redactSecrets(value: unknown, secretNames: ReadonlySet<string>, secret = false, depth = 0): unknown {
  if (typeof value === 'string') return secret ? REDACTED : value;
  if (depth >= MAX_DEPTH && value !== null && typeof value === 'object') return '…';
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, secretNames, secret, depth + 1));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        redactSecrets(item, secretNames, secret || secretNames.has(key), depth + 1),
      ]),
    );
  }
  return value;
}

/** Every string found under a secret field name, to be scrubbed from messages. */
export function secretValues(
  value: unknown,
  secretNames: ReadonlySet<string>,
  secret = false,
  found: string[] = [],
  depth = 0,
): string[] {
  if (typeof value === 'string') {
    if (secret && value.length > 0) found.push(value);
  } else if (depth >= MAX_DEPTH) {
    return found;
  } else if (Array.isArray(value)) {
    for (const item of value) secretValues(item, secretNames, secret, found, depth + 1);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      secretValues(item, secretNames, secret || secretNames.has(key), found, depth + 1);
    }
  }
  return found;
}

/**
 * A function giving `text` with each secret replaced by REDACTED where the text quotes it: graphql-js quotes values as
 * JSON strings (`"…"`, escaped), as do our own messages. Only whole quoted strings are replaced, so a secret that
 * happens to be a common word or a single character does not mangle the rest of the message. Built once for a
 * request's secrets; each use is one scan of the text, however many secrets there are.
 */
export function secretScrubber(secrets: readonly string[]): (text: string) => string {
  if (secrets.length === 0) return (text) => text;
  const quoted = new Map(secrets.map((secret) => [JSON.stringify(secret), secret]));
  return (text) =>
    text.replace(/"(?:[^"\\]|\\.)*"/g, (token) => {
      const secret = quoted.get(token);
      return secret === undefined ? token : JSON.stringify(REDACTED);
    });
}
