// Many live streams of one campaign are normal use: the in-process fan-out holds them without Node's
// MaxListenersExceededWarning, delivers each event to every one of them, and keeps no listener once they end.
import { getEventListeners } from 'node:events';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import type { CampaignEvent } from '../../src/domain/events.js';
import { createCampaignEventBus, fanOutTarget } from '../../src/events/pubsub.js';

const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
afterEach(() => {
  process.off('warning', onWarning);
  warnings.length = 0;
});

it('200 streams of one campaign: no warning, each gets the event, no listener left after they end', async () => {
  process.on('warning', onWarning);
  const target = fanOutTarget();
  const bus = createCampaignEventBus(null, async () => [], pino({ level: 'silent' }), target);
  const streams = Array.from({ length: 200 }, () => bus.subscribe('acc_1', 'spring')[Symbol.asyncIterator]());
  // Each stream starts listening on its first pull; the event is published once every one is waiting.
  const firsts = streams.map((stream) => stream.next());
  await new Promise((resolve) => setImmediate(resolve));
  const type = `campaign-events:${JSON.stringify(['acc_1', 'spring'])}`;
  expect(getEventListeners(target, type)).toHaveLength(200);

  const event = { id: 'evt_1', accountId: 'acc_1', campId: 'spring' } as CampaignEvent;
  bus.publish(event);
  for (const first of await Promise.all(firsts)) expect(first).toEqual({ done: false, value: event });

  await Promise.all(streams.map((stream) => stream.return?.()));
  await new Promise((resolve) => setImmediate(resolve));
  expect(getEventListeners(target, type)).toHaveLength(0);
  // Warnings are emitted on the next tick.
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
});

it('the bus as the app makes it (its own fan-out target) holds 50 streams of one campaign without a warning', async () => {
  process.on('warning', onWarning);
  const bus = createCampaignEventBus(null, async () => [], pino({ level: 'silent' }));
  const streams = Array.from({ length: 50 }, () => bus.subscribe('acc_1', 'spring')[Symbol.asyncIterator]());
  const firsts = streams.map((stream) => stream.next());
  await new Promise((resolve) => setImmediate(resolve));
  bus.publish({ id: 'evt_1', accountId: 'acc_1', campId: 'spring' } as CampaignEvent);
  expect(await Promise.all(firsts)).toHaveLength(50);
  await Promise.all(streams.map((stream) => stream.return?.()));
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
});
