// The work budget's arithmetic (src/security/work-budget.ts): a token bucket of a minute's budget per tenant, the wait
// it tells, accounts and addresses on their own budgets, the places at once and their queue, and the count shared
// through Redis (an instance that hears a tenant is over refuses it too).
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/core/logger.js';
import { ownWorkTotal, runAtWork, timedWork } from '../../src/core/request-context.js';
import { connectRedis, type RedisLink } from '../../src/core/redis.js';
import {
  createWorkBudget,
  createWorkMeter,
  QUEUE_WAIT_MS,
  type WorkBudgetSettings,
} from '../../src/security/work-budget.js';

const SETTINGS: WorkBudgetSettings = {
  accountMsPerMinute: 6000,
  addressMsPerMinute: 3000,
  inFlightPerAccount: 2,
  inFlightPerAddress: 1,
  queuedPerTenant: 1,
};

function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

describe('the meter', () => {
  it("charges each piece of work its share of the process's CPU time while it is at work, and no more in all", () => {
    let cpu = 1_000;
    const meter = createWorkMeter(() => cpu);
    const a = meter.begin();
    cpu += 10; // a alone
    const b = meter.begin();
    cpu += 10; // a and b
    expect(meter.end(a)).toBe(15);
    cpu += 4; // b alone
    expect(meter.end(b)).toBe(9);
    // Nothing at work: nobody is charged for it.
    cpu += 100;
    const c = meter.begin();
    expect(meter.end(c)).toBe(0);
  });

  it('charges a piece of work what it did alone (timed as its own), and shares only the rest', () => {
    let cpu = 0;
    let own = 0;
    const meter = createWorkMeter(
      () => cpu,
      () => own,
    );
    const blocker = meter.begin();
    const waiting = meter.begin();
    // The blocker serialises a long answer: 90 ms alone, timed as its own; 10 ms more of work nobody timed.
    blocker.ownMs += 90;
    own += 90;
    cpu += 100;
    expect(meter.end(waiting)).toBe(5);
    expect(meter.end(blocker)).toBe(95);
  });

  it('charges a piece no share while it waits off the event loop (once however many waits overlap)', () => {
    let cpu = 0;
    const meter = createWorkMeter(
      () => cpu,
      () => 0,
    );
    const hashing = meter.begin();
    const working = meter.begin();
    cpu += 10; // both at work: 5 each
    const back = hashing.away!();
    const backToo = hashing.away!();
    cpu += 30; // hashing waits (scrypt in the pool): working alone
    back();
    back(); // once only
    cpu += 4; // still away for the second wait
    backToo();
    cpu += 10; // both again
    expect(meter.end(hashing)).toBe(10);
    expect(meter.end(working)).toBe(44);
    // Coming back after the end changes nothing.
    const late = meter.begin();
    const gone = late.away!();
    expect(meter.end(late)).toBe(0);
    gone();
    cpu += 10;
    const alone = meter.begin();
    cpu += 6;
    expect(meter.end(alone)).toBe(6);
  });

  it('times synchronous work as the own of the piece it runs in, once when nested, and of no piece outside one', () => {
    const meter = createWorkMeter();
    const piece = meter.begin();
    const before = ownWorkTotal();
    runAtWork(piece, () =>
      timedWork(() => {
        timedWork(() => spin(20));
        spin(20);
      }),
    );
    timedWork(() => spin(20));
    expect(piece.ownMs).toBeGreaterThanOrEqual(40);
    // Not 60: the spins are by the clock, and on a loaded machine the process is not always on a core meanwhile.
    expect(piece.ownMs).toBeLessThan(60 * 5);
    expect(ownWorkTotal() - before).toBe(piece.ownMs);
    expect(meter.end(piece)).toBeGreaterThanOrEqual(40);
  });

  // Not time spent waiting: that the process's CPU clock does not advance while it waits is the first test's fake
  // clock; the real one also moves with whatever else this test process runs meanwhile (a wait measured 184 ms).
  it("reads the process's real CPU time", () => {
    const meter = createWorkMeter();
    const spinning = meter.begin();
    spin(100);
    expect(meter.end(spinning)).toBeGreaterThan(5);
  });
});

