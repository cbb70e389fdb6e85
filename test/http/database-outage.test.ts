// While the database cannot be reached, both doors answer 503 with Retry-After, quickly, and the log says so once
// when it goes and once when it is back (docs/limits.md "When the database is down"). On PostgreSQL the database is taken
// away by a TCP proxy between the app and the server; on SQLite another connection holds the write lock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, expect, test } from 'vitest';
import { DIALECT, startApp, type TestApp } from '../helpers/app.js';
import { campaignInput, campaignModelData } from '../helpers/campaigns.js';
import { logCapture } from '../helpers/log-lines.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

let t: TestApp | undefined;
let proxy: TcpProxy | undefined;
let cleanup: (() => void) | undefined;
afterEach(async () => {
  await t?.close();
  await proxy?.close();
  cleanup?.();
  t = proxy = cleanup = undefined;
});

/** An app whose database the test can take away (`outage`) and give back (`recover`). */
async function appWithRemovableDatabase(stream: NodeJS.WritableStream) {
  const env = { LOG_LEVEL: 'info', DATABASE_TIMEOUT_SECONDS: '0.5', RATE_LIMIT_PER_MINUTE: '100000' };
  if (DIALECT === 'postgres') {
    proxy = await startTcpProxy('127.0.0.1', 5432);
    const port = proxy.port;
    const app = await startApp(env, [], {
      worker: { pollMs: 50 },
      logStream: stream as never,
      rewriteDatabaseUrl: (url) => {
        const parsed = new URL(url);
        parsed.port = String(port);
        return parsed.toString();
      },
    });
    const removable = proxy;
    return { app, outage: () => removable.stop(), recover: () => removable.start() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'outage-'));
  cleanup = () => rmSync(dir, { recursive: true, force: true });
  const file = join(dir, 'db.sqlite');
  const app = await startApp({ ...env, DATABASE_URL: `sqlite:${file}`, DATABASE_TIMEOUT_SECONDS: '0.05' }, [], {
    worker: { pollMs: 50 },
    logStream: stream as never,
  });
  const locker = new SQLite(file);
  return {
    app,
    outage: async () => {
      locker.exec('begin exclusive');
    },
    recover: async () => {
      locker.exec('rollback');
      locker.close();
    },
  };
}

test('both doors answer 503 with Retry-After during an outage under write load, log it once, and recover', async () => {
  const { stream, lines } = logCapture();
  const removable = await appWithRemovableDatabase(stream);
  t = removable.app;
  const user = await t.account();
  const update = (n: number) =>
    t!.rest('POST', '/update_campaign', {
      token: user.token,
      body: { campId: `c${n % 5}`, campaignModelData: campaignModelData({ title: `T${n}` }) },
    });
  const graphqlUpdate = (n: number) =>
    t!.gql(
      `mutation ($data: CampaignDataInput!) { upsertCampaign(campId: "g${n % 5}", data: $data) { campId } }`,
      { data: campaignInput({ title: `G${n}` }) },
      user.token,
    );
  expect((await update(0)).status).toBe(200);
  lines.length = 0;

  await removable.outage();
  const started = performance.now();
  const during = await Promise.all(
    Array.from({ length: 10 }, async (_, writer) => {
      const replies = [];
      for (let n = 0; n < 3; n++) {
        const began = performance.now();
        const reply = writer % 2 === 0 ? await update(writer * 10 + n) : await graphqlUpdate(writer * 10 + n);
        replies.push({ reply, ms: performance.now() - began });
      }
      return replies;
    }),
  );
  const elapsed = performance.now() - started;
  for (const { reply, ms } of during.flat()) {
    expect(reply.status, reply.text).toBe(503);
    expect(reply.headers.get('retry-after')).toBe('5');
    // No request waits much longer than DATABASE_TIMEOUT_SECONDS.
    expect(ms).toBeLessThan(DIALECT === 'postgres' ? 1500 : 3000);
    if (reply.body.detail)
      expect(reply.body).toEqual({ detail: 'The service is temporarily unavailable; try again shortly' });
    else expect(reply.body.errors[0].extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryAfter: 5 });
  }
  expect(elapsed).toBeLessThan(10_000);

  await removable.recover();
  let after = await update(99);
  for (let tries = 0; after.status !== 200 && tries < 20; tries++) after = await update(99);
  expect(after.status, after.text).toBe(200);
  const graphqlAfter = await graphqlUpdate(98);
  expect(graphqlAfter.body.errors).toBeUndefined();

  const notices = lines.filter((line) => line.msg !== 'request');
  expect(notices.map((line) => [line.level, line.msg])).toEqual([
    [40, 'database unreachable: answering 503 until it is back'],
    [30, 'database reachable again'],
  ]);
  expect(lines.filter((line) => line.level >= 50 || JSON.stringify(line).includes('stack'))).toEqual([]);
}, 30_000);
