// Shared pieces of the benchmarks: an account, a campaign body, timing and the result table.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Insertable } from 'kysely';
import { type App, createApp } from '../src/app.js';
import { loadConfig } from '../src/core/config.js';
import { chunks } from '../src/db/chunks.js';
import type { Database } from '../src/db/types.js';
import { type CallStatus, isTerminal, STATUS_RANK } from '../src/domain/call-logs.schema.js';

/**
 * The Node options `npm start` runs the server with (package.json "start": `node <flags> dist/src/main.js`), so that
 * every benchmark runs our server exactly as it is run (the heap growing factor among them: docs/performance.md).
 */
export const START_NODE_FLAGS: string[] = (() => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const flags = /\bnode\s+(.*?)\s*dist\/src\/main\.js/.exec(pkg.scripts.start ?? '')?.[1];
  if (flags === undefined) throw new Error('package.json "start" does not run node … dist/src/main.js');
  return flags.split(/\s+/).filter(Boolean);
})();

/**
 * Preloaded into every wall-clock target (bench/campaigns.ts, issue 43): the first SIGUSR2 starts V8's GC profiler
 * (`v8.GCProfiler`), the second stops it and prints one line to the server's output — the bytes allocated in between
 * (the heap used before each collection less what the one before left, plus what the last one left less the heap
 * used now), the collections by kind and the time V8 says they took (µs, the main thread's share).
 */
export const GC_PROFILE_PRELOAD = `data:text/javascript,${encodeURIComponent(
  [
    "import v8 from 'node:v8';",
    'let profiler = null; let usedAtStart = 0;',
    "process.on('SIGUSR2', () => {",
    '  if (!profiler) { usedAtStart = v8.getHeapStatistics().used_heap_size; profiler = new v8.GCProfiler(); profiler.start(); return; }',
    '  const { statistics } = profiler.stop(); profiler = null;',
    '  let allocated = 0; let left = usedAtStart; let micros = 0; let majors = 0;',
    '  for (const gc of statistics) {',
    '    allocated += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - left);',
    '    left = gc.afterGC.heapStatistics.usedHeapSize; micros += gc.cost;',
    '    if (!/Scavenge|Minor/.test(gc.gcType)) majors += 1;',
    '  }',
    '  allocated += Math.max(0, v8.getHeapStatistics().used_heap_size - left);',
    '  process.stdout.write(`gc-profile allocated=${allocated} collections=${statistics.length} majors=${majors} micros=${micros}\\n`);',
    '});',
  ].join('\n'),
)}`;

/** The line GC_PROFILE_PRELOAD printed, read. */
export function gcProfileOf(
  output: string,
): { allocated: number; collections: number; majors: number; micros: number } | null {
  const found = /gc-profile allocated=(\d+) collections=(\d+) majors=(\d+) micros=(\d+(?:\.\d+)?)/.exec(output);
  if (!found) return null;
  return {
    allocated: Number(found[1]),
    collections: Number(found[2]),
    majors: Number(found[3]),
    micros: Number(found[4]),
  };
}

/** Accounts signed up by this process: two in the same millisecond get different e-mails. */
let signedUp = 0;

export async function signUpAndLogin(app: App): Promise<{ token: string; accountId: string }> {
  const email = `bench-${Date.now()}-${++signedUp}@example.com`;
  const password = 'bench password 123';
  const json = { 'content-type': 'application/json' };
  const signup = await app.fetch(
    new Request('http://bench/api/v3/signup', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email, password }),
    }),
  );
  const { id } = (await signup.json()) as { id: string };
  const login = await app.fetch(
    new Request('http://bench/api/v3/login', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ username: email, password }),
    }),
  );
  const { access_token } = (await login.json()) as { access_token: string };
  return { token: access_token, accountId: id };
}

export function campaignData(): Record<string, unknown> {
  return {
    title: 'Bench campaign',
    voice: 'en-US-aria',
    language: 'en-US',
    script: 'Hello',
    purpose: 'Benchmark',
    knowledgeBase: 'https://example.com/kb',
    calendar: 'cal',
    firstLine: 'Hi',
    tone: 'neutral',
    postCallAnalysisSchema: {},
    totalCallTime: 0,
    totalNumCall: 0,
    totalSpent: 0,
    averageCallCost: 0,
  };
}

/**
 * Runs `work` as many times to warm up (V8 optimises a path after some hundred calls, graphql-jit compiles a query
 * on its first: a server lives in that steady state, and every path gets the same warm-up), then `iterations` times;
 * returns each run's milliseconds, sorted.
 */
export async function timed(iterations: number, work: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < iterations; i++) await work();
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

export function summary(rows: Array<[name: string, times: number[], baseline: number[]]>): void {
  console.log('| path | p50 ms | p99 ms | mean ms | p50 vs raw |');
  console.log('|---|---|---|---|---|');
  for (const [name, times, baseline] of rows) {
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    const ratio = percentile(times, 0.5) / percentile(baseline, 0.5);
    console.log(
      `| ${name} | ${percentile(times, 0.5).toFixed(2)} | ${percentile(times, 0.99).toFixed(2)} | ${mean.toFixed(2)} | ${ratio.toFixed(1)}× |`,
    );
  }
}

