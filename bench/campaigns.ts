// `npm run bench`: 50 keep-alive connections (autocannon, closed loop, loopback) against three servers over the same
// SQLite file, measured in one run: the raw baseline (bench/raw-server.ts), our REST `get_campaigns`, and our GraphQL
// query of the same 50 campaigns with all their scalar fields. Each server is a fresh process pinned to core 0
// (taskset, where it exists), this load generator on core 1. Warm-up and measurement run on the same connections:
// one autocannon run, and only responses after the warm-up count. Reported per target: requests/s, p50, p99, CPU µs
// per request (the server's user + system time from /proc over the measured part), peak RSS (VmHWM) and bytes per
// response, with the ratio to the raw baseline's requests/s. BENCH_STRICT=1 fails the run on any non-2xx (smoke).
// With DATABASE_URL=postgres://… it runs on a fresh PostgreSQL database made (and dropped) there, against a raw
// baseline of prepared `pg` statements, and also reports PostgreSQL's own CPU µs per request.
// BENCH_COUNT=1 counts instead of timing (bench/callgrind.ts): instructions and cache misses per request under
// callgrind, for the raw baseline, the floor, mercurius and our two doors (bench/archive.md, "Counted (callgrind)").
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import { createApp } from '../src/app.js';
import { ABLATABLE_STEPS } from '../src/core/ablation.js';
import { loadConfig } from '../src/core/config.js';
import { type CountedTarget, countTargets } from './callgrind.js';
import {
  administer,
  campaignData,
  GC_PROFILE_PRELOAD,
  gcProfileOf,
  hasTaskset,
  signUpAndLogin,
  START_NODE_FLAGS,
  WORK_BUDGETS_OUT_OF_THE_WAY,
} from './support.js';

const ROOT = join(import.meta.dirname, '..');
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const DURATION = Number(process.env.DURATION ?? 10);
const WARMUP = Number(process.env.WARMUP ?? 6);
const CAMPAIGNS = 50;

const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
const POSTGRES = process.env.DATABASE_URL?.startsWith('postgres') ? new URL(process.env.DATABASE_URL) : null;
const benchDatabase = `bench_${Date.now()}`;
const databaseUrl = (() => {
  if (!POSTGRES) return `sqlite:${join(dir, 'bench.db')}`;
  const url = new URL(POSTGRES);
  url.pathname = `/${benchDatabase}`;
  return url.toString();
})();
const env = {
  DATABASE_URL: databaseUrl,
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
  PASSWORD_HASH_COST: '10',
  // The per-account limit (1200/min by default) would stop a load test at once.
  RATE_LIMIT_PER_MINUTE: '1000000',
  ...WORK_BUDGETS_OUT_OF_THE_WAY,
  // A counted run (BENCH_COUNT=1) outlasts the default hour of the token signed at seeding.
  TOKEN_TTL_SECONDS: '86400',
};

const ALL_FIELDS = `id campId title voiceId language script purpose knowledgeBase calendar firstLine flowName systemPrompt
  tone maxCallTimeout inactiveCallTimeout postCallAnalysis postCallAnalysisSchema timeZone isFreeflow public sampleSid
  description status creationDate updatedAt`;
const GRAPHQL_QUERY = `query BenchCampaigns { campaigns(first: ${CAMPAIGNS}) { edges { node { ${ALL_FIELDS} } } } }`;
/** PostGraphile's names for every column of the campaigns table (its optional target, PostgreSQL only). */
const POSTGRAPHILE_FIELDS = `nodeId accountId campId title voice language script purpose knowledgeBase calendar firstLine
  flowName systemPrompt tone maxCallTimeout inactiveCallTimeout postCallAnalysis postCallAnalysisSchema timeZone
  isFreeflow public sampleSid description status createdAt updatedAt`;
