// The per-account request limit, checked before a request reaches either door (DESIGN.md §11): 429 with
// Retry-After, shaped for the door that was called. Requests without a valid bearer token are not counted here
// (they fail authentication, or are provider webhooks identified by API key and signature).
import { bearerToken, type Services } from '../graphql/context.js';
import { refuse } from './refusal.js';

export async function rateLimitResponse(services: Services, request: Request, rest: boolean): Promise<Response | null> {
  const token = bearerToken(request.headers.get('authorization'));
  const accountId = token ? services.tokens.verify(token)?.accountId : null;
  if (!accountId) return null;
  const wait = await services.limits.request(accountId);
  if (wait === null) return null;
  return refuse(rest, {
    status: 429,
    message: `Too many requests: at most ${services.config.RATE_LIMIT_PER_MINUTE} per minute; try again in ${wait} seconds`,
    code: 'RATE_LIMITED',
    extensions: { retryAfter: wait },
    headers: { 'retry-after': String(wait) },
  });
}
