// The delivery worker (docs/decisions.md §9), run by every server process: it leases due deliveries from the outbox, POSTs
// each with Standard Webhooks headers, and records the outcome: success on a 2xx, otherwise a retry on the schedule
// (with up to 10 % jitter), `failed` after the last one. A 410 Gone disables the webhook. The same `webhook-id` (the
// delivery id) goes with every attempt. Requests never wait for it: a commit that raised events only wakes it.
// Beside it runs the fan-out expander: big fan-outs become delivery rows a slice at a time (src/domain/fan-outs.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import {
  abandonDelivery,
  type AttemptOutcome,
  type ClaimedDelivery,
  type ClaimCursor,
  claimDueDeliveries,
  disableWebhook,
  recordAttempt,
  recordSuccesses,
} from '../domain/delivery-leases.js';
import type { Logger } from '../core/logger.js';
import { newId } from '../security/api-keys.js';
import type { SecretBox } from '../security/secrets.js';
import { signWebhook } from '../security/webhook-signature.js';
import { NoResponseError, postJson, TargetRefusedError } from './http-post.js';
import { expandFanOutSlice, PENDING_DELIVERIES_PER_ACCOUNT, type SliceResult } from '../domain/fan-outs.js';
import { yieldToLoop } from '../core/event-loop.js';
import { type Link, SpanKind, trace } from '@opentelemetry/api';
import { inSpan, markFailed, spanContextOf, tracer } from '../core/tracing.js';
import { offLoop, runAtWork } from '../core/request-context.js';
import type { WorkBudget } from '../security/work-budget.js';

export const USER_AGENT = 'campaign-gateway-webhooks/1';

export interface DeliveryWorkerOptions {
  db: Kysely<Database>;
  secrets: SecretBox;
  logger: Logger;
  /** Seconds between attempts after the first (WEBHOOK_RETRY_SCHEDULE). */
  retrySchedule: readonly number[];
  timeoutMs: number;
  allowPrivate: boolean;
  /** Told of database errors: true when it was an outage (logged once there), not a failure to log here. */
  availability?: { failed(error: unknown): boolean };
  /** How often to look for due deliveries when nothing wakes the worker (scheduled retries, other instances). */
  pollMs?: number;
  /** Attempts in flight at once (DELIVERY_CONCURRENCY). */
  concurrency?: number;
  /** The worker's idea of now, in ms (tests move it forward to reach scheduled retries). */
  clock?: () => number;
  /** Told each recorded attempt's outcome (metrics): delivered, retry (to be tried again) or failed (given up). */
  onAttempt?: (outcome: 'delivered' | 'retry' | 'failed', lagSeconds?: number) => void;
  /**
   * The work budget (src/security/work-budget.ts): each attempt, and each slice of a fan-out expanded, is measured and
   * charged to its account; an account whose budget is spent has no deliveries claimed until it has some again.
   */
  work?: Pick<WorkBudget, 'begin' | 'end' | 'charge' | 'wait'>;
}

export interface DeliveryWorker {
  /** Look for due deliveries now (called after a commit that raised events). */
  wake(): void;
  /** Stops claiming, and waits for the attempts in flight. */
  /** Stops claiming; waits up to `graceMs` (default 1 s) for attempts in flight, then cuts them. */
  stop(graceMs?: number): Promise<void>;
}

/** How long a stopping worker waits for attempts in flight. */
const STOP_GRACE_MS = 1000;

/**
 * Attempts in flight at once, per instance: enough to deliver hundreds a second to receivers that answer in a few ms
 * (`npm run bench:deliveries`), few enough that slow receivers (up to WEBHOOK_TIMEOUT_SECONDS) hold few sockets.
 */
export const DELIVERY_CONCURRENCY = 32;

