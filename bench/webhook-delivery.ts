// `npm run bench:deliveries`: webhook fan-out and delivery on one instance (docs/webhooks.md "Fan-out"). Phase 1: one
// social delivery of MESSAGES messages to a campaign with WEBHOOKS webhooks whose receiver holds every request —
// how long the request takes, how long the fan-out takes to be written, and the longest the event loop was held
// meanwhile. Phase 2: DELIVERIES deliveries (1 000 messages × DELIVERIES/1000 webhooks) to a local receiver that
// answers 200 at once — deliveries per second. SQLite in a temporary file, or DATABASE_URL=postgres://… (a database
// of its own is made and dropped). The receiver runs in this process too, so the rate is a floor.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/core/config.js';
import { countFanOuts } from '../src/domain/fan-outs.js';
import { administer, campaignData, WORK_BUDGETS_OUT_OF_THE_WAY } from './support.js';

const MESSAGES = Number(process.env.MESSAGES ?? 1000);
const WEBHOOKS = Number(process.env.WEBHOOKS ?? 50);
const DELIVERIES = Number(process.env.DELIVERIES ?? 5000);
/** Phase 2 fails (exit 1) below this many deliveries a second when BENCH_STRICT is set. */
const MIN_PER_SECOND = Number(process.env.MIN_PER_SECOND ?? 200);

const POSTGRES = process.env.DATABASE_URL?.startsWith('postgres') ? new URL(process.env.DATABASE_URL) : null;
const benchDatabase = `bench_deliveries_${process.pid}`;
const postgresUrl = POSTGRES ? Object.assign(new URL(POSTGRES), { pathname: `/${benchDatabase}` }).toString() : '';
const dir = mkdtempSync(join(tmpdir(), 'bench-deliveries-'));
await administer(POSTGRES, `create database ${benchDatabase}`);

/** A receiver: `hold` keeps every request open, else each is answered 200 at once; counts what arrived. */
async function receiver(hold: boolean) {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      if (!hold) res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const config = loadConfig({
  DATABASE_URL: POSTGRES ? postgresUrl : `sqlite:${join(dir, 'bench.db')}`,
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0',
  SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'),
  LOG_LEVEL: 'silent',
  ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
  RATE_LIMIT_PER_MINUTE: '1000000',
  ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000000',
  ...WORK_BUDGETS_OUT_OF_THE_WAY,
});
const app = await createApp(config, { worker: { pollMs: 50 } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(
  method: string,
  path: string,
  token: string | null | undefined,
  body: unknown,
): Promise<Record<string, string>> {
  const reply = await app.fetch(
    new Request(`http://bench${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
  const text = await reply.text();
  if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${text}`);
  return JSON.parse(text) as Record<string, string>;
}

/** A new account with a social integration, campaign `campId` and `webhooks` webhooks to `url`; its API key. */
async function tenant(campId: string, webhooks: number, url: string): Promise<string> {
  const email = `bench-${campId}-${Date.now()}@example.com`;
  const password = 'bench password 123';
  const { apiKey } = await call('POST', '/api/v3/signup', null, { email, password });
  const { access_token: token } = await call('POST', '/api/v3/login', null, { username: email, password });
  await call('POST', '/api/v3/update_campaign', token, { campId, campaignModelData: campaignData() });
  await call('POST', '/api/v3/add_social_info', token, {
    pageId: 'page-1',
    accessToken: 'EAAB-access-token-0123',
    verifyToken: 'verify-token-0123',
  });
  for (let i = 0; i < webhooks; i++) {
    const { webhookId } = await call('POST', '/api/v3/create_webhook', token, { url: `${url}?n=${i}` });
    await call('POST', `/api/v3/add_webhook_campaingn?webhookId=${webhookId}&campaignId=${campId}`, token, {});
  }
  return apiKey as string;
}

const socialBatch = (prefix: string) =>
  JSON.stringify({
    object: 'page',
    entry: [
      {
        messaging: Array.from({ length: MESSAGES }, (_, i) => ({
          sender: { id: `customer-${i % 7}` },
          timestamp: 1700000000000 + i * 1000,
          message: { mid: `${prefix}.${i}`, text: `text of message ${i}` },
        })),
      },
    ],
  });

const { db } = app.database;
let failed = false;
try {
  // Phase 1: the fan-out.
  const holding = await receiver(true);
  const apiKey = await tenant('busy', WEBHOOKS, holding.url);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  await call('POST', `/api/v3/social_webhook/${apiKey}/busy`, null, socialBatch('m'));
  const answered = performance.now() - started;
  while ((await countFanOuts(db)) > 0) await sleep(20);
  const expanded = performance.now() - started;
  delay.disable();
  console.log(
    `fan-out ${MESSAGES} messages × ${WEBHOOKS} webhooks: answered in ${answered.toFixed(0)} ms, rows written in ` +
      `${(expanded / 1000).toFixed(1)} s; event loop delay max ${(delay.max / 1e6).toFixed(0)} ms, p99 ` +
      `${(delay.percentile(99) / 1e6).toFixed(0)} ms`,
  );
  await db.deleteFrom('webhook_deliveries').execute();
  await holding.close();

  // Phase 2: deliveries per second.
  const answering = await receiver(false);
  const perBatch = Math.max(1, Math.round(DELIVERIES / MESSAGES));
  const key = await tenant('fast', perBatch, answering.url);
  const total = perBatch * MESSAGES;
  const start = performance.now();
  await call('POST', `/api/v3/social_webhook/${key}/fast`, null, socialBatch('f'));
  while (answering.received() < total) await sleep(20);
  const seconds = (performance.now() - start) / 1000;
  const rate = total / seconds;
  console.log(`delivered ${total} in ${seconds.toFixed(1)} s: ${rate.toFixed(0)} deliveries/s (one instance)`);
  if (process.env.BENCH_STRICT && rate < MIN_PER_SECOND) {
    console.error(`below ${MIN_PER_SECOND} deliveries/s`);
    failed = true;
  }
  await answering.close();
} finally {
  await app.close();
  await administer(POSTGRES, `drop database if exists ${benchDatabase}`);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
