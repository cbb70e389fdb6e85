// The input field names whose values are secrets: shown only as "****" in error bodies and never
// logged (src/security/redact.ts masks them): the account's passwords, every secret field an integration declares, and
// the parameters that carry one.
import { INTEGRATION_KINDS } from './integrations.schema.js';

export const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set([
  'password',
  'currentPassword',
  'newPassword',
  // The social webhook's handshake carries the stored verify token as this query parameter.
  'hub.verify_token',
  ...INTEGRATION_KINDS.flatMap((kind) =>
    Object.entries(kind.fields)
      .filter(([, field]) => field.secret)
      .map(([name]) => name),
  ),
]);
