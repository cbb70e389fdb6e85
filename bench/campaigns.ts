// `npm run bench`: 50 connections on loopback (autocannon) against three servers over the same SQLite file, measured
// in one run: the raw baseline (bench/raw-server.ts), our REST `get_campaigns`, and our GraphQL query of the same 50
// campaigns with all their scalar fields. Prints requests/s, p50, p99, RSS and each one's ratio to the raw baseline.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { campaignData, signUpAndLogin } from './support.js';

const ROOT = join(import.meta.dirname, '..');
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const DURATION = Number(process.env.DURATION ?? 10);
const WARMUP = Number(process.env.WARMUP ?? 3);
const CAMPAIGNS = 50;

const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
const env = {
  DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
  PASSWORD_HASH_COST: '10',
  // The per-account limit (1200/min by default) would stop a load test at once.
  RATE_LIMIT_PER_MINUTE: '1000000',
};

const ALL_FIELDS = `id campId title voiceId language script purpose knowledgeBase calendar firstLine flowName systemPrompt
  tone maxCallTimeout inactiveCallTimeout postCallAnalysis postCallAnalysisSchema timeZone isFreeflow public sampleSid
  description status creationDate updatedAt`;
const GRAPHQL_BODY = JSON.stringify({
  query: `query BenchCampaigns { campaigns(first: ${CAMPAIGNS}) { edges { node { ${ALL_FIELDS} } } } }`,
});

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

/** Starts a server script with tsx's loader; its output goes to a file (read for the "listening on" line). */
async function startServer(
  script: string,
  extraEnv: Record<string, string>,
): Promise<{ child: ChildProcess; base: string }> {
  const log = join(dir, `${script.replace(/\W/g, '_')}.log`);
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', join(ROOT, script)],
    {
      cwd: ROOT,
      env: { ...process.env, ...env, PORT: '0', ...extraEnv },
      stdio: ['ignore', openSync(log, 'w'), 'inherit'],
    },
  );
  for (let i = 0; i < 200; i++) {
    const found = /listening on (http:\/\/\S+)/.exec(readFileSync(log, 'utf8'));
    if (found?.[1]) return { child, base: found[1] };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${script} did not start`);
}

function rssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

interface Result {
  name: string;
  requests: number;
  p50: number;
  p99: number;
  rss: number;
  errors: number;
}

async function load(name: string, pid: number | undefined, options: autocannon.Options): Promise<Result> {
  await autocannon({ ...options, connections: CONNECTIONS, duration: WARMUP });
  const result = await autocannon({ ...options, connections: CONNECTIONS, duration: DURATION });
  const non2xx = result.non2xx + result.errors + result.timeouts;
  return {
    name,
    requests: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rss: rssMb(pid),
    errors: non2xx,
  };
}

async function main(): Promise<void> {
  const { token, accountId } = await seed();
  const servers: ChildProcess[] = [];
  try {
    const raw = await startServer('bench/raw-server.ts', { BENCH_DB: join(dir, 'bench.db'), BENCH_ACCOUNT: accountId });
    servers.push(raw.child);
    const ours = await startServer('src/main.ts', { LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' });
    servers.push(ours.child);
    const auth = { authorization: `Bearer ${token}` };

    const results = [
      await load('raw node:http + better-sqlite3', raw.child.pid, { url: `${raw.base}/campaigns` }),
      await load('REST GET /api/v3/get_campaigns', ours.child.pid, {
        url: `${ours.base}/api/v3/get_campaigns`,
        headers: auth,
      }),
      await load(`GraphQL campaigns(first: ${CAMPAIGNS}), all fields`, ours.child.pid, {
        url: `${ours.base}/graphql`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: GRAPHQL_BODY,
      }),
    ];
    const base = results[0]?.requests ?? 1;
    console.log(
      `\n${CAMPAIGNS} campaigns, ${CONNECTIONS} connections, ${DURATION} s each after ${WARMUP} s of warm-up (autocannon, loopback)\n`,
    );
    console.log('| target | requests/s | p50 ms | p99 ms | RSS MB | vs raw | errors |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of results) {
      console.log(
        `| ${r.name} | ${r.requests.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.rss.toFixed(0)} | ${((100 * r.requests) / base).toFixed(0)} % | ${r.errors} |`,
      );
    }
  } finally {
    for (const child of servers) child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
