// The stage of the work budget (src/security/work-budget.ts; docs/limits.md "Work budget"): a tenant whose share of the
// server's time is spent is refused (429 RATE_LIMITED with Retry-After, in the door's shape), and one that already has
// its number of requests at work waits for a place in a short queue. Once the request is answered (a streamed answer:
// once its stream has begun; each live re-execution is charged on its own, src/graphql/live/live-queries.ts), what it
// did alone and its share of the rest of the event loop's CPU time meanwhile is charged to its tenant — a signed
// provider callback's to the account its signature verified for.
import { callbackAccount, noteWorkPiece } from '../core/request-context.js';
import type { Services } from '../services.js';
import type { Admission } from '../security/work-budget.js';
import { abortSignalOf } from './light-request.js';
import { refuse } from './refusal.js';
import type { Stage, Way } from './way.js';

const secondsOf = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

const tooMuch = (rest: boolean, message: string, wait: number) =>
  refuse(rest, {
    status: 429,
    message: `${message}; try again in ${wait} seconds`,
    code: 'RATE_LIMITED',
    extensions: { retryAfter: wait },
    headers: { 'retry-after': String(wait) },
  });

export function workBudgetStage(services: Services): Stage {
  const { work, config } = services;

  const spent = (way: Way, ms: number) => {
    const budget = way.tenant?.authenticated
      ? `${config.WORK_BUDGET_MS_PER_MINUTE} ms per minute per account`
      : `${config.ANONYMOUS_WORK_BUDGET_MS_PER_MINUTE} ms per minute per client address without a token`;
    const refusal = tooMuch(way.door.rest, `Too much work: at most ${budget} of handling time`, secondsOf(ms));
    return way.door.refusal(refusal, way);
  };

  const crowded = (way: Way) => {
    const most = way.tenant?.authenticated
      ? `${config.REQUESTS_IN_FLIGHT_PER_ACCOUNT} requests at once per account`
      : `${config.REQUESTS_IN_FLIGHT_PER_ADDRESS} requests at once per client address without a token`;
    const refusal = tooMuch(
      way.door.rest,
      `Too many requests at once: at most ${most}, and ${config.REQUESTS_QUEUED_PER_TENANT} waiting`,
      1,
    );
    return way.door.refusal(refusal, way);
  };

  /** From here to the answer, the request's time is its tenant's; `placed`: it holds one of the tenant's places. */
  const settleLater = (way: Way, tenant: string, placed: boolean) => {
    const mark = work.begin();
    noteWorkPiece(mark);
    // What its requests cost of late is taken now: requests admitted together cannot all start on one's worth.
    const reserved = work.reserve(tenant);
    way.settle = () => {
      const ms = work.end(mark);
      if (placed) work.release(tenant);
      // A signed callback verified for an account is that account's work, not its provider's address's (whose
      // reservation is given back).
      const account = way.signedCallback ? callbackAccount() : undefined;
      if (account) {
        work.unreserve(tenant, reserved);
        work.charge(`account:${account}`, ms);
      } else work.charge(tenant, ms, reserved);
    };
  };

  return (way) => {
    if (!way.limiting || !way.tenant) return undefined;
    const tenant = way.tenant.key;
    const wait = work.wait(tenant);
    if (wait > 0) return spent(way, wait);
    // A provider sends every tenant's callbacks from a few addresses: they take no place of the address's.
    if (way.signedCallback) {
      settleLater(way, tenant, false);
      return undefined;
    }
    const admission = work.admit(tenant, way.tenant.authenticated, abortSignalOf(way.received));
    if (admission === 'admitted') {
      settleLater(way, tenant, true);
      return undefined;
    }
    return admission instanceof Promise ? admitted(way, tenant, admission) : crowded(way);
  };

  async function admitted(way: Way, tenant: string, admission: Promise<Admission>): Promise<Response | undefined> {
    if ((await admission) !== 'admitted') return crowded(way);
    // Its budget may have been spent by those it waited behind (checked before its own reservation is taken).
    const wait = work.wait(tenant);
    if (wait > 0) {
      work.release(tenant);
      return spent(way, wait);
    }
    settleLater(way, tenant, true);
    return undefined;
  }
}
