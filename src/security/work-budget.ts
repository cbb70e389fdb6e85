// Each tenant's share of the server's time (docs/limits.md "Work budget"; issue 52): what its requests actually cost,
// in milliseconds of the event loop's CPU time, whatever their number, and how many of them may be handled at once. A
// request is charged what it did alone — synchronous work timed as its own (its SQLite statements, its answer
// serialised: src/core/request-context.ts timedWork), during which nothing else ran — and its share of the rest of
// the CPU time the loop spends while it is at work: while n requests (or live re-executions) are at work, each is
// charged 1/n of that rest (processor sharing). So the charges add up to what the loop really spent, a tenant that
// holds the event loop pays for what it holds, and time spent waiting — for a core another process has, for the
// database, for another tenant's work — is not billed as if it were work. The budget is a token bucket per tenant
// (five seconds' worth of its budget at most in hand, refilled at the budget per minute), counted in memory with one
// Map lookup and a subtraction per request; as a request starts, what its tenant's requests cost of late is reserved.
// With REDIS_URL each charge is also added to a shared per-minute count (rate-limiter-flexible), and an instance that
// hears the tenant is over it refuses it locally until that minute ends. The cap on requests at once is per instance.
import { type OwnWork, ownWorkTotal } from '../core/request-context.js';
import type { RedisLink } from '../core/redis.js';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export interface WorkBudgetSettings {
  /** ms of handling time per minute for an account (WORK_BUDGET_MS_PER_MINUTE). */
  accountMsPerMinute: number;
  /** The same for a client address without a token (ANONYMOUS_WORK_BUDGET_MS_PER_MINUTE). */
  addressMsPerMinute: number;
  /** Requests of one account handled at once on one instance (REQUESTS_IN_FLIGHT_PER_ACCOUNT). */
  inFlightPerAccount: number;
  /** The same for one client address without a token (REQUESTS_IN_FLIGHT_PER_ADDRESS). */
  inFlightPerAddress: number;
  /** Requests of one tenant that may wait for a place beyond those (REQUESTS_QUEUED_PER_TENANT). */
  queuedPerTenant: number;
}

/** Where a request stands once it asked to be handled. */
export type Admission = 'admitted' | 'queue-full' | 'gave-up';

export interface WorkBudget {
  /** ms before the tenant (`account:<id>` or `address:<ip>`) may start more work: 0 when it may now. */
  wait(tenant: string): number;
  /**
   * A place among the tenant's requests handled at once: at once while there is one, else after those ahead of it in
   * the tenant's queue (a promise), or `queue-full` at once. `gave-up`: it waited QUEUE_WAIT_MS, or its client left.
   */
  admit(tenant: string, authenticated: boolean, signal: AbortSignal): Admission | Promise<Admission>;
  /** Gives the place back (to the next request waiting in the tenant's queue). */
  release(tenant: string): void;
  /**
   * Charges `ms` of work (as `end` measures it) to the tenant. A request passes what `reserve` took for it
   * (`reserved`): only the difference is taken (or given back), and its cost joins the tenant's moving average.
   * Other work (a live re-execution, a delivery attempt) passes none and leaves the average alone.
   */
  charge(tenant: string, ms: number, reserved?: number): void;
  /** Gives back a reservation whose request was not the tenant's work after all (a verified signed callback). */
  unreserve(tenant: string, reserved: number): void;
  /**
   * Takes from the tenant's bucket, as a request of its starts, what its requests have cost of late (a moving average):
   * several requests admitted at the same instant cannot all start on a bucket that holds enough for one. The ms
   * taken, to be passed to `charge` with the request's real cost.
   */
  reserve(tenant: string): number;
  /**
   * Starts measuring a piece of work (a request, a live re-execution): a mark for `end`, which must follow once. Run
   * the work with the mark in its context (noteWorkPiece, runAtWork) so that what it does alone is its own.
   */
  begin(): WorkMark;
  /**
   * Ends it: the ms of CPU time it is charged — what it did alone (timed synchronous work: its SQLite statements, its
   * answer serialised) and its share of the rest of what the process spent while it was at work.
   */
  end(mark: WorkMark): number;
}

/** A piece of work being measured: what it did alone, and its share of the rest so far. */
export interface WorkMark extends OwnWork {
  /** Where the shared clock stood when it began, or came back from waiting off the loop. */
  from: number;
  /** Its share before it last went away. */
  accrued: number;
  /** Off-loop waits it is in (`away`); while any, it is not at work. */
  waits: number;
  ended: boolean;
}

