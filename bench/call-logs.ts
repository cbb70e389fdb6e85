// Benchmark: one page of 100 call logs of a campaign, filtered by status and a time window, out of 100 000 logs.
// Measures the whole REST and GraphQL paths in process (app.fetch) against a raw baseline in the same run: the same
// SQL as a prepared statement, rows serialised to JSON. On SQLite by default (a prepared better-sqlite3 statement);
// with DATABASE_URL=postgres://… on a fresh PostgreSQL database made (and dropped) there, against a named prepared
// `pg` query on one connection.
// Run: npm run bench:call-logs   (CALL_LOGS=100000 ITERATIONS=300 to change the sizes)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/core/config.js';
import { CALL_STATUSES } from '../src/domain/call-logs.schema.js';
import {
  administer,
  callLogRow,
  campaignData,
  insertCallLogs,
  signUpAndLogin,
  summary,
  timed,
  WORK_BUDGETS_OUT_OF_THE_WAY,
} from './support.js';

const CALL_LOGS = Number(process.env.CALL_LOGS ?? 100_000);
const ITERATIONS = Number(process.env.ITERATIONS ?? 300);
const DAY = 24 * 3600 * 1000;

const POSTGRES = process.env.DATABASE_URL?.startsWith('postgres') ? new URL(process.env.DATABASE_URL) : null;
const benchDatabase = `bench_call_logs_${process.pid}`;
const postgresUrl = POSTGRES ? Object.assign(new URL(POSTGRES), { pathname: `/${benchDatabase}` }).toString() : '';

const dir = mkdtempSync(join(tmpdir(), 'bench-call-logs-'));
const file = join(dir, 'bench.db');
await administer(POSTGRES, `create database ${benchDatabase}`);
const config = loadConfig({
  DATABASE_URL: POSTGRES ? postgresUrl : `sqlite:${file}`,
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0',
  SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'),
  LOG_LEVEL: 'silent',
  // Warm-up and measured runs of both doors with one token: the request rate limit out of the way.
  RATE_LIMIT_PER_MINUTE: '1000000',
  ...WORK_BUDGETS_OUT_OF_THE_WAY,
});
const app = await createApp(config);
const { token, accountId } = await signUpAndLogin(app);
const campaigns = ['c1', 'c2', 'c3'];
for (const campId of campaigns) {
  const reply = await app.fetch(
    new Request('http://bench/api/v3/update_campaign', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ campId, campaignModelData: campaignData() }),
    }),
  );
  if (reply.status !== 200) throw new Error(await reply.text());
}

// 100 000 logs over 90 days, 60% in c1, statuses spread over all eight: rows written directly, in chunks, in one
// transaction (applyCallStatus opens a transaction of its own per call, and raises an event per call).
const seedStart = performance.now();
const now = Date.now();
const rows = Array.from({ length: CALL_LOGS }, (_, i) => {
  const status = CALL_STATUSES[i % CALL_STATUSES.length] ?? 'completed';
  return callLogRow({
    accountId,
    campId: i % 5 < 3 ? 'c1' : (campaigns[i % 3] ?? 'c2'),
    callId: `CA${String(i).padStart(8, '0')}`,
    status,
    at: new Date(now - Math.floor((i / CALL_LOGS) * 90 * DAY)).toISOString(),
    durationSeconds: status === 'completed' ? i % 600 : null,
    cost: status === 'completed' ? (i % 100) / 100 : null,
  });
});
await insertCallLogs(app, rows);
console.log(`seeded ${CALL_LOGS} call logs in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

const since = new Date(now - 60 * DAY).toISOString();
const until = new Date(now - 5 * DAY).toISOString();

const PAGE_SQL = `select * from call_logs where account_id = ? and camp_id = ? and status = ? and started_at >= ?
  and started_at <= ? order by started_at desc, call_id desc limit 100 offset 0`;
const pageParams = [accountId, 'c1', 'completed', since, until];
let closeRaw: () => Promise<void>;
let rawPage: () => Promise<unknown[]>;
if (POSTGRES) {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  let n = 0;
  const text = PAGE_SQL.replace(/\?/g, () => `$${++n}`);
  rawPage = async () => (await client.query({ name: 'bench_page', text, values: pageParams })).rows;
  closeRaw = () => client.end();
} else {
  const raw = new SQLite(file, { readonly: true });
  const statement = raw.prepare(PAGE_SQL);
  rawPage = async () => statement.all(...pageParams);
  closeRaw = async () => void raw.close();
}
const baseline = await timed(ITERATIONS, async () => JSON.stringify(await rawPage()).length);

const restUrl = `http://bench/api/v3/get_call_logs_for_campaign?campId=c1&status=completed&since=${since}&until=${until}&limit=100`;
const rest = await timed(ITERATIONS, async () => {
  const reply = await app.fetch(new Request(restUrl, { headers: { authorization: `Bearer ${token}` } }));
  const body = (await reply.json()) as unknown[];
  if (body.length !== 100) throw new Error(`expected 100 logs, got ${body.length}`);
  return body.length;
});

const query = `query($since: DateTime, $until: DateTime) {
  callLogs(first: 100, campId: "c1", status: COMPLETED, since: $since, until: $until) {
    edges { node { callId campaignId direction fromNumber toNumber status startedAt endedAt durationSeconds cost
      recordingUrl transcript summary analysis createdAt updatedAt } }
  }
}`;
const graphql = await timed(ITERATIONS, async () => {
  const reply = await app.fetch(
    new Request('http://bench/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables: { since, until } }),
    }),
  );
  const body = (await reply.json()) as { data: { callLogs: { edges: unknown[] } } };
  if (body.data.callLogs.edges.length !== 100) throw new Error('expected 100 edges');
  return 100;
});

console.log(
  `\n${POSTGRES ? 'PostgreSQL' : 'SQLite'}, ${CALL_LOGS} call logs, page of 100 for one campaign, status + ` +
    `since/until filters, ${ITERATIONS} runs each`,
);
summary([
  [POSTGRES ? 'raw SQL (prepared pg query + JSON)' : 'raw SQL (prepared better-sqlite3 + JSON)', baseline, baseline],
  ['REST get_call_logs_for_campaign', rest, baseline],
  ['GraphQL callLogs connection', graphql, baseline],
]);

await closeRaw();
await app.close();
await administer(POSTGRES, `drop database if exists ${benchDatabase}`);
rmSync(dir, { recursive: true, force: true });