const POSTGRAPHILE_QUERY = `query BenchCampaigns($account: String!) {
  allCampaigns(first: ${CAMPAIGNS}, condition: { accountId: $account }, orderBy: [CREATED_AT_DESC, CAMP_ID_DESC]) {
    nodes { ${POSTGRAPHILE_FIELDS} }
  }
}`;
/** PostGraphile 5's (Amber preset): the same, its node id named `id`. */
const POSTGRAPHILE5_QUERY = POSTGRAPHILE_QUERY.replace('nodeId ', 'id ');
const GRAPHQL_BODY = JSON.stringify({ query: GRAPHQL_QUERY });
/** The same operation as an automatic persisted query: its hash alone, by GET (docs/graphql-api.md "Persisted operations"). */
const APQ_EXTENSIONS = {
  persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(GRAPHQL_QUERY).digest('hex') },
};
const APQ_URL = `/graphql?${new URLSearchParams({ extensions: JSON.stringify(APQ_EXTENSIONS) })}`;

async function seed(): Promise<{ token: string; accountId: string }> {
  const app = await createApp(loadConfig({ ...env, LOG_LEVEL: 'silent' }), { worker: false });
  try {
    const account = await signUpAndLogin(app);
    for (let i = 0; i < CAMPAIGNS; i++) {
      const response = await app.fetch(
        new Request('http://bench/api/v3/update_campaign', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${account.token}` },
          body: JSON.stringify({ campId: `bench-${i}`, campaignModelData: { ...campaignData(), title: `Bench ${i}` } }),
        }),
      );
      if (response.status !== 200) throw new Error(`seeding failed: ${await response.text()}`);
    }
    return account;
  } finally {
    await app.close();
  }
}

/**
 * BENCH_AB's database: a copy of the seeded one that the other build accepts. A build refuses to start on a database
 * holding a migration it does not have ("corrupted migrations"), so the copy forgets the migrations the other build
 * lacks (their tables and columns stay, unused by it); the rows, and so the token, are the same.
 */
async function otherBuildDatabase(script: string): Promise<string> {
  const index = resolve(ROOT, dirname(script), '../migrations/index.js');
  const { migrations } = (await import(pathToFileURL(index).href)) as { migrations: Record<string, unknown> };
  const known = Object.keys(migrations);
  const forget = `delete from kysely_migration where name not in (${known.map((name) => `'${name.replace(/'/g, "''")}'`).join(', ')})`;
  if (POSTGRES) {
    const url = new URL(databaseUrl);
    url.pathname = `/${benchDatabase}_ab`;
    await administer(POSTGRES, `drop database if exists ${benchDatabase}_ab with (force)`);
    await administer(POSTGRES, `create database ${benchDatabase}_ab template ${benchDatabase}`);
    await administer(url, forget);
    return url.toString();
  }
  const copy = join(dir, 'bench-ab.db');
  const source = new SQLite(join(dir, 'bench.db'));
  try {
    source.prepare('vacuum into ?').run(copy);
  } finally {
    source.close();
  }
  const target = new SQLite(copy);
  try {
    target.exec(forget);
  } finally {
    target.close();
  }
  return `sqlite:${copy}`;
}

/** The node command line of a server script: ours (and the ablation's, and another build's) as `npm start` runs it,
 * the baselines with Node's defaults. */
function nodeCommand(script: string, extraEnv: Record<string, string>): string[] {
  const isOurs = !/bench\/(raw|floor|postgraphile|mercurius|supergraph)/.test(script);
  return [
    process.execPath,
    ...(isOurs ? START_NODE_FLAGS : []),
    ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
    ...(extraEnv.TARGET_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
    // Timed runs: SIGUSR2 starts and stops V8's GC profiler (allocation and GC per request; bench/support.ts).
    ...(process.env.BENCH_COUNT === '1' ? [] : ['--import', GC_PROFILE_PRELOAD]),
    ...(script.endsWith('.ts') ? ['--import', 'tsx'] : []),
    join(ROOT, script),
  ];
}

/** Starts a server script pinned to core 0; its output goes to a file (read for the "listening on" line). */
async function startServer(
  script: string,
  extraEnv: Record<string, string>,
): Promise<{ child: ChildProcess; base: string; log: string }> {
  const log = join(dir, `${script.replace(/\W/g, '_')}-${Date.now()}.log`);
  const node = nodeCommand(script, extraEnv);
  const [command, ...args] = hasTaskset ? ['taskset', '-c', '0', ...node] : node;
  const child = spawn(command ?? process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: '0', ...extraEnv },
    stdio: ['ignore', openSync(log, 'w'), 'inherit'],
  });
  for (let i = 0; i < 400; i++) {
    const found = /listening on (http:\/\/[^\s"]+)/.exec(readFileSync(log, 'utf8'));
    if (found?.[1]) return { child, base: found[1], log };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${script} did not start`);
}

/** A process's CPU time (user + system) in µs, from /proc; 0 once it is gone. */
function cpuMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 1e6) / 100;
  } catch {
    return 0;
  }
}

