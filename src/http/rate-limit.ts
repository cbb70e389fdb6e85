// The per-account request limit, checked before a request reaches either door (DESIGN.md §11): 429 with
// Retry-After, shaped for the door that was called. Requests without a valid bearer token are not counted here
// (they fail authentication, or are provider webhooks identified by API key and signature).
import type { Services } from '../graphql/context.js';
import { detailResponse } from '../rest/fastapi-errors.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export async function rateLimitResponse(services: Services, request: Request, rest: boolean): Promise<Response | null> {
  const token = BEARER.exec(request.headers.get('authorization') ?? '')?.[1];
  const accountId = token ? services.tokens.verify(token) : null;
  if (!accountId) return null;
  const wait = await services.limits.request(accountId);
  if (wait === null) return null;
  const message = `Too many requests: at most ${services.config.RATE_LIMIT_PER_MINUTE} per minute; try again in ${wait} seconds`;
  const headers = { 'retry-after': String(wait) };
  if (rest) return detailResponse(429, message, headers);
  return new Response(
    JSON.stringify({ errors: [{ message, extensions: { code: 'RATE_LIMITED', retryAfter: wait } }] }),
    {
      status: 429,
      headers: { 'content-type': 'application/json', ...headers },
    },
  );
}
