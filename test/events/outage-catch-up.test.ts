// What a live stream reads back after Redis was away (src/events/pubsub.ts; issue 41), with a Redis link that the
// test drives: the subscription is confirmed before the outbox is read (no event falls between the two), the outbox
// is read page after page (an outage's events are not cut at one page), and an instance back from an outage of its
// own makes the others read back what it committed meanwhile. `npm run bench:restarts` measures the same end to end.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { RedisLink } from '../../src/core/redis.js';
import { type CampaignEvent, MAX_MISSED_EVENTS } from '../../src/domain/events.js';
import { createCampaignEventBus, EVENTS_CHANNEL, type ReadMissedEvents } from '../../src/events/pubsub.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} } as never;

/** A Redis link whose availability, subscription and messages the test decides. */
function fakeRedis() {
  const subscriber = Object.assign(new EventEmitter(), {
    subscribed: 0,
    /** Resolved by the test: Redis confirming the subscription. */
    confirm: () => undefined as void,
    subscribe(): Promise<number> {
      return new Promise((resolve) => {
        subscriber.confirm = () => {
          subscriber.subscribed += 1;
          resolve(1);
        };
      });
    },
  });
  const published: string[] = [];
  const listeners = new Set<(available: boolean) => void>();
  let available = true;
  const link = {
    subscriber,
    command: { publish: async (_channel: string, message: string) => void published.push(message) },
    get available() {
      return available;
    },
    onChange(listener: (up: boolean) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: async () => undefined,
  } as unknown as RedisLink;
  return {
    link,
    subscriber,
    published,
    set(up: boolean) {
      available = up;
      for (const listener of listeners) listener(up);
    },
  };
}

const BASE = Date.now() + 60_000;

const event = (i: number): CampaignEvent => ({
  id: `evt_${String(i).padStart(6, '0')}`,
  type: 'campaign.updated' as CampaignEvent['type'],
  accountId: 'acc_1',
  campId: 'c',
  // After the stream opened (three events to a millisecond: pages meet within one).
  createdAt: new Date(BASE + Math.floor(i / 3)).toISOString(),
  data: {},
});

/** An outbox of `count` events, read as src/domain/events.ts eventsSince reads it (pages by created_at, then id). */
function outbox(count: number) {
  const all = Array.from({ length: count }, (_, i) => event(i));
  const reads: Array<{ since: string; afterId?: string }> = [];
  const read: ReadMissedEvents = async (_account, _camp, since, afterId) => {
    reads.push({ since, ...(afterId ? { afterId } : {}) });
    return all
      .filter((e) =>
        afterId === undefined ? e.createdAt >= since : e.createdAt > since || (e.createdAt === since && e.id > afterId),
      )
      .slice(0, MAX_MISSED_EVENTS);
  };
  return { all, reads, read };
}

async function collect(stream: AsyncIterable<CampaignEvent>, into: Set<string>) {
  for await (const e of stream) into.add(e.id);
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
};

describe('a stream after a Redis outage', () => {
  it('reads the outbox only once the subscription is confirmed, then every page of it', async () => {
    const redis = fakeRedis();
    const box = outbox(2 * MAX_MISSED_EVENTS + 345);
    const bus = createCampaignEventBus(redis.link, box.read, silent);
    const seen = new Set<string>();
    const stream = bus.subscribe('acc_1', 'c');
    const iterator = stream[Symbol.asyncIterator]();
    void collect({ [Symbol.asyncIterator]: () => iterator }, seen);
    await new Promise((resolve) => setTimeout(resolve, 10));
    redis.set(false);
    redis.set(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Not read before Redis confirmed the subscription.
    expect(box.reads).toEqual([]);
    redis.subscriber.confirm();
    await until(() => box.reads.length >= 3);
    expect(box.reads).toHaveLength(3);
    expect(box.reads[1]?.afterId).toBe(box.all[MAX_MISSED_EVENTS - 1]?.id);
    await until(() => seen.size === box.all.length);
    await iterator.return?.();
    // The instance that came back tells the others to read back what it could not publish.
    expect(redis.published.map((m) => JSON.parse(m) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ resync: expect.any(String) }),
    ]);
  });

  it("another instance's resync makes every open stream read back", async () => {
    const redis = fakeRedis();
    const box = outbox(10);
    const bus = createCampaignEventBus(redis.link, box.read, silent);
    let all = 0;
    bus.onInvalidation((keys) => (all += keys === 'all' ? 1 : 0));
    const iterator = bus.subscribe('acc_1', 'c')[Symbol.asyncIterator]();
    const first = iterator.next();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const since = new Date(Date.now() - 1000).toISOString();
    redis.subscriber.emit('message', EVENTS_CHANNEL, JSON.stringify({ origin: 'another', resync: since }));
    await until(() => box.reads.length === 1);
    expect(all).toBe(1);
    // A malformed resync is ignored.
    redis.subscriber.emit('message', EVENTS_CHANNEL, JSON.stringify({ origin: 'another', resync: 'not a time' }));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(box.reads).toHaveLength(1);
    void first;
    await iterator.return?.();
  });
});
