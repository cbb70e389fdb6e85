// Live campaign events for GraphQL subscriptions (docs/decisions.md §9, §15), and the keys of writes that invalidate
// live queries on other instances (src/graphql/live/live-keys.ts). An event committed here reaches this
// instance's subscribers at once, in process; with REDIS_URL it is also published on one Redis channel, from which
// every other instance hands it to its own subscribers. Opening a stream never waits on Redis. While Redis is away the
// other instances' events cannot arrive: when it is back every open stream reads what it missed from the outbox (the
// events table), in order, skipping what it already had — so no event committed during an outage is lost silently.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { createPubSub, type PubSub, Repeater } from 'graphql-yoga';
import { type CampaignEvent, MAX_MISSED_EVENTS } from '../domain/events.js';
import type { Logger } from '../core/logger.js';
import type { RedisLink } from '../core/redis.js';

type Channels = { 'campaign-events': [topic: string, event: CampaignEvent] };

export interface CampaignEventBus {
  publish(event: CampaignEvent): void;
  /**
   * Live query keys a write of this instance touched (src/graphql/live/live-keys.ts), for the other instances: on the same
   * Redis channel as events. Nothing to do without Redis (this instance invalidates its own).
   */
  publishInvalidation(keys: readonly string[]): void;
  /**
   * Told the keys other instances' writes touched, and `'all'` when Redis is back after an outage (what was written
   * meanwhile did not arrive: every live query runs again).
   */
  onInvalidation(listener: (keys: readonly string[] | 'all') => void): void;
  /** Events of one campaign of one account (campaign ids are unique per account only). */
  subscribe(accountId: string, campId: string): AsyncIterable<CampaignEvent>;
  /** Starts listening on Redis (resolved once subscribed); nothing to do without it. */
  start(): Promise<void>;
}

/**
 * The events of a campaign created at or after `since` (ISO 8601) — after `afterId` among those created exactly then —
 * oldest first, at most MAX_MISSED_EVENTS (a page: the next one starts after the last event of this one).
 */
export type ReadMissedEvents = (
  accountId: string,
  campId: string,
  since: string,
  afterId?: string,
) => Promise<CampaignEvent[]>;

/** Pages of missed events one stream reads back at most after an outage (each of MAX_MISSED_EVENTS). */
const MAX_MISSED_PAGES = 50;

export const EVENTS_CHANNEL = 'campaign-gateway:campaign-events';
/** Events are read back from this long before an outage began (clocks of instances differ a little). */
const REPLAY_MARGIN_MS = 10_000;
/** The ids a stream remembers having delivered, so that a replay does not repeat them. */
const REMEMBERED_IDS = 1000;

const topicOf = (accountId: string, campId: string) => JSON.stringify([accountId, campId]);

/** At most this many keys go in one message (a big transaction's keys go in several). */
const KEYS_PER_MESSAGE = 500;

/**
 * On the channel: an event; live query keys; or `resync` — an instance that was cut off from Redis since that moment
 * (ISO 8601) and is back: what it committed meanwhile was never published, so every other instance reads it back from
 * the outbox (its own link to Redis may never have dropped).
 */
type Wire =
  { origin: string; event: CampaignEvent } | { origin: string; keys: string[] } | { origin: string; resync: string };

const isKeyList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.length <= KEYS_PER_MESSAGE && value.every((key) => typeof key === 'string');

/**
 * The in-process fan-out: one listener per open stream on one EventTarget. Many live streams of one campaign are normal
 * use (a dashboard per agent), not a leak, so Node's warning past 10 listeners of one type is off, and each stream's
 * listener is removed when it ends (test/events/event-bus-fanout.test.ts). Streams over WebSocket are bounded per
 * account (src/http/websockets.ts); SSE subscription streams are not (each holds an HTTP connection); live queries are
 * (LIVE_QUERIES_PER_ACCOUNT, src/graphql/live/live-queries.ts).
 */
export function fanOutTarget(): EventTarget {
  const target = new EventTarget();
  setMaxListeners(0, target);
  return target;
}

