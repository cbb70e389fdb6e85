// What a named access token may not do (docs/security.md): manage credentials. An agent's token creating a
// token that never expires, revoking the others, rotating the API key or changing the password would turn its own
// expiry and revocation into suggestions; those take a login (e-mail and password).
import { forbidden } from '../../core/errors.js';
import type { Context } from './context.js';

export const NAMED_TOKEN_REFUSAL =
  'Named access tokens cannot manage credentials (access tokens, the API key, the password): log in with the password';

/** FORBIDDEN when the caller authenticated with a named access token. */
export function refuseNamedTokens(context: Pick<Context, 'accessTokenId'>): void {
  if (context.accessTokenId) throw forbidden(NAMED_TOKEN_REFUSAL);
}
