// Benchmark: filtered lists (docs/dashboards.md "Filters") over 1 000 000 calls of one account. Each case is the
// worst a filter can ask of its page: a number no index of the order begins with (its page reads the whole budget,
// 4 000 calls, and ends early), fifty campaigns at once (fifty walks merged), a post-call analysis result that no call
// holds (1 000 results searched), outcomes in the default order (one walk per status). Target: at most 100 ms a page
// (p95) on SQLite and on PostgreSQL, against a raw baseline in the same run: the first page of the account's calls
// straight from the table. On SQLite by default; with DATABASE_URL=postgres://… on a fresh database made there.
// Run: npm run bench:list-filters   (CALLS=1000000 ITERATIONS=20; BENCH_STRICT=1 exits 1 past the target)
import { sql } from 'kysely';
import { CALL_STATUSES } from '../src/domain/call-logs.schema.js';
import { analysisResultsOf } from '../src/db/analysis-results.js';
import { benchDatabase, callLogRow, insertCallLogs, summary, timed } from './support.js';

const CALLS = Number(process.env.CALLS ?? 1_000_000);
const ITERATIONS = Number(process.env.ITERATIONS ?? 20);
const TARGET_MS = 100;

const campaigns = Array.from({ length: 50 }, (_, i) => `c${i}`);
const bench = await benchDatabase('list-filters', campaigns);
const { app, token, accountId } = bench;

const seedStart = performance.now();
const start = Date.parse('2025-01-01T00:00:00.000Z');
const SEED_CHUNK = 100_000;
for (let first = 0; first < CALLS; first += SEED_CHUNK) {
  const rows = Array.from({ length: Math.min(SEED_CHUNK, CALLS - first) }, (_, k) => {
    const i = first + k;
    const status = CALL_STATUSES[i % CALL_STATUSES.length] ?? 'completed';
    const analysis = i % 3 === 0 ? { interested: i % 2 === 0, score: i % 10, note: 'called back' } : null;
    return {
      ...callLogRow({
        accountId,
        campId: campaigns[i % campaigns.length] ?? 'c0',
        callId: `CA${String(i).padStart(8, '0')}`,
        status,
        at: new Date(start + i * 30_000).toISOString(),
        durationSeconds: status === 'completed' ? i % 600 : null,
        cost: status === 'completed' ? (i % 100) / 100 : null,
      }),
      to_number: `+1415555${String(i % 5000).padStart(4, '0')}`,
      analysis: analysis && JSON.stringify(analysis),
      analysis_results: analysisResultsOf(analysis),
    };
  });
  await insertCallLogs(app, rows);
}
console.log(`seeded ${CALLS} calls in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
if (bench.postgres) await sql`analyze`.execute(app.database.db);

const rawFirst = await bench.raw(
  'select * from call_logs where account_id = ? order by started_at desc, call_id desc limit 101',
  [accountId],
);
const baseline = await timed(ITERATIONS, async () => JSON.stringify(await rawFirst()).length);

const query = `query($filter: CallLogFilter, $orderBy: CallLogOrder) {
  callLogs(filter: $filter, orderBy: $orderBy, first: 100) {
    edges { node { callId status durationSeconds cost toNumber startedAt } }
    pageInfo { hasNextPage endCursor }
  }
}`;
async function page(variables: Record<string, unknown>): Promise<number[]> {
  return timed(ITERATIONS, async () => {
    const reply = await app.fetch(
      new Request('http://bench/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      }),
    );
    const body = (await reply.json()) as { data?: { callLogs: { edges: unknown[] } } };
    if (!body.data) throw new Error(JSON.stringify(body));
    return body.data.callLogs.edges.length;
  });
}

const cases: Array<[string, number[]]> = [
  ['no filter (the prepared path)', await page({})],
  [
    'a number called, sorted by duration (reads the 4 000-row budget)',
    await page({
      filter: { toNumber: '+14155550007' },
      orderBy: { field: 'DURATION' },
    }),
  ],
  ['a number called, newest first (its own index)', await page({ filter: { toNumber: '+14155550007' } })],
  [
    '50 campaigns, failed ones (50 walks merged)',
    await page({
      filter: { campIds: campaigns, outcomes: ['FAILED'] },
    }),
  ],
  [
    'outcomes ANSWERED and BUSY, sorted by cost',
    await page({
      filter: { outcomes: ['ANSWERED', 'BUSY'] },
      orderBy: { field: 'COST' },
    }),
  ],
  [
    'an analysis result no call holds (1 000 results searched)',
    await page({
      filter: { analysis: { field: 'note', equals: 'never' } },
    }),
  ],
  ['an analysis result a third of calls hold', await page({ filter: { analysis: { field: 'score', equals: '4' } } })],
  [
    'a duration range, sorted by duration',
    await page({
      filter: { duration: { min: 100, max: 200 } },
      orderBy: { field: 'DURATION' },
    }),
  ],
];

console.log(
  `\n${bench.postgres ? 'PostgreSQL' : 'SQLite'}, ${CALLS} calls of one account (50 campaigns), a page of 100, ` +
    `${ITERATIONS} runs each; target ≤ ${TARGET_MS} ms`,
);
summary([
  ['raw SQL: the first 101 calls, newest first', baseline, baseline],
  ...cases.map(([name, times]): [string, number[], number[]] => [name, times, baseline]),
]);
const p95 = (times: number[]) => times[Math.min(times.length - 1, Math.floor(0.95 * times.length))] ?? 0;
const over = cases.filter(([, times]) => p95(times) > TARGET_MS);
for (const [name, times] of over)
  console.log(`OVER TARGET: ${name}: p95 ${p95(times).toFixed(1)} ms > ${TARGET_MS} ms`);
if (over.length === 0) console.log(`PASS: every case's p95 ≤ ${TARGET_MS} ms`);

await bench.close();
if (over.length > 0 && process.env.BENCH_STRICT === '1') process.exit(1);
