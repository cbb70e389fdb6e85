// A live query's slot is given back when its client goes (issue 41): within a second, over SSE as over WebSocket,
// through a real listener (the prepared lane on: its requests reach yoga with a signal tied to the socket). A client
// that reconnects in a loop never locks its own account out.
import { afterEach, expect, it } from 'vitest';
import { createHttpServer, type HttpServer, listen } from '../../src/http/server.js';
import { startApp, type TestApp } from '../helpers/app.js';

let running: Array<{ t: TestApp; http: HttpServer }> = [];
afterEach(async () => {
  for (const { t, http } of running) {
    http.server.closeAllConnections();
    await new Promise<void>((resolve) => http.server.close(() => resolve()));
    await t.close();
  }
  running = [];
});

const LIVE = 'query Live @live { viewer { email } }';

/** Opens a live query over SSE; resolves with its first event's data, and how to drop the connection. */
async function open(base: string, token: string) {
  const controller = new AbortController();
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: LIVE }),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  let text = '';
  while (!/^data: .*\n/m.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  const payload = JSON.parse(/^data: (.*)$/m.exec(text)![1]!) as {
    data?: unknown;
    errors?: Array<{ extensions: { code: string } }>;
  };
  return { payload, drop: () => controller.abort() };
}

it('SSE: a dropped stream gives its slot back within a second, cycle after cycle', async () => {
  const t = await startApp({ LIVE_QUERIES_PER_ACCOUNT: '2', GRAPHQL_PREPARED_LANE: 'on' }, [], { worker: false });
  const http = createHttpServer(t.app);
  running.push({ t, http });
  const { port } = await listen(http.server, 0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  const { token } = await t.account();
  const held = await open(base, token);
  expect(held.payload.data).toBeTruthy();
  for (let cycle = 0; cycle < 15; cycle++) {
    const stream = await open(base, token);
    expect(stream.payload.data, `cycle ${cycle}`).toBeTruthy();
    // Both slots are taken now: a third is refused.
    const third = await open(base, token);
    expect(third.payload.errors?.[0]?.extensions.code).toBe('RATE_LIMITED');
    third.drop();
    stream.drop();
    // The slot comes back within a second (polled: the next open succeeds).
    const dropped = Date.now();
    for (;;) {
      const again = await open(base, token);
      if (again.payload.data) {
        again.drop();
        break;
      }
      expect(Date.now() - dropped, `cycle ${cycle}: the slot was not given back`).toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // That probe's own slot comes back the same way before the next cycle.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  held.drop();
});
