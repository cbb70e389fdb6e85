// Benchmark: one page of 100 call logs of a campaign, filtered by status and a time window, out of 100 000 logs.
// Measures the whole REST and GraphQL paths in process (app.fetch) against a raw baseline in the same run: the same
// SQL as a prepared statement, rows serialised to JSON. On SQLite by default (a prepared better-sqlite3 statement);
// with DATABASE_URL=postgres://… on a fresh PostgreSQL database made (and dropped) there, against a named prepared
// `pg` query on one connection.
// Run: npm run bench:call-logs   (CALL_LOGS=100000 ITERATIONS=300 to change the sizes)
import { CALL_STATUSES } from '../src/domain/call-logs.schema.js';
import { benchDatabase, callLogRow, insertCallLogs, summary, timed } from './support.js';

const CALL_LOGS = Number(process.env.CALL_LOGS ?? 100_000);
const ITERATIONS = Number(process.env.ITERATIONS ?? 300);
const DAY = 24 * 3600 * 1000;

const campaigns = ['c1', 'c2', 'c3'];
const bench = await benchDatabase('call-logs', campaigns);
const { app, token, accountId } = bench;

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
const rawPage = await bench.raw(PAGE_SQL, pageParams);
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
  `\n${bench.postgres ? 'PostgreSQL' : 'SQLite'}, ${CALL_LOGS} call logs, page of 100 for one campaign, status + ` +
    `since/until filters, ${ITERATIONS} runs each`,
);
summary([
  [
    bench.postgres ? 'raw SQL (prepared pg query + JSON)' : 'raw SQL (prepared better-sqlite3 + JSON)',
    baseline,
    baseline,
  ],
  ['REST get_call_logs_for_campaign', rest, baseline],
  ['GraphQL callLogs connection', graphql, baseline],
]);

await bench.close();
