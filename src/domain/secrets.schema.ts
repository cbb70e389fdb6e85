// The input field names whose values are secrets: shown only as "****" + their last 4 in error bodies and never
// logged (src/security/redact.ts masks them): the account's passwords and every secret field an integration declares.
import { INTEGRATION_KINDS } from './integrations.schema.js';

export const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set([
  'password',
  'currentPassword',
  'newPassword',
  ...INTEGRATION_KINDS.flatMap((kind) =>
    Object.entries(kind.fields)
      .filter(([, field]) => field.secret)
      .map(([name]) => name),
  ),
]);
