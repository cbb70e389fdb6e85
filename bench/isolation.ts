// `npm run bench:isolation`: can one tenant stall the others? A victim account's `GET /api/v3/get_campaigns` is
// measured quiet, then again while an attacker account sends the hostile requests of issue 11 in a loop (ReDoS
// pattern, 33 000 node ids, 15 000 social messages, 100 000 '[', JSON 5 000 deep in a body, variables and a JSON
// literal, wrong-password logins). The target: the victim's p99 under attack within 2× its quiet p99, in one run.
// The server is `dist/src/main.js` as `npm start` runs it, pinned to core 0 (taskset) with this load generator on core 1.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { telephonySignature } from '../src/security/telephony-signature.js';
import { campaignData, signUpAndLogin } from './support.js';

const ROOT = join(import.meta.dirname, '..');
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
const ATTACKERS = Number(process.env.ATTACKERS ?? 4);
const DURATION = Number(process.env.DURATION ?? 8);
const WARMUP = Number(process.env.WARMUP ?? 2);
const AUTH_TOKEN = 'bench-telephony-auth-token-0123456789';

const dir = mkdtempSync(join(tmpdir(), 'gateway-isolation-'));
const env = {
  DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
  // Both throttles are raised out of the way so that every hostile request is really processed: what is measured is
  // whether the caps keep each one cheap, not whether the rate limits turn them away. The login lockout stays.
  RATE_LIMIT_PER_MINUTE: '1000000',
  ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000000',
};

const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

interface Seeded {
  victim: string;
  attacker: string;
  attackerEmail: string;
  attackerKey: string;
}

