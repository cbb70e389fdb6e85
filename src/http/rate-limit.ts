// The request limits checked before a request reaches either door (docs/limits.md), per tenant: the account for
// requests with a valid bearer token, the client address for the rest (sign-up, login, provider webhooks, anonymous
// GraphQL). Two budgets: requests per minute, and large request bodies per minute (a 1 MiB body costs the shared
// event loop about 10 ms to parse, so a tenant sending them back to back would take the CPU from everyone else).
// 429 with Retry-After, shaped for the door that was called.
import { type RequestAuth, requestAuth } from '../authentication.js';
import type { Services } from '../services.js';
import { callbackApiKeyOf } from '../rest/door.js';
import { refuse } from './refusal.js';
import type { Stage, Tenant } from './way.js';

/** The tenant a request counts against: its token's account (verified once per request), else its address. */
export function tenantOf(auth: RequestAuth, clientAddress: string): Tenant {
  const accountId = auth.claims?.accountId;
  return accountId
    ? { key: `account:${accountId}`, authenticated: true }
    : { key: `address:${clientAddress}`, authenticated: false };
}

const tooMany = (rest: boolean, what: string, wait: number) =>
  refuse(rest, {
    status: 429,
    message: `Too many requests: at most ${what}; try again in ${wait} seconds`,
    code: 'RATE_LIMITED',
    extensions: { retryAfter: wait },
    headers: { 'retry-after': String(wait) },
  });

/**
 * Provider callbacks that carry a signature (`POST /api/v3/telephony_webhook/…` with X-Telephony-Signature,
 * `POST /api/v3/social_webhook/…` with X-Hub-Signature-256): counted after their signature is checked, against their
 * own account (src/graphql/schema/callback-budget.ts), not here against the sender's address; one that does not check
 * out counts against its address and the API key its path names (src/rest/door.ts), and only that pair's budget is
 * asked here, so a tenant with a wrong token (or a made-up key) refuses nobody else's callbacks from that address.
 */
const SIGNED_CALLBACKS: ReadonlyArray<[prefix: string, header: string]> = [
  ['/api/v3/telephony_webhook/', 'x-telephony-signature'],
  ['/api/v3/social_webhook/', 'x-hub-signature-256'],
];

export const isSignedCallback = (request: Request, pathname: string): boolean =>
  request.method === 'POST' &&
  SIGNED_CALLBACKS.some(([prefix, header]) => pathname.startsWith(prefix) && request.headers.has(header));

/**
 * The request rate check before a door. `signedCallbackKey`: the API key a signed callback's path names; the request
 * is let through uncounted while its address and that key have not spent their budget of failed callbacks (its
 * signature is checked, then counted, by the callback's resolver).
 */
export async function rateLimitResponse(
  services: Services,
  tenant: Tenant,
  rest: boolean,
  signedCallbackKey: string | null = null,
): Promise<Response | null> {
  const { config, limits } = services;
  const address = tenant.key.slice('address:'.length);
  const wait = tenant.authenticated
    ? await limits.request(tenant.key.slice('account:'.length))
    : signedCallbackKey !== null
      ? await limits.failedCallbacksSpent(address, signedCallbackKey)
      : await limits.anonymousRequest(address);
  if (wait === null) return null;
  return tooMany(
    rest,
    tenant.authenticated
      ? `${config.RATE_LIMIT_PER_MINUTE} per minute`
      : signedCallbackKey !== null
        ? `${config.ANONYMOUS_RATE_LIMIT_PER_MINUTE} callbacks per minute whose signature does not check out, per ` +
          'client address and API key'
        : `${config.ANONYMOUS_RATE_LIMIT_PER_MINUTE} per minute per client address without a token`,
    wait,
  );
}

/** Counts a body of `bytes` against the tenant's budget of large bodies: a 429 when it is spent. */
export async function bodyBudgetResponse(
  services: Services,
  tenant: Tenant,
  bytes: number,
  rest: boolean,
): Promise<Response | null> {
  const wait = await services.limits.bodyBytes(tenant.key, bytes);
  if (wait === null) return null;
  const mib = services.config.LARGE_BODY_MIB_PER_MINUTE;
  return tooMany(rest, `${mib} MiB of large request bodies per minute`, wait);
}

/**
 * The stage that reads the bearer token (once, for every later step: src/authentication.ts) and names the tenant the
 * request counts against. It answers nothing: a request without a valid token goes on as its address.
 */
export function authenticationStage(services: Services): Stage {
  return (way) => {
    const auth = requestAuth(services, way.received.headers.get('authorization'), way.door.audience);
    way.auth = auth;
    way.tenant = tenantOf(auth, way.clientAddress);
    way.signedCallback =
      way.door.name === 'rest' && !way.tenant.authenticated && isSignedCallback(way.received, way.url.pathname);
    return undefined;
  };
}

/** The stage of the request rate: a 429 in the door's shape once the tenant's minute is spent. */
export function rateLimitStage(services: Services): Stage {
  return async (way) => {
    if (!way.limiting || !way.tenant) return undefined;
    const key = way.signedCallback ? callbackApiKeyOf(way.url.pathname) : null;
    const limited = await rateLimitResponse(services, way.tenant, way.door.rest, key);
    return limited ? way.door.refusal(limited, way) : undefined;
  };
}