/** A memory figure of /proc/<pid>/status in MB: `VmHWM` (peak RSS) or `VmRSS` (RSS now). */
function memoryMb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
}

/** The process's CPU time in µs and its peak RSS in MB, from /proc. */
function processStats(pid: number): { cpuMicros: number; peakMb: number } {
  return { cpuMicros: cpuMicros(pid), peakMb: memoryMb(pid, 'VmHWM') };
}

/** CPU µs of every PostgreSQL server process, by pid (the backends serving our connections among them). */
function postgresCpu(): Map<number, number> {
  if (!POSTGRES) return new Map();
  let pids: number[] = [];
  try {
    pids = execFileSync('pgrep', ['-x', 'postgres'], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return new Map();
  }
  return new Map(pids.map((pid) => [pid, cpuMicros(pid)]));
}

const postgresCpuSince = (before: Map<number, number>) =>
  [...postgresCpu()].reduce((sum, [pid, now]) => sum + now - (before.get(pid) ?? 0), 0);

interface Result {
  name: string;
  postgresMicros: number;
  rps: number;
  p50: number;
  p99: number;
  cpuMicros: number;
  peakMb: number;
  /** The server's RSS in MB after it started, before the load (its first request, an APQ priming, aside). */
  startMb: number;
  bytes: number;
  failures: number;
  /** KB the server's JS heap allocated per request, and µs of GC per request (V8's GC profiler). */
  allocatedKb: number;
  gcMicros: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

/** One autocannon run of WARMUP + DURATION seconds on the same connections; only the part after WARMUP counts. */
/** The GC profile line the server printed after its second SIGUSR2 (GC_PROFILE_PRELOAD), awaited up to 5 s. */
async function gcProfile(pid: number, log: string): Promise<ReturnType<typeof gcProfileOf>> {
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 100; i++) {
    const found = gcProfileOf(readFileSync(log, 'utf8'));
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

async function measure(name: string, pid: number, log: string, options: autocannon.Options): Promise<Result> {
  const startMb = memoryMb(pid, 'VmRSS');
  const latencies: number[] = [];
  let bytes = 0;
  let failures = 0;
  let measuring = false;
  let cpuAtStart = 0;
  let postgresAtStart = new Map<number, number>();
  const instance = autocannon({
    ...options,
    connections: CONNECTIONS,
    duration: WARMUP + DURATION,
  }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
  const started = setTimeout(() => {
    measuring = true;
    cpuAtStart = processStats(pid).cpuMicros;
    postgresAtStart = postgresCpu();
    process.kill(pid, 'SIGUSR2');
  }, WARMUP * 1000);
  instance.on('response', (_client: unknown, status: number, responseBytes: number, responseTime: number) => {
    if (!measuring) return;
    latencies.push(responseTime);
    bytes += responseBytes;
    if (status < 200 || status >= 300) failures += 1;
  });
  const result = await instance;
  clearTimeout(started);
  const stats = processStats(pid);
  const postgres = postgresCpuSince(postgresAtStart);
  const gc = await gcProfile(pid, log);
  failures += result.errors + result.timeouts;
  latencies.sort((a, b) => a - b);
  return {
    name,
    rps: latencies.length / DURATION,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    cpuMicros: latencies.length > 0 ? (stats.cpuMicros - cpuAtStart) / latencies.length : 0,
    postgresMicros: latencies.length > 0 ? postgres / latencies.length : 0,
    peakMb: stats.peakMb,
    startMb,
    bytes: latencies.length > 0 ? bytes / latencies.length : 0,
    failures,
    // The responses counted after the warm-up; the profile covers them and the few in flight at either end.
    allocatedKb: gc && latencies.length > 0 ? gc.allocated / 1024 / latencies.length : 0,
    gcMicros: gc && latencies.length > 0 ? gc.micros / latencies.length : 0,
  };
}

/** Each feature's bench target: its name and the settings that turn it off (or on). */
const FEATURE_VARIANTS = (otlpSink: string): Array<[string, Record<string, string>]> => [
  ['the same, persisted operations off', { PERSISTED_OPERATIONS: 'off' }],
  ['the same, @defer/@stream off', { INCREMENTAL_DELIVERY: 'false' }],
  ['the same, metrics off', { METRICS: 'false' }],
  [
    'the same, response cache on (repeated query)',
    { RESPONSE_CACHE: 'true', ...(POSTGRES ? { REDIS_URL: 'redis://127.0.0.1:6379' } : {}) },
  ],
  ['the same, traces on (OTLP to a local sink)', { OTEL_EXPORTER_OTLP_ENDPOINT: otlpSink }],
];

/** An OTLP endpoint that takes every export and answers 200, so that traces cost what they cost to make and send. */
async function startSink(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

type TargetSpec = Parameters<typeof target>;

const ROUNDS = Number(process.env.ROUNDS ?? 1);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Each target's figures as the median over the rounds (non-2xx summed, peak RSS the highest). */
function medianOf(rounds: Result[][]): Result[] {
  return (rounds[0] ?? []).map((first, index) => {
    const all = rounds.map((round) => round[index] ?? first);
    const mid = (key: 'rps' | 'p50' | 'p99' | 'cpuMicros' | 'postgresMicros' | 'bytes' | 'allocatedKb' | 'gcMicros') =>
      median(all.map((result) => result[key]));
    return {
      name: first.name,
      rps: mid('rps'),
      p50: mid('p50'),
      p99: mid('p99'),
      cpuMicros: mid('cpuMicros'),
      postgresMicros: mid('postgresMicros'),
      bytes: mid('bytes'),
      allocatedKb: mid('allocatedKb'),
      gcMicros: mid('gcMicros'),
      peakMb: Math.max(...all.map((result) => result.peakMb)),
      startMb: median(all.map((result) => result.startMb)),
      failures: all.reduce((sum, result) => sum + result.failures, 0),
    };
  });
}

/** `BENCH_ONLY=<regex>`: only the targets whose name matches (the raw baseline always runs). */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;

const MERCURIUS = 'mercurius: fastify + mercurius + graphql-jit over one prepared statement';
const MERCURIUS_SAME_WORK = 'mercurius doing our per-request work: a JWT verified, a rate limit, a pino access line';
const SUPERGRAPH = 'supergraph: Hive Gateway in front of our subgraph, the same document (the gateway process)';

/**
 * `BENCH_COUNT=1` (bench/callgrind.ts): the targets counted under callgrind — the raw baseline, the floor, mercurius,
 * the supergraph gateway (its process only: our subgraph runs beside it, uncounted),
 * our REST and GraphQL requests (and another build's, or this one with other flags) — as `BENCH_ONLY` leaves them.
 */
function counted(specs: TargetSpec[]): CountedTarget[] {
  const COUNTED = /^(raw node:http|floor: yoga|mercurius:|REST GET|GraphQL campaigns|supergraph:)/;
  return specs
    .filter(([name]) => COUNTED.test(name) && (!ONLY || name.startsWith('raw node:http') || ONLY.test(name)))
    .map(([name, script, extraEnv, options]) => ({
      name,
      node: nodeCommand(script, extraEnv),
      env: extraEnv,
      request: {
        path: String(options.url),
        method: options.method === 'POST' ? 'POST' : 'GET',
        headers: (options.headers ?? {}) as Record<string, string>,
        ...(typeof options.body === 'string' ? { body: options.body } : {}),
      },
      entries: CAMPAIGNS,
    }));
}

async function target(
  name: string,
  script: string,
  extraEnv: Record<string, string>,
  options: autocannon.Options,
  /** A request sent once before measuring (an APQ registration). */
  prime?: { path: string; init: RequestInit },
): Promise<Result | null> {
  if (ONLY && !name.startsWith('raw node:http') && !ONLY.test(name)) return null;
  const { child, base, log } = await startServer(script, extraEnv);
  try {
    if (prime) {
      const primed = await fetch(`${base}${prime.path}`, prime.init);
      if (!primed.ok) throw new Error(`${name}: priming answered ${primed.status}`);
    }
    return await measure(name, child.pid ?? 0, log, { ...options, url: `${base}${String(options.url)}` });
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function main(): Promise<void> {
  await administer(POSTGRES, `create database ${benchDatabase}`);
  if (hasTaskset) execFileSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });
  // Our server runs as `npm start` runs it: compiled JavaScript (dist/), not through a TypeScript loader.
  // The baselines are compiled alongside (tsconfig.bench.json), so that no target pays for a loader.
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.bench.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  const { token, accountId } = await seed();
  const raw = POSTGRES ? 'dist/bench/raw-pg-server.js' : 'dist/bench/raw-server.js';
  const rawEnv = { BENCH_DB: POSTGRES ? databaseUrl : join(dir, 'bench.db'), BENCH_ACCOUNT: accountId };
  const auth = { authorization: `Bearer ${token}` };
  const ours = { LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' };
  const graphqlPost: autocannon.Options = {
    url: '/graphql',
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: GRAPHQL_BODY,
  };
  const sink = await startSink();
  /** Our REST and GraphQL requests against a server (`variant` names one other than this build as npm start runs it). */
  const restAndGraphQL = (variant: string | null, script: string, env: Record<string, string>): TargetSpec[] => [
    [
      `REST GET /api/v3/get_campaigns${variant ? `, ${variant}` : ''}`,
      script,
      env,
      { url: '/api/v3/get_campaigns', headers: auth },
    ],
    [`GraphQL campaigns(first: ${CAMPAIGNS}), ${variant ?? 'all fields'}`, script, env, graphqlPost],
  ];
  const floorPost = { ...graphqlPost, headers: { 'content-type': 'application/json' } };
  const floor = 'dist/bench/floor-server.js';
  const specs: TargetSpec[] = [
    [POSTGRES ? 'raw node:http + pg' : 'raw node:http + better-sqlite3', raw, rawEnv, { url: '/campaigns' }],
    ['raw, the 5 columns of a list entry', raw, rawEnv, { url: '/campaign-list' }],
    // PostGraphile on the same rows (PostgreSQL only, when BENCH_POSTGRAPHILE names a folder where it is installed:
    // bench/postgraphile-server.ts): every column of the account's 50 campaigns, newest first.
    ...(POSTGRES && process.env.BENCH_POSTGRAPHILE
      ? ([
          [
            `PostGraphile 4: allCampaigns(first: ${CAMPAIGNS}), every column`,
            'dist/bench/postgraphile-server.js',
            { ...rawEnv, BENCH_POSTGRAPHILE: process.env.BENCH_POSTGRAPHILE },
            {
              ...floorPost,
              body: JSON.stringify({ query: POSTGRAPHILE_QUERY, variables: { account: accountId } }),
            },
          ],
        ] as TargetSpec[])
      : []),
    // PostGraphile 5 (Grafast), likewise, when BENCH_POSTGRAPHILE5 names a folder where it is installed
    // (bench/postgraphile5-server.ts; issue 43).
    ...(POSTGRES && process.env.BENCH_POSTGRAPHILE5
      ? ([
          [
            `PostGraphile 5: allCampaigns(first: ${CAMPAIGNS}), every column`,
            'dist/bench/postgraphile5-server.js',
            { ...rawEnv, BENCH_POSTGRAPHILE5: process.env.BENCH_POSTGRAPHILE5 },
            {
              ...floorPost,
              body: JSON.stringify({ query: POSTGRAPHILE5_QUERY, variables: { account: accountId } }),
            },
          ],
        ] as TargetSpec[])
      : []),
    // The floor (issue 21): the stack alone, yoga + Pothos + graphql-jit, on the same document and rows.
    ...(POSTGRES
      ? []
      : ([
          ['floor: yoga + Pothos + graphql-jit over one prepared statement', floor, rawEnv, floorPost],
          [
            'floor: the same, the query built by Kysely on every call',
            floor,
            { ...rawEnv, FLOOR: 'kysely' },
            floorPost,
          ],
          // What a speed-minded user would pick instead (issue 34): fastify + mercurius with graphql-jit, the floor's
          // document over the same rows (bench/mercurius-server.ts).
          [MERCURIUS, 'dist/bench/mercurius-server.js', rawEnv, floorPost],
          // For information (issue 55): mercurius doing the per-request work ours does (a JWT verified, a rate limit,
          // a pino access line), with our token.
          [
            MERCURIUS_SAME_WORK,
            'dist/bench/mercurius-server.js',
            { ...rawEnv, MERCURIUS_SAME_WORK: '1', JWT_SECRET: env.JWT_SECRET },
            { ...floorPost, headers: { ...floorPost.headers, ...auth } },
          ],
        ] as TargetSpec[])),
    ...restAndGraphQL(null, 'dist/src/main.js', ours),
    // Issue 45: Hive Gateway in front of our subgraph, the same document (bench/supergraph-server.ts): the CPU measured
    // is the gateway's; our server's work is the row above.
    [SUPERGRAPH, 'dist/bench/supergraph-server.js', ours, graphqlPost],
    // BENCH_AB=<another build's main.js under this folder>: the same two requests against that build, in the same run
    // (a change measured before and after under the same conditions).
    ...(process.env.BENCH_AB
      ? restAndGraphQL('the other build', process.env.BENCH_AB, {
          ...ours,
          DATABASE_URL: await otherBuildDatabase(process.env.BENCH_AB),
        })
      : []),
    // BENCH_AB_FLAGS='<node flags>': the same two requests against this build started with those flags as well.
    ...(process.env.BENCH_AB_FLAGS
      ? restAndGraphQL(`with ${process.env.BENCH_AB_FLAGS}`, 'dist/src/main.js', {
          ...ours,
          TARGET_NODE_FLAGS: process.env.BENCH_AB_FLAGS,
        })
      : []),
    // The same GraphQL request with one per-request feature of issue 15 off (on by default) or on (off by default).
    ...FEATURE_VARIANTS(sink.url).map(([name, env]): TargetSpec => [
      name,
      'dist/src/main.js',
      { ...ours, ...env },
      graphqlPost,
    ]),
    // The ablation (issue 21): the same request with one per-request step of ours taken out (src/core/ablation.ts), then
    // all of them; metrics and persisted operations are the feature rows above.
    ['ablation: the access log line off (LOG_LEVEL=warn)', 'dist/src/main.js', { LOG_LEVEL: 'warn' }, graphqlPost],
    ...ABLATABLE_STEPS.map((step): TargetSpec => [
      `ablation: ${step} out`,
      'dist/bench/ablation-server.js',
      { ...ours, ABLATE: step },
      graphqlPost,
    ]),
    [
      'ablation: all of the above out, metrics and persisted operations off',
      'dist/bench/ablation-server.js',
      { LOG_LEVEL: 'warn', ABLATE: ABLATABLE_STEPS.join(','), METRICS: 'false', PERSISTED_OPERATIONS: 'off' },
      graphqlPost,
    ],
    [
      'the same by its APQ hash (GET)',
      'dist/src/main.js',
      ours,
      { url: APQ_URL, headers: auth },
      {
        path: '/graphql',
        init: {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ query: GRAPHQL_QUERY, extensions: APQ_EXTENSIONS }),
        },
      },
    ],
  ];
  try {
    if (process.env.BENCH_COUNT === '1') {
      if (POSTGRES)
        throw new Error('BENCH_COUNT=1 counts SQLite targets only (PostgreSQL runs in processes of its own)');
      const ok = await countTargets(counted(specs), {
        dir,
        cwd: ROOT,
        env: { ...process.env, ...env },
        requests: Number(process.env.COUNT_REQUESTS ?? 800),
        warmup: Number(process.env.COUNT_WARMUP ?? 300),
        connections: Number(process.env.COUNT_CONNECTIONS ?? 16),
        runs: Number(process.env.COUNT_RUNS ?? 3),
        profile: process.env.BENCH_COUNT_PROFILE === '1',
        top: Number(process.env.BENCH_COUNT_TOP ?? 0),
        keep: process.env.BENCH_KEEP === '1',
        taskset: hasTaskset,
        log: (line) => console.log(line),
      });
      if (!ok && process.env.BENCH_STRICT === '1')
        throw new Error('a counted target answered a non-2xx or a wrong size');
      return;
    }
    // ROUNDS > 1: every target runs once per round, in turn, and each figure is the median of its rounds (this
    // machine's speed drifts by tens of percent within minutes; interleaving keeps the ratios honest).
    const rounds: Result[][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const measured: Array<Result | null> = [];
      for (const spec of specs) measured.push(await target(...spec));
      rounds.push(measured.filter((result): result is Result => result !== null));
    }
    const measured = medianOf(rounds);
    const results = measured;
    const base = results[0]?.rps ?? 1;
    const baseCpu = results[0]?.cpuMicros ?? 1;
    console.log(
      `\n${POSTGRES ? 'PostgreSQL' : 'SQLite'}, ${CAMPAIGNS} campaigns, ${CONNECTIONS} keep-alive connections, ${WARMUP} s warm-up then ${DURATION} s on the ` +
        `same connections; server ${hasTaskset ? 'pinned to core 0, load on core 1' : 'not pinned (no taskset)'}\n`,
    );
    const pgColumn = POSTGRES ? ' PostgreSQL CPU µs/request |' : '';
    console.log(
      `| target | requests/s | vs raw | p50 ms | p99 ms | CPU µs/request | CPU vs raw |${pgColumn} KB allocated/request | GC µs/request (of CPU) | RSS at start MB | peak RSS MB | bytes/response | non-2xx |`,
    );
    console.log(`|---|---|---|---|---|---|---|${POSTGRES ? '---|' : ''}---|---|---|---|---|---|`);
    for (const r of results) {
      console.log(
        `| ${r.name} | ${r.rps.toFixed(0)} | ${((100 * r.rps) / base).toFixed(0)} % | ${r.p50.toFixed(1)} | ` +
          `${r.p99.toFixed(1)} | ${r.cpuMicros.toFixed(0)} | ${((100 * baseCpu) / (r.cpuMicros || 1)).toFixed(0)} % | ${POSTGRES ? `${r.postgresMicros.toFixed(0)} | ` : ''}` +
          `${r.allocatedKb.toFixed(0)} | ${r.gcMicros.toFixed(0)} (${((100 * r.gcMicros) / (r.cpuMicros || 1)).toFixed(0)} %) | ` +
          `${r.startMb.toFixed(0)} | ${r.peakMb.toFixed(0)} | ${r.bytes.toFixed(0)} | ${r.failures} |`,
      );
    }
    if (process.env.BENCH_STRICT === '1' && results.some((r) => r.failures > 0 || r.rps === 0)) {
      throw new Error('a target answered something other than 2xx (or nothing)');
    }
  } finally {
    sink.server.close();
    // BENCH_KEEP=1 keeps the run's folder (the database, each server's output) for a look afterwards.
    if (process.env.BENCH_KEEP === '1') console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
    await administer(POSTGRES, `drop database if exists ${benchDatabase} with (force)`);
    if (process.env.BENCH_AB) await administer(POSTGRES, `drop database if exists ${benchDatabase}_ab with (force)`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