async function seed(): Promise<Seeded> {
  const app = await createApp(loadConfig({ ...env, LOG_LEVEL: 'silent', PASSWORD_HASH_COST: '10' }), { worker: false });
  const call = async (path: string, token: string | null, body: unknown, headers: Record<string, string> = {}) => {
    const response = await app.fetch(
      new Request(`http://127.0.0.1${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );
    if (response.status !== 200) throw new Error(`seeding ${path} failed: ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  };
  try {
    const victim = await signUpAndLogin(app);
    for (let i = 0; i < 50; i++) {
      await call('/api/v3/update_campaign', victim.token, {
        campId: `victim-${i}`,
        campaignModelData: { ...campaignData(), title: `Victim ${i}` },
      });
    }
    const attackerEmail = `attacker-${Date.now()}@example.com`;
    const signup = await call('/api/v3/signup', null, { email: attackerEmail, password: 'attacker password' });
    const { access_token: attacker } = (await call('/api/v3/login', null, {
      username: attackerEmail,
      password: 'attacker password',
    })) as { access_token: string };
    const attackerKey = signup.apiKey as string;
    await call('/graphql', attacker, {
      query: `mutation ($d: CampaignDataInput!) { upsertCampaign(campId: "redos", data: $d) { campId } }`,
      variables: {
        d: {
          ...campaignData(),
          totalCallTime: undefined,
          totalNumCall: undefined,
          totalSpent: undefined,
          averageCallCost: undefined,
          postCallAnalysis: true,
          postCallAnalysisSchema: { type: 'object', properties: { outcome: { type: 'string', pattern: '^(a+)+$' } } },
        },
      },
    });
    await call('/api/v3/update_telephony', attacker, {
      telephonyAccountSid: 'AC0123456789',
      telephonyAuthToken: AUTH_TOKEN,
      telephonyPhoneNumber: '+14155550100',
    });
    const path = `/api/v3/telephony_webhook/${attackerKey}/redos`;
    const params = { CallSid: 'CA1', CallStatus: 'completed' };
    await call(path, null, new URLSearchParams(params).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
      'x-telephony-signature': telephonySignature(AUTH_TOKEN, `http://127.0.0.1${path}`, params),
    });
    await call('/api/v3/add_social_info', attacker, {
      pageId: 'page',
      accessToken: 'access-token-123',
      verifyToken: 'verify-token-123',
    });
    return { victim: victim.token, attacker, attackerEmail, attackerKey };
  } finally {
    await app.close();
  }
}

/** The hostile requests, by kind: each a fetch init against the server's base URL. */
function hostileRequests(seeded: Seeded): Array<[kind: string, path: string, init: RequestInit]> {
  const json = { 'content-type': 'application/json' };
  const auth = { ...json, authorization: `Bearer ${seeded.attacker}` };
  const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  const gql = (body: string): RequestInit => ({ method: 'POST', headers: auth, body });
  const messages = Array.from({ length: 15_000 }, (_, i) => ({ sender: { id: 's' }, message: { mid: `m${i}` } }));
  return [
    [
      'ReDoS analysis (29 a + !)',
      '/graphql',
      gql(
        JSON.stringify({
          query: 'mutation ($a: JSON) { recordCallOutcome(callId: "CA1", analysis: $a) { callId } }',
          variables: { a: { outcome: `${'a'.repeat(29)}!` } },
        }),
      ),
    ],
    [
      'nodes(ids:) × 33 000',
      '/graphql',
      gql(
        JSON.stringify({
          query: 'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }',
          variables: { ids: Array.from({ length: 33_000 }, (_, i) => `id${i}`) },
        }),
      ),
    ],
    [
      'social delivery, 15 000 messages',
      `/api/v3/social_webhook/${seeded.attackerKey}/redos`,
      { method: 'POST', headers: json, body: JSON.stringify({ object: 'page', entry: [{ messaging: messages }] }) },
    ],
    ['100 000 [ (REST)', '/api/v3/update_campaign', { method: 'POST', headers: auth, body: '['.repeat(100_000) }],
    ['100 000 [ (GraphQL)', '/graphql', gql('['.repeat(100_000))],
    ['JSON 5 000 deep (REST body)', '/api/v3/update_campaign', { method: 'POST', headers: auth, body: deep(5000) }],
    [
      'JSON 5 000 deep (variables)',
      '/graphql',
      gql(`{"query":"query ($x: JSON) { __typename }","variables":{"x":${deep(5000)}}}`),
    ],
    ['JSON deep (literal)', '/graphql', gql(JSON.stringify({ query: `{ nodes(ids: ${deep(1000)}) { id } }` }))],
    [
      'wrong-password login',
      '/api/v3/login',
      { method: 'POST', headers: json, body: JSON.stringify({ username: seeded.attackerEmail, password: 'wrong' }) },
    ],
  ];
}

async function startServer(): Promise<{ child: ChildProcess; base: string }> {
  const log = join(dir, 'server.log');
  // As `npm start` runs it: compiled JavaScript (dist/), built first.
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const node = [process.execPath, join(ROOT, 'dist/src/main.js')];
  const [command, ...args] = hasTaskset ? ['taskset', '-c', '0', ...node] : node;
  const child = spawn(command!, args, {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: '0', LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' },
    stdio: ['ignore', openSync(log, 'w'), 'inherit'],
  });
  for (let i = 0; i < 200; i++) {
    const found = /listening on (http:\/\/\S+)/.exec(readFileSync(log, 'utf8'));
    if (found?.[1]) return { child, base: found[1] };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the server did not start');
}

/** CPU seconds (user + system) and peak RSS of a process, from /proc. */
function processStats(pid: number): { cpu: number; peakMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(stat[11] ?? 0) + Number(stat[12] ?? 0);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { cpu: ticks / 100, peakMb: Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024 };
}

async function victimLoad(base: string, token: string, duration: number) {
  const result = await autocannon({
    url: `${base}/api/v3/get_campaigns`,
    headers: { authorization: `Bearer ${token}` },
    connections: CONNECTIONS,
    duration,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
  };
}

/** ATTACKERS loops sending the hostile requests back to back until `until`; counts statuses per kind. */
async function attack(base: string, seeded: Seeded, until: number) {
  const requests = hostileRequests(seeded);
  const counts = new Map<string, Map<string, number>>();
  const note = (kind: string, outcome: string) => {
    const byOutcome = counts.get(kind) ?? new Map<string, number>();
    byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
    counts.set(kind, byOutcome);
  };
  const loop = async (offset: number) => {
    for (let i = offset; Date.now() < until; i++) {
      const [kind, path, init] = requests[i % requests.length]!;
      try {
        const response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
        await response.arrayBuffer();
        note(kind, String(response.status));
      } catch (error) {
        note(kind, error instanceof Error ? error.name : 'error');
      }
    }
  };
  await Promise.all(Array.from({ length: ATTACKERS }, (_, i) => loop(i * 2)));
  return counts;
}

async function main(): Promise<void> {
  if (hasTaskset) execFileSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });
  const seeded = await seed();
  const { child, base } = await startServer();
  try {
    const pid = child.pid!;
    await victimLoad(base, seeded.victim, WARMUP);
    const quiet = await victimLoad(base, seeded.victim, DURATION);
    const before = processStats(pid);
    const attacking = attack(base, seeded, Date.now() + (WARMUP + DURATION) * 1000);
    await victimLoad(base, seeded.victim, WARMUP);
    const underAttack = await victimLoad(base, seeded.victim, DURATION);
    const counts = await attacking;
    const after = processStats(pid);

    const ratio = underAttack.p99 / Math.max(1, quiet.p99);
    console.log(
      `\nvictim: GET /api/v3/get_campaigns (50 campaigns), ${CONNECTIONS} connections, ${DURATION} s after ${WARMUP} s ` +
        `of warm-up; attacker: ${ATTACKERS} loops of hostile requests; server ${hasTaskset ? 'pinned to core 0' : 'not pinned (no taskset)'}\n`,
    );
    console.log('| victim | requests/s | p50 ms | p99 ms | errors |');
    console.log('|---|---|---|---|---|');
    for (const [name, r] of [
      ['quiet', quiet],
      ['under attack', underAttack],
    ] as const) {
      console.log(`| ${name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} |`);
    }
    console.log(`\np99 under attack / quiet p99: ${ratio.toFixed(2)}× — ${ratio <= 2 ? 'PASS' : 'FAIL'} (target ≤ 2×)`);
    console.log(
      `server: ${(after.cpu - before.cpu).toFixed(1)} CPU s during the attack phase, peak RSS ${after.peakMb.toFixed(0)} MB\n`,
    );
    console.log('| hostile request | answers |');
    console.log('|---|---|');
    let serverErrors = 0;
    for (const [kind, byOutcome] of counts) {
      const shown = [...byOutcome].map(([outcome, n]) => `${n}× ${outcome}`).join(', ');
      for (const [outcome, n] of byOutcome) if (outcome.startsWith('5')) serverErrors += n;
      console.log(`| ${kind} | ${shown} |`);
    }
    console.log(`\n5xx answers to hostile requests: ${serverErrors}`);
    if (process.env.BENCH_STRICT === '1' && (serverErrors > 0 || quiet.errors > 0 || underAttack.errors > 0)) {
      throw new Error('a 5xx to a hostile request, or a failed victim request');
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
