// When a subscription is live on the server, for tests that make a change and wait for its event. A stream hears only
// what is published after its listener is registered (src/events/pubsub.ts: on its first pull), so the change must
// come after that. A client is not told when that is (graphql-transport-ws does not acknowledge `subscribe`; urql's
// and Apollo's clients surface no keep-alive of an SSE stream), and a fixed pause is too short on a busy machine (issue
// 56). The app counts its live streams (gateway_live_streams at /metrics): one per subscription (WebSocket or SSE)
// and per @live query, and one per WebSocket connection (its token's lifetime).
import type { TestApp } from './app.js';

/** gateway_live_streams at /metrics: the live streams open on `t`. */
export async function openLiveStreams(t: TestApp): Promise<number> {
  const reply = await t.request('GET', '/metrics');
  const sample = /^gateway_live_streams (\d+)$/m.exec(String(reply.text));
  if (!sample) throw new Error(`no gateway_live_streams at /metrics (status ${reply.status})`);
  return Number(sample[1]);
}

/**
 * Resolves once `t` has exactly `count` live streams open, each listening: a subscription opened before this call
 * hears every event committed after it resolves.
 */
export async function liveStreamsOpen(t: TestApp, count: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let open = await openLiveStreams(t); open !== count; open = await openLiveStreams(t)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} live streams (${open} open)`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // A stream is counted once graphql-js has it, a few promise continuations before the door (graphql-ws, yoga's SSE
  // response) first pulls from it and so registers its listener; no I/O or timer lies between, so the app is in this
  // process: they have all run by the next turn of the event loop.
  await new Promise((resolve) => setImmediate(resolve));
}