describe('in memory', () => {
  it("spends five seconds' worth of its budget at once, then tells how long until the bucket has some again", () => {
    const work = createWorkBudget(SETTINGS, null);
    work.charge('account:a', 400);
    expect(work.wait('account:a')).toBe(0);
    work.charge('account:a', 200);
    // 500 ms at once (6000 ms a minute), and 100 ms over: 1 s before it may start again.
    expect(work.wait('account:a')).toBeGreaterThan(900);
    expect(work.wait('account:a')).toBeLessThanOrEqual(1_000);
    // Another account, and an address, are on their own.
    expect(work.wait('account:b')).toBe(0);
    work.charge('address:10.0.0.1', 350);
    // The address's budget is 3000 ms a minute (250 ms at once): 100 ms over is 2 s.
    expect(work.wait('address:10.0.0.1')).toBeGreaterThan(1_900);
  });

  it('reserves what its requests cost of late as one starts, so that requests starting together cannot all spend one worth', () => {
    const work = createWorkBudget(SETTINGS, null);
    // Nothing known yet: nothing reserved.
    expect(work.reserve('account:a')).toBe(0);
    work.charge('account:a', 160, 0);
    // 500 ms at once: 340 left. The moving average of its requests' cost is 40 ms (a quarter of 160).
    for (let i = 0; i < 8; i++) expect(work.reserve('account:a')).toBe(40);
    // 320 ms of reservations: 20 left; one more puts it in debt.
    expect(work.wait('account:a')).toBe(0);
    work.reserve('account:a');
    expect(work.wait('account:a')).toBeGreaterThan(0);
    // A request that cost less than its reservation is refunded the difference: the bucket has some again.
    work.charge('account:a', 0, 40);
    expect(work.wait('account:a')).toBe(0);
    // Another tenant reserves its own average.
    expect(work.reserve('account:b')).toBe(0);
    // Work that is not a request of the tenant (a delivery attempt, a live re-execution) leaves the average alone;
    // a reservation given back (a verified callback, charged to its account) is given back whole.
    work.charge('account:a', 4000);
    expect(work.reserve('account:c')).toBe(0);
    work.charge('account:c', 80, 0);
    const taken = work.reserve('account:c');
    expect(taken).toBe(20);
    const before = work.wait('account:c');
    work.unreserve('account:c', taken);
    expect(work.wait('account:c')).toBeLessThanOrEqual(before);
  });

  it('never owes more than a minute beyond its budget', () => {
    const work = createWorkBudget(SETTINGS, null);
    work.charge('account:a', 1_000_000);
    expect(work.wait('account:a')).toBeLessThanOrEqual(60_000);
  });

  it('gives so many places at once, queues one more, refuses the next, and hands a place to the queue', async () => {
    const work = createWorkBudget(SETTINGS, null);
    const signal = new AbortController().signal;
    expect(work.admit('account:a', true, signal)).toBe('admitted');
    expect(work.admit('account:a', true, signal)).toBe('admitted');
    const queued = work.admit('account:a', true, signal);
    expect(queued).toBeInstanceOf(Promise);
    expect(work.admit('account:a', true, signal)).toBe('queue-full');
    // Another account, and an address (one place), are on their own.
    expect(work.admit('account:b', true, signal)).toBe('admitted');
    expect(work.admit('address:x', false, signal)).toBe('admitted');
    work.release('account:a');
    expect(await queued).toBe('admitted');
    work.release('account:a');
    work.release('account:a');
    expect(work.admit('account:a', true, signal)).toBe('admitted');
  });

  it('a queued request whose client leaves gives up its turn', async () => {
    const work = createWorkBudget({ ...SETTINGS, inFlightPerAccount: 1 }, null);
    const signal = new AbortController().signal;
    const leaving = new AbortController();
    expect(work.admit('account:a', true, signal)).toBe('admitted');
    const queued = work.admit('account:a', true, leaving.signal);
    leaving.abort();
    expect(await queued).toBe('gave-up');
    // The place goes back, not to the one that left.
    work.release('account:a');
    expect(work.admit('account:a', true, signal)).toBe('admitted');
  });

  it('a queued request whose signal cannot be listened to waits its time and gives up, without throwing', async () => {
    // A light request's `signal` is `{ aborted }` only (src/http/light-request.ts): a server crashed on it once, when
    // its queue wait ran out (bench:isolation, signed-in documents on PostgreSQL).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const work = createWorkBudget({ ...SETTINGS, inFlightPerAccount: 1 }, null);
      expect(work.admit('account:a', true, new AbortController().signal)).toBe('admitted');
      const plain = { aborted: false } as AbortSignal;
      const queued = work.admit('account:a', true, plain);
      expect(queued).toBeInstanceOf(Promise);
      await vi.advanceTimersByTimeAsync(QUEUE_WAIT_MS + 1);
      expect(await queued).toBe('gave-up');
      expect(work.admit('account:a', true, { aborted: true } as AbortSignal)).toBe('gave-up');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('in Redis', () => {
  let redis: RedisLink | undefined;
  afterAll(async () => {
    await redis?.close();
  });

  it('an instance refuses a tenant that spent its budget on another instance', async () => {
    redis = await connectRedis('redis://127.0.0.1:6379', createLogger('silent'), { commandTimeoutMs: 2000 });
    // Fourteen instances, 450 ms each: none is over on its own (500 ms at once), together they are over 6000 a minute.
    const instances = Array.from({ length: 14 }, () => createWorkBudget(SETTINGS, redis!));
    const tenant = `account:${randomBytes(6).toString('hex')}`;
    for (const work of instances) {
      work.charge(tenant, 450);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const last = instances.at(-1)!;
    for (let i = 0; i < 50 && last.wait(tenant) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(last.wait(tenant)).toBeGreaterThan(0);
    expect(last.wait(tenant)).toBeLessThanOrEqual(60_000);
    // The first heard nothing over: its own bucket is not spent.
    expect(instances[0]!.wait(tenant)).toBe(0);
    expect(await redis.command.get(`gateway:work-accounts:${tenant}`)).toBe('6300');
    await redis.command.del(`gateway:work-accounts:${tenant}`);
  });
});
