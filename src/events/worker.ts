// The delivery worker (docs/decisions.md §9), run by every server process: it leases due deliveries from the outbox, POSTs
// each with Standard Webhooks headers, and records the outcome: success on a 2xx, otherwise a retry on the schedule
// (with up to 10 % jitter), `failed` after the last one. A 410 Gone disables the webhook. The same `webhook-id` (the
// delivery id) goes with every attempt. Requests never wait for it: a commit that raised events only wakes it.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import {
  abandonDelivery,
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDueDeliveries,
  disableWebhook,
  recordAttempt,
} from '../domain/delivery-leases.js';
import type { Logger } from '../core/logger.js';
import { newId } from '../security/api-keys.js';
import type { SecretBox } from '../security/secrets.js';
import { signWebhook } from '../security/webhook-signature.js';
import { postJson, TargetRefusedError } from './http-post.js';
import { SpanKind, trace } from '@opentelemetry/api';
import { inSpan, tracer } from '../core/tracing.js';

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
  /** Attempts in flight at once. */
  concurrency?: number;
  /** The worker's idea of now, in ms (tests move it forward to reach scheduled retries). */
  clock?: () => number;
  /** Told each recorded attempt's outcome (metrics): delivered, retry (to be tried again) or failed (given up). */
  onAttempt?: (outcome: 'delivered' | 'retry' | 'failed') => void;
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

export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, logger } = options;
  const pollMs = options.pollMs ?? 500;
  const concurrency = options.concurrency ?? 8;
  const clock = options.clock ?? Date.now;
  // A lease outlives the attempt's timeout, so a live worker always records its outcome first.
  const leaseMs = Math.ceil(options.timeoutMs * 1.5) + 1000;
  const owner = newId('worker');
  const inFlight = new Set<Promise<void>>();
  let running = true;
  let wakeUp: (() => void) | null = null;
  let woken = false;

  const wake = () => {
    woken = true;
    wakeUp?.();
  };

  const idle = () =>
    new Promise<void>((resolve) => {
      if (woken) return resolve();
      const timer = setTimeout(resolve, pollMs);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });

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
      const status = await postJson(delivery.url, delivery.payload, {
        headers,
        timeoutMs: options.timeoutMs,
        allowPrivate: options.allowPrivate,
        signal: stopping.signal,
      });
      trace.getActiveSpan()?.setAttribute('http.response.status_code', status);
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
      outcome = {
        ok: false,
        responseCode: null,
        error: refused ? `Target refused: ${message}` : message,
        retryAt: retryAt(delivery),
      };
    }
    // Cut short by shutdown: the lease runs out and the delivery is attempted again (same webhook-id) by any instance.
    if (stopping.signal.aborted) return;
    if (!outcome.ok) {
      logger.warn(
        { deliveryId: delivery.deliveryId, webhookId: delivery.webhookId, error: outcome.error },
        'webhook delivery attempt failed',
      );
    }
    await recordAttempt(db, lease, delivery.deliveryId, outcome);
    options.onAttempt?.(outcome.ok ? 'delivered' : outcome.retryAt === null ? 'failed' : 'retry');
  }

  function track(delivery: ClaimedDelivery): void {
    // A span per attempt (docs/observability.md "Traces"); its SQL spans nest in it.
    const span = tracer.startSpan('webhook.deliver', {
      kind: SpanKind.CLIENT,
      attributes: { 'webhook.delivery_id': delivery.deliveryId, 'webhook.id': delivery.webhookId ?? '' },
    });
    const running = inSpan(span, () => attempt(delivery))
      .catch((error: unknown) => {
        if (options.availability?.failed(error) || stopping.signal.aborted) return;
        logger.error({ err: error, deliveryId: delivery.deliveryId }, 'delivery failed');
      })
      .finally(() => {
        inFlight.delete(running);
        wake();
      });
    inFlight.add(running);
  }

  async function loop(): Promise<void> {
    while (running) {
      woken = false;
      const free = concurrency - inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      if (free > 0) {
        try {
          const now = clock();
          claimed = await claimDueDeliveries(db, {
            owner,
            now: new Date(now).toISOString(),
            leaseUntil: new Date(now + leaseMs).toISOString(),
            limit: free,
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
      if (claimed.length === 0 || claimed.length < free) await idle();
      wakeUp = null;
    }
  }

  const done = loop();
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