/** Something to wait on until notified or `ms` have passed (a loop's idle time). */
function signal() {
  let notified = false;
  let wakeUp: (() => void) | null = null;
  return {
    notify() {
      notified = true;
      wakeUp?.();
    },
    wait(ms: number) {
      return new Promise<void>((resolve) => {
        if (notified) return resolve();
        const timer = setTimeout(resolve, ms);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
    /** Called at the start of a round: what notifies from now on wakes the next wait. */
    reset() {
      notified = false;
      wakeUp = null;
    },
  };
}

/**
 * Marks the attempt's span (the active one) failed with why no answer came: the network error's code
 * ('ECONNREFUSED', 'ENOTFOUND'…), 'timeout after 10 s', or 'target refused: …' (the SSRF guard); the error itself is
 * recorded as the span's exception.
 */
function failedSpan(error: unknown, message: string): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  const code = (error as { code?: unknown } | null)?.code;
  const reason =
    error instanceof NoResponseError
      ? `timeout after ${error.timeoutMs / 1000} s`
      : error instanceof TargetRefusedError
        ? `target refused: ${message}`
        : typeof code === 'string'
          ? code
          : message;
  span.setAttribute(
    'error.type',
    error instanceof NoResponseError ? 'timeout' : error instanceof TargetRefusedError ? 'target_refused' : reason,
  );
  markFailed(span, reason, error);
}

export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, logger } = options;
  const pollMs = options.pollMs ?? 500;
  const concurrency = options.concurrency ?? DELIVERY_CONCURRENCY;
  // Claims wait for a quarter of the slots to be free: fewer, bigger claims than one per finished attempt.
  const claimAtLeast = Math.max(1, Math.floor(concurrency / 4));
  const cursor: ClaimCursor = { after: '' };
  const clock = options.clock ?? Date.now;
  // A lease outlives the attempt's timeout, so a live worker always records its outcome first.
  const leaseMs = Math.ceil(options.timeoutMs * 1.5) + 1000;
  const owner = newId('worker');
  const inFlight = new Set<Promise<void>>();
  let running = true;
  const claims = signal();
  const fanOuts = signal();

  const wake = () => {
    claims.notify();
    fanOuts.notify();
  };
  /** Accounts whose work budget is spent: their deliveries are not claimed, their fan-outs not expanded, meanwhile. */
  const waiting = options.work ? { skip: (accountId: string) => options.work!.wait(`account:${accountId}`) > 0 } : {};

  function retryAt(delivery: ClaimedDelivery): string | null {
    const delays = delivery.retryDelays ?? options.retrySchedule;
    const delay = delays[delivery.retries];
    if (delay === undefined) return null;
    return new Date(clock() + delay * 1000 * (1 + Math.random() * 0.1)).toISOString();
  }

  /** Aborted when a stopping worker's grace has run out: attempts still in flight are cut, their outcome unrecorded. */
  const stopping = new AbortController();

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const lease = { owner, leaseUntil: delivery.leaseUntil };
    if (!delivery.url) {
      const reason = delivery.webhookId ? 'Webhook is disabled' : 'Text pipeline deleted';
      await abandonDelivery(db, lease, delivery.deliveryId, reason);
      return;
    }
    const timestamp = Math.floor(clock() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': delivery.deliveryId,
      'webhook-timestamp': String(timestamp),
    };
    if (delivery.sealedSecret) {
      const secret = options.secrets.open(delivery.sealedSecret);
      headers['webhook-signature'] = signWebhook(secret, delivery.deliveryId, timestamp, delivery.payload);
    }
    let outcome: AttemptOutcome;
    try {
      // Waiting for the receiver is not work on the event loop: the attempt takes no share of it meanwhile.
      const status = await offLoop(
        postJson(delivery.url, delivery.payload, {
          headers,
          timeoutMs: options.timeoutMs,
          allowPrivate: options.allowPrivate,
          signal: stopping.signal,
        }),
      );
      const span = trace.getActiveSpan();
      span?.setAttribute('http.response.status_code', status);
      if (status < 200 || status >= 300) {
        span?.setAttribute('error.type', String(status));
        markFailed(span, `HTTP ${status}`);
      }
      if (status >= 200 && status < 300) {
        outcome = { ok: true, responseCode: status };
      } else if (status === 410 && delivery.webhookId) {
        await disableWebhook(db, delivery.accountId, delivery.webhookId, 'The receiver answered 410 Gone');
        outcome = {
          ok: false,
          responseCode: status,
          error: 'Receiver answered 410 Gone: webhook disabled',
          retryAt: null,
        };
      } else {
        outcome = { ok: false, responseCode: status, error: `Receiver answered ${status}`, retryAt: retryAt(delivery) };
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const refused = error instanceof TargetRefusedError;
      if (!stopping.signal.aborted) failedSpan(error, message);
      outcome = {
        ok: false,
        responseCode: null,
        error: refused ? `Target refused: ${message}` : message,
        retryAt: retryAt(delivery),
      };
    }
    // Cut short by shutdown: the lease runs out and the delivery is attempted again (same webhook-id) by any instance.
    if (stopping.signal.aborted) {
      markFailed(trace.getActiveSpan(), 'cut short by shutdown (attempted again once its lease runs out)');
      return;
    }
    if (!outcome.ok) {
      logger.warn(
        { deliveryId: delivery.deliveryId, webhookId: delivery.webhookId, error: outcome.error },
        'webhook delivery attempt failed',
      );
    }
    if (outcome.ok) await recordSuccess(delivery, outcome.responseCode);
    else await recordAttempt(db, lease, delivery.deliveryId, outcome);
    // A delivery's lag: from its event's commit to the receiver's 2xx (retries included), on the worker's clock.
    const lag = outcome.ok ? Math.max(0, (clock() - Date.parse(delivery.eventCreatedAt)) / 1000) : undefined;
    options.onAttempt?.(outcome.ok ? 'delivered' : outcome.retryAt === null ? 'failed' : 'retry', lag);
  }

  /** Successes waiting to be recorded together (one statement per lease end and status code). */
  let successes: Array<{ delivery: ClaimedDelivery; code: number; settle: (error?: unknown) => void }> = [];

  function recordSuccess(delivery: ClaimedDelivery, code: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (successes.length === 0) setImmediate(() => void flushSuccesses());
      successes.push({ delivery, code, settle: (error) => (error === undefined ? resolve() : reject(error)) });
    });
  }

  async function flushSuccesses(): Promise<void> {
    const batch = successes;
    successes = [];
    const groups = new Map<string, typeof batch>();
    for (const success of batch) {
      const key = `${success.delivery.leaseUntil} ${success.code}`;
      groups.set(key, [...(groups.get(key) ?? []), success]);
    }
    for (const group of groups.values()) {
      const [{ delivery, code }] = group as [(typeof batch)[number]];
      const ids = group.map((success) => success.delivery.deliveryId);
      try {
        await recordSuccesses(db, { owner, leaseUntil: delivery.leaseUntil }, ids, code);
        for (const success of group) success.settle();
      } catch (error) {
        for (const success of group) success.settle(error ?? new Error('could not record deliveries'));
      }
    }
  }

  function track(delivery: ClaimedDelivery): void {
    // A span per attempt (docs/observability.md "Traces"), a trace of its own (an attempt may come hours after the
    // request, and there may be many) linked to the span that wrote its event; its SQL spans nest in it.
    const writer = spanContextOf(delivery.traceParent);
    const links: Link[] = writer ? [{ context: writer }] : [];
    const span = tracer.startSpan('webhook.deliver', {
      kind: SpanKind.CLIENT,
      root: true,
      links,
      attributes: { 'webhook.delivery_id': delivery.deliveryId, 'webhook.id': delivery.webhookId ?? '' },
    });
    const work = options.work;
    const mark = work?.begin();
    const running = inSpan(span, () => (mark ? runAtWork(mark, () => attempt(delivery)) : attempt(delivery)))
      .catch((error: unknown) => {
        if (options.availability?.failed(error) || stopping.signal.aborted) return;
        logger.error({ err: error, deliveryId: delivery.deliveryId }, 'delivery failed');
      })
      .finally(() => {
        if (work && mark) work.charge(`account:${delivery.accountId}`, work.end(mark));
        inFlight.delete(running);
        claims.notify();
      });
    inFlight.add(running);
  }

  async function loop(): Promise<void> {
    while (running) {
      claims.reset();
      const free = concurrency - inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      if (free >= claimAtLeast || inFlight.size === 0) {
        try {
          const now = clock();
          claimed = await claimDueDeliveries(db, {
            owner,
            now: new Date(now).toISOString(),
            leaseUntil: new Date(now + leaseMs).toISOString(),
            limit: free,
            cursor,
            // An account whose work budget is spent waits: its deliveries are claimed once it has some again.
            ...waiting,
          });
        } catch (error) {
          // An unreachable database is logged once by the availability tracker, not at every poll.
          if (running && !options.availability?.failed(error)) {
            logger.error({ err: error }, 'could not claim webhook deliveries');
          }
        }
        for (const delivery of claimed) track(delivery);
      }
      // A full batch suggests more are due: claim again at once (while there is room).
      if (claimed.length === 0 || claimed.length < free) await claims.wait(pollMs);
    }
  }

  /** Accounts whose deliveries were refused for the cap, logged once until one of theirs is queued again. */
  const capped = new Set<string>();

  function noteSlice(slice: SliceResult): void {
    if (slice.refused > 0 && !capped.has(slice.accountId)) {
      capped.add(slice.accountId);
      logger.warn(
        { accountId: slice.accountId, refused: slice.refused, cap: PENDING_DELIVERIES_PER_ACCOUNT },
        'webhook deliveries refused: the account has too many pending (they are listed as failed, to redeliver)',
      );
    } else if (slice.refused === 0 && slice.pending > 0) capped.delete(slice.accountId);
    if (slice.pending > 0) claims.notify();
  }

  /** Expands fan-outs a slice at a time, yielding to the event loop between slices. */
  async function expand(): Promise<void> {
    while (running) {
      fanOuts.reset();
      let slice: SliceResult | null = null;
      const mark = options.work?.begin();
      try {
        // An account whose work budget is spent waits: its fan-outs keep their place until it has some again.
        const expand = () => expandFanOutSlice(db, waiting);
        slice = await (mark ? runAtWork(mark, expand) : expand());
      } catch (error) {
        if (running && !options.availability?.failed(error)) logger.error({ err: error }, 'could not expand a fan-out');
      }
      if (mark) {
        const ms = options.work!.end(mark);
        if (slice) options.work!.charge(`account:${slice.accountId}`, ms);
      }
      if (slice) {
        noteSlice(slice);
        await yieldToLoop();
      } else await fanOuts.wait(pollMs);
    }
  }

  const done = Promise.all([loop(), expand()]);
  return {
    wake,
    async stop(graceMs = STOP_GRACE_MS) {
      running = false;
      wake();
      // Bounded: attempts in flight get `graceMs` to finish, then are cut (their leases run out and any instance
      // tries again with the same webhook-id); a claim stuck on a dead database must not hold shutdown either.
      const settled = () => done.then(() => Promise.allSettled([...inFlight]));
      const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
      await Promise.race([settled(), after(graceMs)]);
      stopping.abort();
      await Promise.race([settled(), after(250)]);
    },
  };
}