/**
 * The event loop's CPU time in ms (user and system: what it spends, not what it waits for): the main thread's where
 * Node tells it (process.threadCpuUsage, Node ≥ 23.9), so that work in other threads (scrypt's password hashing in
 * libuv's pool, the garbage collector's helpers) is not billed as time taken from the event loop; else the process's.
 */
const threadCpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.bind(process);
const processCpuMs = (): number => {
  const { user, system } = threadCpuUsage ? threadCpuUsage() : process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Processor sharing of what is not anyone's own: a clock that advances, while pieces of work are at work, by the CPU
 * time the process spent less the synchronous work timed as some piece's own (`timedWork`), divided by their number.
 * A piece of work is charged its own time and the clock's advance from its begin to its end: a request that holds
 * the event loop (a long answer serialised, a large read) pays for it, not the requests it held up. Two readings of
 * the process's CPU time per piece of work (a getrusage each, about a microsecond).
 */
export function createWorkMeter(
  cpuMs: () => number = processCpuMs,
  ownMs: () => number = ownWorkTotal,
): Pick<WorkBudget, 'begin' | 'end'> {
  let atWork = 0;
  let last = cpuMs();
  let lastOwn = ownMs();
  let shared = 0;
  const advance = () => {
    const now = cpuMs();
    const own = ownMs();
    if (atWork > 0) shared += Math.max(0, now - last - (own - lastOwn)) / atWork;
    last = now;
    lastOwn = own;
  };
  const leave = (mark: WorkMark) => {
    advance();
    mark.accrued += Math.max(0, shared - mark.from);
    atWork = Math.max(0, atWork - 1);
  };
  return {
    begin() {
      advance();
      atWork += 1;
      const mark: WorkMark = {
        from: shared,
        accrued: 0,
        ownMs: 0,
        waits: 0,
        ended: false,
        away() {
          if (mark.ended) return () => undefined;
          if (mark.waits++ === 0) leave(mark);
          let back = false;
          return () => {
            if (back || mark.ended) return;
            back = true;
            if (--mark.waits > 0) return;
            advance();
            mark.from = shared;
            atWork += 1;
          };
        },
      };
      return mark;
    },
    end(mark) {
      if (mark.ended) return 0;
      if (mark.waits === 0) leave(mark);
      mark.ended = true;
      return mark.accrued + mark.ownMs;
    },
  };
}

/** The longest a request waits in its tenant's queue for a place before it is refused. */
export const QUEUE_WAIT_MS = 10_000;
/** A tenant's debt is never more than this beyond its budget: one slow request (the database slow for everyone, say)
 * does not lock a tenant out for longer than the window its budget is counted over. */
const MAX_WAIT_MS = 60_000;
const MINUTE_MS = 60_000;
/**
 * How much of its budget a tenant may spend at once: the bucket holds five seconds' worth (a twelfth of a minute's
 * budget: 250 ms of handling time by default), so that a tenant with several connections takes the loop for a
 * fraction of a second before it is held to its share, rather than for the time a whole minute's budget lasts.
 */
const BURST_MS = 5_000;
/** How often idle tenants that owe nothing are forgotten (on the next new tenant after it: no timer). */
const SWEEP_EVERY_MS = 60_000;

interface TenantState {
  /** The bucket is full again (it owes nothing) at this performance.now(); it may start work while freeAt - BURST_MS ≤ now. */
  freeAt: number;
  /** Set when the shared count (Redis) says the tenant is over budget: refused here until then. */
  blockedUntil: number;
  inFlight: number;
  queue: Array<(admitted: boolean) => void> | null;
  /** What its requests cost of late: a moving average of their charges (ms), the reservation of the next. */
  recent: number;
}

/** The weight of the latest request in a tenant's moving average of what its requests cost. */
const RECENT_WEIGHT = 0.25;

export function createWorkBudget(settings: WorkBudgetSettings, redis: RedisLink | null): WorkBudget {
  const meter = createWorkMeter();
  const tenants = new Map<string, TenantState>();
  let lastSweep = performance.now();
  // ms of wall clock that one ms of handling costs: the bucket refills at the budget per minute.
  const accountRate = MINUTE_MS / settings.accountMsPerMinute;
  const addressRate = MINUTE_MS / settings.addressMsPerMinute;
  const isAccount = (tenant: string) => tenant.startsWith('account:');

  const shared = (points: number, keyPrefix: string) =>
    redis ? new RateLimiterRedis({ storeClient: redis.command, keyPrefix, points, duration: 60 }) : null;
  const sharedAccounts = shared(settings.accountMsPerMinute, 'gateway:work-accounts');
  const sharedAddresses = shared(settings.addressMsPerMinute, 'gateway:work-addresses');

  const sweep = (now: number) => {
    lastSweep = now;
    for (const [tenant, state] of tenants) {
      if (state.inFlight === 0 && state.freeAt <= now && state.blockedUntil <= now) tenants.delete(tenant);
    }
  };
  const stateOf = (tenant: string): TenantState => {
    let state = tenants.get(tenant);
    if (!state) {
      const now = performance.now();
      if (now - lastSweep > SWEEP_EVERY_MS) sweep(now);
      state = { freeAt: 0, blockedUntil: 0, inFlight: 0, queue: null, recent: 0 };
      tenants.set(tenant, state);
    }
    return state;
  };

  const wait = (tenant: string): number => {
    const state = tenants.get(tenant);
    if (!state) return 0;
    const now = performance.now();
    return Math.max(0, state.freeAt - BURST_MS - now, state.blockedUntil - now);
  };

  /** Takes `ms` of handling time from the bucket (gives it back when negative: a reservation larger than the cost). */
  const take = (state: TenantState, tenant: string, ms: number) => {
    const now = performance.now();
    const rate = isAccount(tenant) ? accountRate : addressRate;
    state.freeAt = Math.min(Math.max(state.freeAt, now) + ms * rate, now + BURST_MS + MAX_WAIT_MS);
  };

  return {
    wait,
    begin: meter.begin,
    end: meter.end,
    admit(tenant, authenticated, signal) {
      const state = stateOf(tenant);
      const cap = authenticated ? settings.inFlightPerAccount : settings.inFlightPerAddress;
      if (state.inFlight < cap) {
        state.inFlight += 1;
        return 'admitted';
      }
      state.queue ??= [];
      if (state.queue.length >= settings.queuedPerTenant) return 'queue-full';
      const queue = state.queue;
      if (signal.aborted) return 'gave-up';
      // Never throw from here on, nor from the timer: a signal that cannot be listened to (not an AbortSignal) only
      // means the client's leaving is not heard while it waits (it gives up at QUEUE_WAIT_MS).
      const listens = typeof signal.addEventListener === 'function' && typeof signal.removeEventListener === 'function';
      return new Promise<Admission>((resolve) => {
        const onAbort = () => settle(false);
        const timer = setTimeout(() => settle(false), QUEUE_WAIT_MS);
        timer.unref();
        const waiter = (admitted: boolean) => {
          clearTimeout(timer);
          if (listens) signal.removeEventListener('abort', onAbort);
          resolve(admitted ? 'admitted' : 'gave-up');
        };
        // Given up (timed out, client gone): out of the queue, so that no place is handed to it.
        const settle = (admitted: boolean) => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          waiter(admitted);
        };
        if (listens) signal.addEventListener('abort', onAbort, { once: true });
        queue.push(waiter);
      });
    },
    release(tenant) {
      const state = tenants.get(tenant);
      if (!state) return;
      // The place goes to the next one waiting, if any (the count of those at work stays the same).
      const next = state.queue?.shift();
      if (next) next(true);
      else state.inFlight = Math.max(0, state.inFlight - 1);
    },
    reserve(tenant) {
      const state = stateOf(tenant);
      const ms = state.recent;
      if (ms > 0) take(state, tenant, ms);
      return ms;
    },
    unreserve(tenant, reserved) {
      if (reserved > 0) take(stateOf(tenant), tenant, -reserved);
    },
    charge(tenant, ms, reserved) {
      if (!(ms >= 0)) return;
      const state = stateOf(tenant);
      if (reserved !== undefined) state.recent += (ms - state.recent) * RECENT_WEIGHT;
      if (ms - (reserved ?? 0) !== 0) take(state, tenant, ms - (reserved ?? 0));
      if (!(ms > 0)) return;
      const account = isAccount(tenant);
      const limiter = account ? sharedAccounts : sharedAddresses;
      if (!limiter || !redis?.available) return;
      // Not waited for: the request has been answered; the shared count refuses the tenant's next requests.
      limiter.consume(tenant, Math.ceil(ms)).catch((rejection: unknown) => {
        if (!(rejection instanceof RateLimiterRes)) return;
        const later = stateOf(tenant);
        later.blockedUntil = Math.max(later.blockedUntil, performance.now() + rejection.msBeforeNext);
      });
    },
  };
}
