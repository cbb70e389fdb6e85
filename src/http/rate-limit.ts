// The request limits checked before a request reaches either door (README "Limits"): per account for requests with
// a valid bearer token, per client address for the rest (sign-up, login, provider webhooks, anonymous GraphQL).
// 429 with Retry-After, shaped for the door that was called.
import { bearerToken, type Services } from '../graphql/context.js';
import { refuse } from './refusal.js';

export async function rateLimitResponse(
  services: Services,
  request: Request,
  rest: boolean,
  clientAddress: string,
): Promise<Response | null> {
  const token = bearerToken(request.headers.get('authorization'));
  const accountId = token ? services.tokens.verify(token)?.accountId : null;
  const wait = accountId
    ? await services.limits.request(accountId)
    : await services.limits.anonymousRequest(clientAddress);
  if (wait === null) return null;
  const limit = accountId
    ? `${services.config.RATE_LIMIT_PER_MINUTE} per minute`
    : `${services.config.ANONYMOUS_RATE_LIMIT_PER_MINUTE} per minute per client address without a token`;
  return refuse(rest, {
    status: 429,
    message: `Too many requests: at most ${limit}; try again in ${wait} seconds`,
    code: 'RATE_LIMITED',
    extensions: { retryAfter: wait },
    headers: { 'retry-after': String(wait) },
  });
}
