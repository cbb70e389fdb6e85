// Benchmark: callStats, a year of daily buckets over 1 000 000 calls of one account (docs/dashboards.md). Target:
// at most 100 ms (p50 and p95) on SQLite and on PostgreSQL. Measures the GraphQL path in process (app.fetch) for the
// whole account in Europe/Paris, one campaign, three campaigns, and a half-hour zone (Asia/Kolkata: each day's edge
// hour is split with a read of the call logs), against a raw baseline in the same run: the same year grouped by UTC
// day straight from the call logs (what a dashboard costs without the counters the database keeps).
// On SQLite by default; with DATABASE_URL=postgres://… on a fresh database made (and dropped) there.
// Run: npm run bench:call-stats   (CALLS=1000000 ITERATIONS=20; BENCH_STRICT=1 exits 1 past the target)
import { sql } from 'kysely';
import { CALL_STATUSES } from '../src/domain/call-logs.schema.js';
import { benchDatabase, callLogRow, insertCallLogs, summary, timed } from './support.js';

const CALLS = Number(process.env.CALLS ?? 1_000_000);
const ITERATIONS = Number(process.env.ITERATIONS ?? 20);
const TARGET_MS = 100;
const DAY = 24 * 3600 * 1000;

const campaigns = Array.from({ length: 10 }, (_, i) => `c${i}`);
const bench = await benchDatabase('call-stats', campaigns);
const { app, token, accountId } = bench;

// A year of calls, spread over every hour, ten campaigns, statuses over all eight: written straight to the table in
// chunks (the database's triggers count each, as they count a callback's).
const seedStart = performance.now();
const yearStart = Date.parse('2025-01-01T00:00:00.000Z');
const SEED_CHUNK = 100_000;
for (let first = 0; first < CALLS; first += SEED_CHUNK) {
  const rows = Array.from({ length: Math.min(SEED_CHUNK, CALLS - first) }, (_, k) => {
    const i = first + k;
    const status = CALL_STATUSES[i % CALL_STATUSES.length] ?? 'completed';
    return callLogRow({
      accountId,
      campId: campaigns[i % campaigns.length] ?? 'c0',
      callId: `CA${String(i).padStart(8, '0')}`,
      status,
      at: new Date(yearStart + Math.floor((i / CALLS) * 365 * DAY)).toISOString(),
      durationSeconds: status === 'completed' ? i % 600 : null,
      cost: status === 'completed' ? (i % 100) / 100 : null,
    });
  });
  await insertCallLogs(app, rows);
}
console.log(`seeded ${CALLS} calls (and their counters) in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

const from = '2025-01-01T00:00:00Z';
const to = '2025-12-31T12:00:00Z';
const RAW_SQL = `select substr(started_at, 1, 10) as day, count(*) as calls, sum(duration_seconds) as seconds,
  sum(cost) as spent from call_logs where account_id = ? and started_at >= ? and started_at < ? group by 1 order by 1`;
// Statistics for PostgreSQL's planner after the bulk write (SQLite plans without them).
if (bench.postgres) await sql`analyze`.execute(app.database.db);
const rawYear = await bench.raw(RAW_SQL, [accountId, '2025-01-01T00', '2026-01-01T00']);
const baseline = await timed(Math.min(ITERATIONS, 5), async () => JSON.stringify(await rawYear()).length);

const query = `query($campIds: [String!], $from: DateTime!, $to: DateTime!, $timeZone: String!) {
  callStats(campIds: $campIds, from: $from, to: $to, bucket: DAY, timeZone: $timeZone) {
    buckets { localStart calls answered completed failed noAnswer busy canceled totalDurationSeconds spend averageCost }
    totals { calls spend }
  }
}`;
async function stats(variables: Record<string, unknown>, expectedCalls: number | null): Promise<number[]> {
  return timed(ITERATIONS, async () => {
    const reply = await app.fetch(
      new Request('http://bench/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables: { from, to, ...variables } }),
      }),
    );
    const body = (await reply.json()) as { data?: { callStats: { buckets: unknown[]; totals: { calls: number } } } };
    if (!body.data) throw new Error(JSON.stringify(body));
    if (expectedCalls !== null && body.data.callStats.totals.calls !== expectedCalls) {
      throw new Error(`expected ${expectedCalls} calls, counted ${body.data.callStats.totals.calls}`);
    }
    return body.data.callStats.buckets.length;
  });
}

const cases: Array<[string, number[]]> = [
  ['callStats, whole account, Europe/Paris', await stats({ timeZone: 'Europe/Paris' }, null)],
  ['callStats, whole account, UTC', await stats({ timeZone: 'UTC' }, CALLS)],
  ['callStats, one campaign, Europe/Paris', await stats({ campIds: ['c1'], timeZone: 'Europe/Paris' }, null)],
  [
    'callStats, three campaigns, Europe/Paris',
    await stats({ campIds: ['c1', 'c2', 'c3'], timeZone: 'Europe/Paris' }, null),
  ],
  ['callStats, whole account, Asia/Kolkata (+05:30)', await stats({ timeZone: 'Asia/Kolkata' }, null)],
];

console.log(
  `\n${bench.postgres ? 'PostgreSQL' : 'SQLite'}, ${CALLS} calls of one account over a year (10 campaigns), a year of ` +
    `daily buckets, ${ITERATIONS} runs each; target ≤ ${TARGET_MS} ms`,
);
summary([
  ['raw SQL: the year grouped by UTC day from the call logs', baseline, baseline],
  ...cases.map(([name, times]): [string, number[], number[]] => [name, times, baseline]),
]);
const p95 = (times: number[]) => times[Math.min(times.length - 1, Math.floor(0.95 * times.length))] ?? 0;
const over = cases.filter(([, times]) => p95(times) > TARGET_MS);
for (const [name, times] of over)
  console.log(`OVER TARGET: ${name}: p95 ${p95(times).toFixed(1)} ms > ${TARGET_MS} ms`);
if (over.length === 0) console.log(`PASS: every case's p95 ≤ ${TARGET_MS} ms`);

await bench.close();
if (over.length > 0 && process.env.BENCH_STRICT === '1') process.exit(1);