/** Whether `taskset` is here to pin the server to core 0 and the load generator to core 1. */
export const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** On PostgreSQL (`server` given): runs one statement, such as creating or dropping the run's own database. */
export async function administer(server: URL | null, statement: string): Promise<void> {
  if (!server) return;
  const client = new pg.Client({ connectionString: server.toString() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A call log row as a benchmark writes it directly (bench/call-logs.ts, bench/isolation.ts): a call of one campaign. */
export function callLogRow(row: {
  accountId: string;
  campId: string;
  callId: string;
  status: CallStatus;
  at: string;
  durationSeconds: number | null;
  cost: number | null;
}): Insertable<Database['call_logs']> {
  return {
    account_id: row.accountId,
    call_id: row.callId,
    camp_id: row.campId,
    direction: 'outbound-api',
    from_number: '+14155550100',
    to_number: '+14155550199',
    status: row.status,
    status_rank: STATUS_RANK[row.status],
    started_at: row.at,
    ended_at: isTerminal(row.status) ? row.at : null,
    duration_seconds: row.durationSeconds,
    cost: row.cost,
    recording_url: null,
    transcript: null,
    summary: null,
    analysis: null,
    created_at: row.at,
    updated_at: row.at,
  };
}

/**
 * Writes call logs straight to the table, in chunks, in one transaction: applyCallStatus opens a transaction of its own
 * per call and raises an event per call, which a benchmark's hundred thousand rows need not.
 */
export async function insertCallLogs(app: App, rows: Array<Insertable<Database['call_logs']>>): Promise<void> {
  await app.database.db.transaction().execute(async (trx) => {
    for (const chunk of chunks(rows)) await trx.insertInto('call_logs').values(chunk).execute();
  });
}

/**
 * The handling-time budgets and the cap on requests at once (src/security/work-budget.ts) out of the way, as the rate
 * limits are in a load test: a benchmark drives one account (or address) with many connections on purpose.
 */
export const WORK_BUDGETS_OUT_OF_THE_WAY = {
  WORK_BUDGET_MS_PER_MINUTE: '100000000',
  ANONYMOUS_WORK_BUDGET_MS_PER_MINUTE: '100000000',
  REQUESTS_IN_FLIGHT_PER_ACCOUNT: '10000',
  REQUESTS_IN_FLIGHT_PER_ADDRESS: '10000',
} as const;

/** A bench's app on a database of its own, signed in with campaigns, and a raw baseline on that database. */
export interface BenchDatabase {
  app: App;
  token: string;
  accountId: string;
  /** On PostgreSQL (DATABASE_URL=postgres://…), or on a temporary SQLite file. */
  postgres: boolean;
  /** The same SQL as a prepared statement (better-sqlite3, or a named `pg` query on one connection); `?` placeholders. */
  raw(sqlText: string, parameters: unknown[]): Promise<() => Promise<unknown[]>>;
  /** Closes the app and the raw connection, and removes the database. */
  close(): Promise<void>;
}

/**
 * bench/call-logs.ts's and bench/call-stats.ts's start: a fresh database named after the bench (a temporary SQLite file,
 * or with DATABASE_URL=postgres://… a database made there and dropped at close), the app on it with the rate limits
 * and work budgets out of the way, an account, and `campIds` created through the REST door.
 */
export async function benchDatabase(name: string, campIds: readonly string[]): Promise<BenchDatabase> {
  const server = process.env.DATABASE_URL?.startsWith('postgres') ? new URL(process.env.DATABASE_URL) : null;
  const database = `bench_${name.replace(/-/g, '_')}_${process.pid}`;
  const postgresUrl = server ? Object.assign(new URL(server), { pathname: `/${database}` }).toString() : '';
  const dir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const file = join(dir, 'bench.db');
  await administer(server, `create database ${database}`);
  const app = await createApp(
    loadConfig({
      DATABASE_URL: server ? postgresUrl : `sqlite:${file}`,
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0',
      SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'),
      LOG_LEVEL: 'silent',
      // Warm-up and measured runs with one token: the request rate limit out of the way.
      RATE_LIMIT_PER_MINUTE: '1000000',
      ...WORK_BUDGETS_OUT_OF_THE_WAY,
    }),
  );
  const { token, accountId } = await signUpAndLogin(app);
  for (const campId of campIds) {
    const reply = await app.fetch(
      new Request('http://bench/api/v3/update_campaign', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ campId, campaignModelData: campaignData() }),
      }),
    );
    if (reply.status !== 200) throw new Error(await reply.text());
  }
  const closers: Array<() => Promise<void>> = [];
  let statements = 0;
  return {
    app,
    token,
    accountId,
    postgres: server !== null,
    async raw(sqlText, parameters) {
      if (server) {
        const client = new pg.Client({ connectionString: postgresUrl });
        await client.connect();
        closers.push(() => client.end());
        let n = 0;
        const text = sqlText.replace(/\?/g, () => `$${++n}`);
        const queryName = `bench_raw_${++statements}`;
        return async () => (await client.query({ name: queryName, text, values: parameters })).rows;
      }
      const raw = new SQLite(file, { readonly: true });
      closers.push(async () => void raw.close());
      const statement = raw.prepare(sqlText);
      return async () => statement.all(...parameters);
    },
    async close() {
      for (const close of closers) await close();
      await app.close();
      await administer(server, `drop database if exists ${database}`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