export function createCampaignEventBus(
  redis: RedisLink | null,
  readMissed: ReadMissedEvents,
  logger: Logger,
  eventTarget: EventTarget = fanOutTarget(),
): CampaignEventBus {
  const local: PubSub<Channels> = createPubSub<Channels>({ eventTarget });
  const instance = randomUUID();
  /** Each open stream's catch-up, called when Redis is back with the moment the outage began. */
  const catchUps = new Set<(since: string) => void>();
  let outageSince: number | null = null;
  const invalidationListeners: Array<(keys: readonly string[] | 'all') => void> = [];

  if (redis) {
    redis.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== EVENTS_CHANNEL) return;
      try {
        const wire = JSON.parse(message) as Wire;
        if (wire.origin === instance) return;
        if ('resync' in wire) {
          if (typeof wire.resync !== 'string' || Number.isNaN(Date.parse(wire.resync))) throw new Error('malformed');
          catchUpAll(wire.resync);
          return;
        }
        if ('keys' in wire) {
          if (!isKeyList(wire.keys)) throw new Error('malformed keys');
          for (const listener of invalidationListeners) listener(wire.keys);
          return;
        }
        const { event } = wire;
        local.publish('campaign-events', topicOf(event.accountId, event.campId), event);
      } catch {
        logger.debug('a malformed live event on Redis was ignored');
      }
    });
    redis.onChange((available) => {
      if (!available) {
        outageSince ??= Date.now();
        return;
      }
      const since = new Date((outageSince ?? Date.now()) - REPLAY_MARGIN_MS).toISOString();
      outageSince = null;
      void (async () => {
        // First the subscription, confirmed by Redis (ioredis re-subscribes on its own, but says `ready` before the
        // server has the subscription): from then on every event published reaches this instance. Then the outbox:
        // everything committed before that is there. No event falls between the two (issue 41: 226 did).
        await redis.subscriber.subscribe(EVENTS_CHANNEL).catch(() => undefined);
        catchUpAll(since);
        // The others read back what this instance committed while it could not publish.
        const wire: Wire = { origin: instance, resync: since };
        await redis.command.publish(EVENTS_CHANNEL, JSON.stringify(wire)).catch(() => undefined);
      })();
    });
  }

  /** Every open stream reads back what it may have missed since `since`; every live query runs again. */
  function catchUpAll(since: string): void {
    for (const catchUp of catchUps) catchUp(since);
    for (const listener of invalidationListeners) listener('all');
  }

  return {
    async start() {
      // Redis away at start (a degraded start): the subscription is made when it answers (onChange above), and the
      // streams then read back what they missed since now.
      if (redis && !redis.available) outageSince ??= Date.now();
      else await redis?.subscriber.subscribe(EVENTS_CHANNEL);
    },
    publish(event) {
      local.publish('campaign-events', topicOf(event.accountId, event.campId), event);
      if (!redis?.available) return;
      redis.command
        .publish(EVENTS_CHANNEL, JSON.stringify({ origin: instance, event } satisfies Wire))
        .catch((error: unknown) =>
          logger.debug({ reason: error instanceof Error ? error.message : String(error) }, 'live event not published'),
        );
    },
    publishInvalidation(keys) {
      if (!redis?.available) return;
      for (let start = 0; start < keys.length; start += KEYS_PER_MESSAGE) {
        const wire: Wire = { origin: instance, keys: keys.slice(start, start + KEYS_PER_MESSAGE) };
        redis.command
          .publish(EVENTS_CHANNEL, JSON.stringify(wire))
          .catch((error: unknown) =>
            logger.debug(
              { reason: error instanceof Error ? error.message : String(error) },
              'live query keys not published',
            ),
          );
      }
    },
    onInvalidation(listener) {
      invalidationListeners.push(listener);
    },
    subscribe(accountId, campId) {
      return new Repeater<CampaignEvent>(async (push, stop) => {
        const delivered = new Set<string>();
        // Events from before the stream opened were never its to deliver.
        const openedAt = new Date().toISOString();
        /** Resolves once the reader has taken the event (a long read-back waits for it: the repeater queues 1 024). */
        const deliver = async (event: CampaignEvent) => {
          if (delivered.has(event.id)) return;
          delivered.add(event.id);
          if (delivered.size > REMEMBERED_IDS) delivered.delete(delivered.values().next().value as string);
          await push(event);
        };
        const catchUp = (since: string) => {
          void (async () => {
            // Page after page (issue 41: one page of 1 000 left the rest of a long outage's events behind).
            let from = since > openedAt ? since : openedAt;
            let afterId: string | undefined;
            for (let page = 0; page < MAX_MISSED_PAGES; page++) {
              const events = await readMissed(accountId, campId, from, afterId);
              for (const event of events) await deliver(event);
              const last = events.at(-1);
              if (!last || events.length < MAX_MISSED_EVENTS) return;
              from = last.createdAt;
              afterId = last.id;
            }
            logger.warn({ campId, pages: MAX_MISSED_PAGES }, 'a stream missed more events than it reads back');
          })().catch((error: unknown) =>
            logger.warn({ reason: String(error) }, 'could not read the events a stream missed'),
          );
        };
        catchUps.add(catchUp);
        const events = local.subscribe('campaign-events', topicOf(accountId, campId))[Symbol.asyncIterator]();
        void stop.then(() => {
          catchUps.delete(catchUp);
          void events.return?.();
        });
        for (;;) {
          const next = await Promise.race([events.next(), stop.then(() => null)]);
          if (!next || next.done) break;
          void deliver(next.value);
        }
        catchUps.delete(catchUp);
      });
    },
  };
}
