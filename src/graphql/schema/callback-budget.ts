// The budget of provider callbacks (docs/limits.md; issue 41). A provider sends every tenant's callbacks from a few
// egress addresses, so a signed callback must not count against its sender's address: a busy campaign would starve
// every other tenant's callbacks and every login from that address. The HTTP door lets a request that carries a
// signature header through uncounted while its address and the API key its path names have budget left
// (src/http/rate-limit.ts); here, once the signature checks out, it counts against its own account
// (CALLBACK_RATE_LIMIT_PER_MINUTE, 429 with Retry-After past it: providers retry). Whatever else such a request turns
// out to be (a wrong signature, an unknown key, a body the door refuses, a social channel without an app secret), the
// door counts it against that address and key (src/rest/door.ts): never against what other tenants' callbacks from
// the same address are let in on.
import { rateLimited } from '../../core/errors.js';
import { noteCallbackCounted } from '../../core/request-context.js';
import type { Context } from './context.js';

/** Counts a verified callback against its account: RATE_LIMITED (429 + Retry-After) past the budget. */
export async function countCallback(context: Context, accountId: string): Promise<void> {
  const wait = await context.limits.callback(accountId);
  // Its handling time is its account's too (src/http/work-budget.ts), and refused while that account's share is spent.
  noteCallbackCounted(accountId);
  const working = context.work.wait(`account:${accountId}`);
  if (wait === null && working > 0) {
    const seconds = Math.max(1, Math.ceil(working / 1000));
    throw rateLimited(
      `Too much work: this account has spent its ${context.config.WORK_BUDGET_MS_PER_MINUTE} ms per minute of handling time; try again in ${seconds} seconds`,
      seconds,
    );
  }
  if (wait !== null) {
    const most = context.config.CALLBACK_RATE_LIMIT_PER_MINUTE;
    throw rateLimited(
      `Too many requests: at most ${most} signed provider callbacks per minute per account; try again in ${wait} seconds`,
      wait,
    );
  }
}

/** `accepted(accountId, signed)` for a callback's domain function: a verified signature counts here. */
export const callbackAccepted =
  (context: Context) =>
  (accountId: string, signed: boolean): Promise<void> =>
    signed ? countCallback(context, accountId) : Promise.resolve();
