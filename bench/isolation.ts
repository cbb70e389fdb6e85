// `npm run bench:isolation`: can one tenant stall the others? A victim account's `GET /api/v3/get_campaigns` is
// measured quiet, then again while an attacker account sends the hostile requests of issue 11 in a loop (ReDoS
// pattern, 33 000 node ids, 15 000 social messages, 100 000 '[', JSON 5 000 deep in a body, variables and a JSON
// literal, wrong-password logins); and again while attacker accounts hold hundreds of `@live` queries (SSE) on busy
// campaigns, each re-run by every signed call-status callback of its campaign (issue 35). The target: the victim's p99
// under attack within 2× its quiet p99, in one run.
// The server is `dist/src/main.js` as `npm start` runs it, pinned to core 0 (taskset) with this load generator on core 1.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { get as httpGet } from 'node:http';
import { createRequire } from 'node:module';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, createApp } from '../src/app.js';
import { loadConfig } from '../src/core/config.js';
import { chunks } from '../src/db/chunks.js';
import { telephonySignature } from '../src/security/telephony-signature.js';
import { type Attack, AUTH_TOKEN, sleep, Tally } from './attack.js';
import { EXPENSIVE_DOCUMENTS } from './expensive-documents.js';
import { CATALOGUE, type CatalogueSeed, type Receiver, seedCatalogue, startReceiver } from './hostile-catalogue.js';
import {
  administer,
  callLogRow,
  campaignData,
  hasTaskset,
  insertCallLogs,
  signUpAndLogin,
  START_NODE_FLAGS,
} from './support.js';

const ROOT = join(import.meta.dirname, '..');
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
const ATTACKERS = Number(process.env.ATTACKERS ?? 4);
const DURATION = Number(process.env.DURATION ?? 8);
const WARMUP = Number(process.env.WARMUP ?? 2);

const dir = mkdtempSync(join(tmpdir(), 'gateway-isolation-'));
/**
 * With BENCH_DATABASE_URL (or DATABASE_URL) = postgres://…, the run's own database is made there (and dropped at the
 * end); otherwise a SQLite file in the run's folder.
 */
const POSTGRES_AT = [process.env.BENCH_DATABASE_URL, process.env.DATABASE_URL].find((url) =>
  url?.startsWith('postgres'),
);
const POSTGRES = POSTGRES_AT ? new URL(POSTGRES_AT) : null;
const benchDatabase = `gateway_isolation_${Date.now()}`;
const env = {
  DATABASE_URL: POSTGRES
    ? Object.assign(new URL(POSTGRES.toString()), { pathname: `/${benchDatabase}` }).toString()
    : `sqlite:${join(dir, 'bench.db')}`,
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
};
/**
 * The victim's load is spread over this many accounts (each with the same 50 campaigns), so that every one of them
 * stays under the default per-account rate limit while the attacker's single account meets it.
 */
const VICTIM_ACCOUNTS = Number(process.env.VICTIM_ACCOUNTS ?? 250);

/**
 * The `@live` case: LIVE_STREAMS live queries held open over LIVE_ACCOUNTS attacker accounts (300 over 3: each at the
 * default cap of LIVE_QUERIES_PER_ACCOUNT, 100), each account's on its own busy campaign (BUSY_CALL_LOGS logs to
 * start with), and signed call-status callbacks at CALLBACKS_PER_SECOND spread over those campaigns: each callback
 * re-runs every live query of its campaign (at most once per LIVE_QUERY_THROTTLE_MS each). A short run (the CI smoke
 * run) holds fewer.
 */
const LIVE_ACCOUNTS = Number(process.env.LIVE_ACCOUNTS ?? 3);
const LIVE_STREAMS = Number(process.env.LIVE_STREAMS ?? (DURATION >= 5 ? 300 : 30));
const CALLBACKS_PER_SECOND = Number(process.env.CALLBACKS_PER_SECOND ?? 40);
const BUSY_CALL_LOGS = Number(process.env.BUSY_CALL_LOGS ?? (DURATION >= 5 ? 1000 : 100));
const BUSY_CAMPAIGN = 'busy';
const ACCOUNTS_SHOWN = `${LIVE_ACCOUNTS} account${LIVE_ACCOUNTS === 1 ? '' : 's'}`;
/** The server's throttle (it reads the same variable): at most one re-execution per live query per this many ms. */
const LIVE_THROTTLE_MS = Number(process.env.LIVE_QUERY_THROTTLE_MS ?? 250);

/** What a live query of the attacker reads: the busy campaign's metrics and its latest call logs. */
const LIVE_QUERY = /* GraphQL */ `
  query BusyCampaign($c: String!) @live {
    campaign(campId: $c) {
      campId
      title
      status
      metrics {
        totalNumCall
        totalCallTime
        totalSpent
        averageCallCost
      }
      callLogs(first: 20) {
        edges {
          node {
            callId
            status
            durationSeconds
            cost
            startedAt
          }
        }
      }
    }
  }
`;

interface Scenario {
  /** Short name: BENCH_ONLY matches it (or the name), NOT_YET_JUDGED lists it. */
  id: string;
  name: string;
  env: Record<string, string>;
  make(base: string, seeded: Seeded): Attack;
  /** After the case's server has exited: what it left that would weigh on the next cases (the fan-out's backlog). */
  after?(app: App, seeded: Seeded): Promise<void>;
  /** Whether its ratio is held to the target (the others are shown for information). */
  judged: boolean;
}

/**
 * Cases a short run (the CI smoke run, `npm run bench:smoke`) reports but does not judge (ratio, own judgements, 5xx,
 * problems). Empty since 2026-12-02 ~07:10: every case passed two smoke runs and the full run (SQLite) once the work
 * budget charged a request what it did alone (bench/archive.md "The hostile catalogue"), so CI fails on a regression
 * of any. A case goes back here only with the reason written beside it; take it out once it passes the smoke command
 * twice and a full run.
 */
const NOT_YET_JUDGED: readonly string[] = [];

/**
 * In a short run the victim's p99 over one second is noisy (on a loaded 2-core machine a quiet p99 swings from 20 to
 * 900 ms, and an unharmed case's p99 under attack reached 958 ms): its ratio is judged only once the p99 under attack is
 * also over this floor (ms), so that noise fails nothing while an attack that stalls the loop for a second (no answer
 * in the window, or a p99 past it) does.
 */
const SHORT_RUN_FLOOR_MS = Number(process.env.SHORT_RUN_FLOOR_MS ?? 1000);

/**
 * The cases: the hostile requests of issue 11 with the defaults as users run them (judged), the same with the request
 * rate limits raised (caps only), the expensive documents anonymous (judged) and signed in (for information), the
 * @live case of issue 35 (judged), then the hostile catalogue of issue 52 (bench/hostile-catalogue.ts). In the @live
 * case the callbacks stand for the telephony provider's: signed, they count against their account's callback budget,
 * not the address (src/graphql/schema/callback-budget.ts); every setting is the default unless a case says otherwise.
 */
const SCENARIOS: Scenario[] = [
  {
    id: 'hostile',
    name: 'default settings',
    env: {},
    make: (base, seeded) => hostileAttack(base, seeded),
    judged: true,
  },
  {
    id: 'hostile-unlimited',
    name: 'request rate limits raised: every hostile request is processed, only the caps and the large-body budget hold',
    env: { RATE_LIMIT_PER_MINUTE: '1000000', ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000000' },
    make: (base, seeded) => hostileAttack(base, seeded),
    judged: false,
  },
  {
    id: 'documents',
    name:
      'expensive documents: one anonymous address at its full rate limit (the default), a new worst-case document ' +
      'each time (bench/expensive-documents.ts)',
    env: {},
    make: (base) => documentsAttack(base),
    judged: true,
  },
  {
    id: 'signed-in-documents',
    name:
      'expensive documents, signed in: the attacker account at its rate limit (the default), worst cases of 5 000 ' +
      'tokens (for information)',
    env: {},
    make: (base, seeded) => documentsAttack(base, seeded.attacker),
    judged: false,
  },
  {
    id: 'live',
    name:
      `@live queries on busy campaigns: ${LIVE_STREAMS} open over ${ACCOUNTS_SHOWN}, signed call-status ` +
      `callbacks at ${CALLBACKS_PER_SECOND}/s (the provider's: counted per account, CALLBACK_RATE_LIMIT_PER_MINUTE)`,
    env: {},
    make: (base, seeded) => liveAttack(base, seeded),
    judged: true,
  },
  ...CATALOGUE.map(({ after, make, ...entry }): Scenario => ({
    ...entry,
    make: (base, seeded) => make(base, seeded.catalogue, seeded.receiver),
    ...(after ? { after: (app: App, seeded: Seeded) => after(app, seeded.catalogue) } : {}),
  })),
];

/** An attacker account of the @live case: its token, its API key (callback URLs) and its busy campaign. */
interface LiveAccount {
  token: string;
  apiKey: string;
  campId: string;
}

interface Seeded {
  victims: string[];
  attacker: string;
  attackerEmail: string;
  attackerKey: string;
  live: LiveAccount[];
  catalogue: CatalogueSeed;
  /** The fan-out case's webhook receiver. */
  receiver: Receiver;
}

async function seed(receiver: Receiver): Promise<Seeded> {
  const app = await createApp(
    loadConfig({
      ...env,
      LOG_LEVEL: 'silent',
      PASSWORD_HASH_COST: '10',
      ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PER_MINUTE: '1000000',
      // Seeding signs up hundreds of accounts from one (in-process) address: its handling-time budgets are raised.
      WORK_BUDGET_MS_PER_MINUTE: '100000000',
      ANONYMOUS_WORK_BUDGET_MS_PER_MINUTE: '100000000',
      // The fan-out case's webhooks point at the receiver on loopback.
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
    }),
    { worker: false },
  );
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
    if (response.status !== 200 && response.status !== 201) {
      throw new Error(`seeding ${path} failed: ${await response.text()}`);
    }
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
    // More victim accounts, each given copies of the first one's campaigns.
    const victims = [victim.token];
    const template = await app.database.db
      .selectFrom('campaigns')
      .selectAll()
      .where('account_id', '=', victim.accountId)
      .execute();
    const rows: typeof template = [];
    for (let i = 1; i < VICTIM_ACCOUNTS; i++) {
      const other = await signUpAndLogin(app);
      victims.push(other.token);
      rows.push(...template.map((row) => ({ ...row, account_id: other.accountId })));
    }
    await app.database.db.transaction().execute(async (trx) => {
      for (const chunk of chunks(rows, 400)) await trx.insertInto('campaigns').values(chunk).execute();
    });
    // The @live case's attacker accounts, each with telephony connected and a busy campaign with call logs already.
    const live: LiveAccount[] = [];
    for (let i = 0; i < LIVE_ACCOUNTS; i++) {
      const email = `live-${i}-${Date.now()}@example.com`;
      const account = await call('/api/v3/signup', null, { email, password: 'attacker password' });
      const { access_token: token } = (await call('/api/v3/login', null, {
        username: email,
        password: 'attacker password',
      })) as { access_token: string };
      await call('/api/v3/update_telephony', token, {
        telephonyAccountSid: 'AC0123456789',
        telephonyAuthToken: AUTH_TOKEN,
        telephonyPhoneNumber: '+14155550100',
      });
      await call('/api/v3/update_campaign', token, {
        campId: BUSY_CAMPAIGN,
        campaignModelData: { ...campaignData(), title: `Busy ${i}` },
      });
      const now = Date.now();
      const logs = Array.from({ length: BUSY_CALL_LOGS }, (_, n) =>
        callLogRow({
          accountId: account.id as string,
          campId: BUSY_CAMPAIGN,
          callId: `CASEED${String(n).padStart(8, '0')}`,
          status: 'completed',
          at: new Date(now - (BUSY_CALL_LOGS - n) * 60_000).toISOString(),
          durationSeconds: n % 600,
          cost: (n % 100) / 100,
        }),
      );
      await insertCallLogs(app, logs);
      live.push({ token, apiKey: account.apiKey as string, campId: BUSY_CAMPAIGN });
    }
    const catalogue = await seedCatalogue(app, call, receiver.url);
    return { victims, attacker, attackerEmail, attackerKey, live, catalogue, receiver };
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

async function startServer(scenarioEnv: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
  const log = join(dir, `server-${Date.now()}.log`);
  const node = [
    process.execPath,
    ...START_NODE_FLAGS,
    // `--cpu-prof --cpu-prof-dir=…` profiles each scenario's server (written when it exits on SIGTERM).
    ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
    join(ROOT, 'dist/src/main.js'),
  ];
  const [command, ...args] = hasTaskset ? ['taskset', '-c', '0', ...node] : node;
  const child = spawn(command!, args, {
    cwd: ROOT,
    env: { ...process.env, ...env, ...scenarioEnv, PORT: '0', LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' },
    stdio: ['ignore', openSync(log, 'w'), 'inherit'],
  });
  // Up to a minute: on a loaded machine (a CI runner, a shared one) the compiled server takes seconds to start.
  for (let i = 0; i < 1200 && child.exitCode === null; i++) {
    const found = /listening on (http:\/\/[^\s"]+)/.exec(readFileSync(log, 'utf8'));
    if (found?.[1]) return { child, base: found[1] };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGTERM');
  throw new Error(`the server did not start:\n${readFileSync(log, 'utf8').slice(-2000)}`);
}

/** CPU seconds (user + system) and peak RSS of a process, from /proc. */
function processStats(pid: number): { cpu: number; peakMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(stat[11] ?? 0) + Number(stat[12] ?? 0);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { cpu: ticks / 100, peakMb: Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024 };
}

/**
 * The victim's load, run by autocannon in a process of its own (a worker thread will not do: autocannon takes one for
 * its own workers): the attacks' client work (reading 8 MB answers, building 0.9 MB bodies) runs on this process's
 * event loop, and would otherwise delay the victim's requests and the reading of their answers here — a latency the
 * server did not cause. Both processes share core 1.
 */
const VICTIM_LOAD = `
const autocannon = require(process.env.AUTOCANNON);
const { base, tokens, duration, connections } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
let next = 0;
autocannon({
  url: base + '/api/v3/get_campaigns',
  connections,
  duration,
  requests: [{
    method: 'GET',
    setupRequest: (request) => ({
      ...request,
      headers: { ...request.headers, authorization: 'Bearer ' + tokens[next++ % tokens.length] },
    }),
  }],
}).then((result) => process.stdout.write(JSON.stringify({
  rps: result.requests.average,
  p50: result.latency.p50,
  p99: result.latency.p99,
  errors: result.non2xx + result.errors,
  answered: result.requests.total,
})));
`;

interface VictimResult {
  rps: number;
  p50: number;
  p99: number;
  /** Errors include timeouts (10 s); a request still unanswered when the phase ends is in neither count. */
  errors: number;
  answered: number;
}

/** The victim's load generator's nice value (higher priority than the attack's client code beside it). */
const VICTIM_PRIORITY = -10;

async function victimLoad(base: string, tokens: string[], duration: number): Promise<VictimResult> {
  const child = spawn(process.execPath, ['-e', VICTIM_LOAD], {
    env: { ...process.env, AUTOCANNON: createRequire(import.meta.url).resolve('autocannon') },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  // Ahead of the attack's client code on the core they share: an attack whose client is busy (building and sending
  // 0.9 MB bodies took 7 of 8.5 CPU seconds of that core) would otherwise delay the victim's requests and the reading
  // of their answers in its own load generator, a latency the server did not cause. Raised where allowed, else this
  // process (the attacker's client) steps back; neither changes anything the server does.
  if (child.pid !== undefined) {
    try {
      setPriority(child.pid, VICTIM_PRIORITY);
    } catch {
      try {
        setPriority(process.pid, -VICTIM_PRIORITY);
      } catch {
        // Neither allowed: measured as before.
      }
    }
  }
  child.stdin.end(JSON.stringify({ base, tokens, duration, connections: CONNECTIONS }));
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (output += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the victim's load exited with ${code}`);
  return JSON.parse(output) as VictimResult;
}

/** ATTACKERS loops sending the hostile requests back to back until `until`; counts statuses per kind. */
function hostileAttack(base: string, seeded: Seeded): Attack {
  return {
    open: async () => undefined,
    close: async () => undefined,
    async run(until) {
      const requests = hostileRequests(seeded);
      const counts = new Map<string, Tally>();
      const note = (kind: string, outcome: string) => {
        const tally = counts.get(kind) ?? new Tally();
        tally.note(outcome);
        counts.set(kind, tally);
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
      const report = ['| hostile request | answers |', '|---|---|'];
      let serverErrors = 0;
      for (const [kind, tally] of counts) {
        for (const [outcome, n] of tally) if (outcome.startsWith('5')) serverErrors += n;
        report.push(`| ${kind} | ${tally} |`);
      }
      report.push('', `5xx answers to hostile requests: ${serverErrors}`);
      return { report, serverErrors, problems: [] };
    },
  };
}

/**
 * ATTACKERS loops from one address, without a token, sending a new worst-case document each time (each shape of
 * bench/expensive-documents.ts in turn) back to back: the address's rate limit is what lets requests through.
 */
function documentsAttack(base: string, token?: string): Attack {
  return {
    open: async () => undefined,
    close: async () => undefined,
    async run(until) {
      const counts = new Map<string, Tally>();
      let seedNumber = 0;
      const loop = async (offset: number) => {
        for (let i = offset; Date.now() < until; i++) {
          const shape = EXPENSIVE_DOCUMENTS[i % EXPENSIVE_DOCUMENTS.length]!;
          const query = shape.document(`a${++seedNumber}`);
          const tally = counts.get(shape.name) ?? new Tally();
          counts.set(shape.name, tally);
          try {
            const response = await fetch(`${base}/graphql`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
              body: JSON.stringify({ query, operationName: /query (\w+)/.exec(query)?.[1] }),
              signal: AbortSignal.timeout(10_000),
            });
            await response.arrayBuffer();
            tally.note(String(response.status));
            // Refused for the address's rate: wait as asked, as a client at its full rate would.
            if (response.status === 429) await sleep(Number(response.headers.get('retry-after') ?? 1) * 250);
          } catch (error) {
            tally.note(error instanceof Error ? error.name : 'error');
          }
        }
      };
      await Promise.all(Array.from({ length: ATTACKERS }, (_, i) => loop(i)));
      const report = ['| worst-case document | answers |', '|---|---|'];
      let serverErrors = 0;
      let answered = 0;
      for (const [kind, tally] of counts) {
        for (const [outcome, n] of tally) {
          if (outcome.startsWith('5')) serverErrors += n;
          if (outcome === '200' || outcome === '400') answered += n;
        }
        report.push(`| ${kind} | ${tally} |`);
      }
      report.push('', `5xx answers: ${serverErrors}`);
      const problems = answered === 0 ? ['no worst-case document was answered (all refused by the rate limit?)'] : [];
      return { report, serverErrors, problems };
    },
  };
}

/** The live query series of /metrics, by series (`name{labels}`). */
async function liveQueryMetrics(base: string): Promise<Map<string, number>> {
  // node:http, with one long timeout: a server left with a backlog answers late (fetch gives up connecting after 10 s),
  // and this count is what shows the backlog's work.
  const text = await new Promise<string>((resolve, reject) => {
    const request = httpGet(`${base}/metrics`, { timeout: 180_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        response.statusCode === 200
          ? resolve(body)
          : reject(new Error(`/metrics answered ${response.statusCode}: ${body.slice(0, 200)}`)),
      );
    });
    request.on('timeout', () => request.destroy(new Error('/metrics did not answer in 180 s')));
    request.on('error', reject);
  });
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    const found = /^(gateway_live_quer[a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (found?.[1]) series.set(found[1], Number(found[2]));
  }
  return series;
}

/** What the attacker's streams received, summed over all of them. */
interface StreamCounters {
  /** Results after the first (each a re-execution's, as the client got it). */
  results: number;
  bytes: number;
  /** Streams that ended while they were meant to stay open (the server ended them, or the connection broke). */
  ended: number;
}

/**
 * One live query held open over SSE, read to the end: `opened` resolves with `open` once its first result came without
 * errors, else with the HTTP status or the first error's code.
 */
function holdLiveQuery(
  base: string,
  account: LiveAccount,
  counters: StreamCounters,
): { opened: Promise<string>; abort: AbortController } {
  const abort = new AbortController();
  let settle: (outcome: string) => void = () => undefined;
  const opened = new Promise<string>((resolve) => (settle = resolve));
  const outcomeOf = (json: string) => {
    try {
      const payload = JSON.parse(json) as { data?: unknown; errors?: Array<{ extensions?: { code?: string } }> };
      if (payload.errors?.length) return payload.errors[0]?.extensions?.code ?? 'error';
      return payload.data ? 'open' : 'no data';
    } catch {
      return 'not JSON';
    }
  };
  let first = true;
  let open = false;
  void (async () => {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        authorization: `Bearer ${account.token}`,
      },
      body: JSON.stringify({ query: LIVE_QUERY, variables: { c: account.campId } }),
      signal: abort.signal,
    });
    if (response.status !== 200 || !response.body) {
      settle(String(response.status));
      await response.body?.cancel();
      return;
    }
    const decoder = new TextDecoder();
    let text = '';
    const reader = response.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      counters.bytes += read.value.byteLength;
      text += decoder.decode(read.value, { stream: true });
      const lines = text.split('\n');
      text = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('data:')) continue;
        if (first) {
          first = false;
          const outcome = outcomeOf(line.slice('data:'.length));
          open = outcome === 'open';
          settle(outcome);
        } else {
          counters.results += 1;
        }
      }
    }
    settle('ended before its first result');
    if (open && !abort.signal.aborted) counters.ended += 1;
  })().catch((error: unknown) => {
    settle(error instanceof Error ? error.name : 'error');
    // Only a stream that had opened counts (a fetch that failed at once settles its opening with the error).
    if (open && !abort.signal.aborted) counters.ended += 1;
  });
  return { opened, abort };
}

/** Signed call-status callbacks at CALLBACKS_PER_SECOND until `until`, each a new call of a busy campaign in turn. */
async function sendCallbacks(
  base: string,
  accounts: LiveAccount[],
  until: number,
  statuses: Tally,
  latencies: number[],
): Promise<number> {
  const interval = 1000 / CALLBACKS_PER_SECOND;
  const prefix = `CA${Date.now().toString(36)}`;
  const inflight = new Set<Promise<void>>();
  const start = Date.now();
  for (let i = 0; start + i * interval < until; i++) {
    await sleep(start + i * interval - Date.now());
    const account = accounts[i % accounts.length]!;
    const path = `/api/v3/telephony_webhook/${account.apiKey}/${account.campId}`;
    const params = {
      CallSid: `${prefix}${i}`,
      CallStatus: 'completed',
      CallDuration: String(30 + (i % 300)),
      Price: '-0.25',
      Direction: 'outbound-api',
    };
    const sentAt = performance.now();
    const sent: Promise<void> = fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-telephony-signature': telephonySignature(AUTH_TOKEN, `${base}${path}`, params),
      },
      body: new URLSearchParams(params).toString(),
      signal: AbortSignal.timeout(10_000),
    })
      .then(async (response) => {
        await response.arrayBuffer();
        statuses.note(String(response.status));
        latencies.push(performance.now() - sentAt);
      })
      .catch((error: unknown) => statuses.note(error instanceof Error ? error.name : 'error'))
      .finally(() => inflight.delete(sent));
    inflight.add(sent);
  }
  const sending = (Date.now() - start) / 1000;
  await Promise.all(inflight);
  return sending;
}

/**
 * LIVE_STREAMS @live queries held open (in turn on each attacker account, each on its account's busy campaign), then
 * signed call-status callbacks on those campaigns: every callback re-runs every live query of its campaign.
 */
function liveAttack(base: string, seeded: Seeded): Attack {
  const counters: StreamCounters = { results: 0, bytes: 0, ended: 0 };
  const streams: Array<{ opened: Promise<string>; abort: AbortController }> = [];
  const openings = new Tally();
  let openMs = 0;
  const seriesOf = (kind: 'first' | 'reexecution') => ({
    count: `gateway_live_query_executions_total{kind="${kind}"}`,
    seconds: `gateway_live_query_execution_seconds_total{kind="${kind}"}`,
  });
  return {
    async open() {
      const started = performance.now();
      for (let i = 0; i < LIVE_STREAMS; i++) {
        streams.push(holdLiveQuery(base, seeded.live[i % seeded.live.length]!, counters));
      }
      const timeout = sleep(30_000).then(() => 'no first result in 30 s');
      let outcomes = await Promise.all(streams.map((s) => Promise.race([s.opened, timeout])));
      // Opened as a client would: one refused 429 (its account's work budget: each first run is its work) is opened
      // again a second later, for up to 20 s.
      for (let round = 0; round < 20 && outcomes.includes('429'); round++) {
        await sleep(1000);
        outcomes = await Promise.all(
          outcomes.map(async (outcome, i) => {
            if (outcome !== '429') return outcome;
            streams[i] = holdLiveQuery(base, seeded.live[i % seeded.live.length]!, counters);
            const again = await Promise.race([streams[i].opened, timeout]);
            if (again === '429') openings.note('429, opened again');
            return again;
          }),
        );
      }
      for (const outcome of outcomes) openings.note(outcome);
      openMs = performance.now() - started;
      // The first results are in: what follows on the streams is the attack's.
      counters.results = 0;
      counters.bytes = 0;
    },
    async close() {
      for (const stream of streams) stream.abort.abort();
    },
    async run(until) {
      const before = await liveQueryMetrics(base);
      const started = performance.now();
      const callbacks = new Tally();
      const latencies: number[] = [];
      // The re-executions of each second of the attack (scraped once a second while the callbacks are sent): bursts
      // and pauses show here.
      const re = seriesOf('reexecution');
      const perSecond: number[] = [];
      let sampled = before.get(re.count) ?? 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          await sleep(1000);
          const now = (await liveQueryMetrics(base).catch(() => null))?.get(re.count);
          if (now === undefined) continue;
          perSecond.push(now - sampled);
          sampled = now;
        }
      })();
      const sending = await sendCallbacks(base, seeded.live, until, callbacks, latencies);
      sampling = false;
      await sampler;
      const scraped = performance.now();
      const after = await liveQueryMetrics(base);
      const scrapeMs = performance.now() - scraped;
      // The re-executions counted ran between the two scrapes: the callbacks' seconds and the backlog's after them.
      const window = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
      const delta = (series: string) => (after.get(series) ?? 0) - (before.get(series) ?? 0);
      const reexecutions = delta(re.count);
      const reSeconds = delta(re.seconds);
      const held = openings.get('open') ?? 0;
      const sent = [...callbacks.values()].reduce((a, b) => a + b, 0);
      const report = [
        '| @live attack | |',
        '|---|---|',
        `| live queries held | ${held} of ${LIVE_STREAMS} over ${ACCOUNTS_SHOWN}, opened in ` +
          `${(openMs / 1000).toFixed(1)} s (${openings}); open on the server: ` +
          `${after.get('gateway_live_queries') ?? '?'} |`,
        `| call-status callbacks | ${sent} sent in ${sending.toFixed(1)} s (${(sent / sending).toFixed(0)}/s; ${callbacks}), ` +
          `answered in p50 ${at(0.5).toFixed(0)} ms, p99 ${at(0.99).toFixed(0)} ms |`,
        `| re-executions (server, /metrics) | ${reexecutions} in ${window.toFixed(1)} s ` +
          `(${(reexecutions / window).toFixed(0)}/s; ${(reexecutions / Math.max(1, held) / window).toFixed(1)}/s per ` +
          `live query; at most ${(1000 / LIVE_THROTTLE_MS).toFixed(0)}/s each by the throttle) |`,
        `| re-executions in each second of the attack | ${perSecond.join(', ')} |`,
        `| their summed wall time (server, /metrics; overlapping) | ${reSeconds.toFixed(1)} s ` +
          `(${((reSeconds / Math.max(1, reexecutions)) * 1000).toFixed(1)} ms each) |`,
        `| results received by the attacker | ${counters.results} (${(counters.bytes / 1e6).toFixed(1)} MB) |`,
        `| streams ended during the attack | ${counters.ended} |`,
        `| /metrics answered after the last callback's answer in | ${(scrapeMs / 1000).toFixed(1)} s |`,
      ];
      let serverErrors = 0;
      for (const [outcome, n] of callbacks) if (outcome.startsWith('5')) serverErrors += n;
      for (const [outcome, n] of openings) if (outcome.startsWith('5')) serverErrors += n;
      const problems: string[] = [];
      if (held < LIVE_STREAMS) problems.push(`only ${held} of ${LIVE_STREAMS} live queries opened (${openings})`);
      if (reexecutions === 0) problems.push('no live query was re-executed');
      // A callback refused 429 is the attacker accounts' work budget at work (their re-executions are charged to
      // them; providers retry): shown in the report, not a problem. Anything else that is not a 200 is.
      const answered = (callbacks.get('200') ?? 0) + (callbacks.get('429') ?? 0);
      if (answered < sent || (callbacks.get('200') ?? 0) === 0) {
        problems.push(`callbacks not all answered 200 or 429 (${callbacks})`);
      }
      if (counters.ended > 0) problems.push(`${counters.ended} live query streams ended during the attack`);
      return { report, serverErrors, problems };
    },
  };
}

interface ScenarioResult {
  id: string;
  name: string;
  judged: boolean;
  quietP99: number;
  attackP99: number;
  ratio: number;
  serverErrors: number;
  victimErrors: number;
  problems: string[];
  failures: string[];
}

async function scenario(spec: Scenario, seeded: Seeded): Promise<ScenarioResult> {
  const { child, base } = await startServer(spec.env);
  const attack = spec.make(base, seeded);
  try {
    const pid = child.pid ?? 0;
    await victimLoad(base, seeded.victims, WARMUP);
    const quiet = await victimLoad(base, seeded.victims, DURATION);
    await attack.open();
    const before = processStats(pid);
    const attacking = attack.run(Date.now() + (WARMUP + DURATION) * 1000);
    await victimLoad(base, seeded.victims, WARMUP);
    // Both processes' CPU while the victim is measured under attack: a saturated server (or load generator) shows here.
    const measuredFrom = { server: processStats(pid).cpu, own: process.cpuUsage(), at: performance.now() };
    const underAttack = await victimLoad(base, seeded.victims, DURATION);
    const measured = {
      seconds: (performance.now() - measuredFrom.at) / 1000,
      server: processStats(pid).cpu - measuredFrom.server,
      own: (({ user, system }) => (user + system) / 1e6)(process.cpuUsage(measuredFrom.own)),
    };
    const outcome = await attacking;
    const after = processStats(pid);

    // A server that answered nothing under attack has no p99 to compare: stalled, the ratio is infinite.
    const ratio = underAttack.answered === 0 ? Infinity : underAttack.p99 / Math.max(1, quiet.p99);
    console.log(`\n### ${spec.name}\n`);
    console.log('| victim | requests/s | p50 ms | p99 ms | errors |');
    console.log('|---|---|---|---|---|');
    for (const [phase, r] of [
      ['quiet', quiet],
      ['under attack', underAttack],
    ] as const) {
      const [p50, p99] = r.answered === 0 ? ['—', '— (no answer)'] : [r.p50, r.p99];
      console.log(`| ${phase} | ${r.rps.toFixed(0)} | ${p50} | ${p99} | ${r.errors} |`);
    }
    console.log(
      `\np99 under attack / quiet p99: ${Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : `∞ (no victim request answered in ${DURATION} s)`}`,
    );
    console.log(
      `server: ${(after.cpu - before.cpu).toFixed(1)} CPU s during the attack phase, peak RSS ${after.peakMb.toFixed(0)} MB; ` +
        `while the victim was measured under attack (${measured.seconds.toFixed(1)} s): server ` +
        `${measured.server.toFixed(1)} CPU s, this load generator ${measured.own.toFixed(1)} CPU s\n`,
    );
    for (const line of outcome.report) console.log(line);
    for (const problem of outcome.problems) console.log(`\nNOT THE ATTACK MEANT: ${problem}`);
    for (const failure of outcome.failures ?? []) console.log(`\nJUDGED: ${failure}`);
    return {
      id: spec.id,
      name: spec.name,
      judged: spec.judged,
      quietP99: quiet.p99,
      attackP99: underAttack.answered === 0 ? Infinity : underAttack.p99,
      ratio,
      failures: outcome.failures ?? [],
      serverErrors: outcome.serverErrors,
      victimErrors: quiet.errors + underAttack.errors,
      problems: outcome.problems,
    };
  } finally {
    await attack.close();
    await stop(child);
    if (spec.after) await withDatabase((app) => spec.after!(app, seeded));
  }
}

/** SIGTERM, and SIGKILL if the server has not exited 15 s later (a backlog must not hold the run up). */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const killed = sleep(15_000).then(() => {
    if (child.exitCode !== null) return;
    console.log('(the server had not exited 15 s after SIGTERM: killed)');
    child.kill('SIGKILL');
  });
  await Promise.race([exited, killed]);
  await exited;
}

/** The run's database opened in this process (no worker) for `work`, then closed. */
async function withDatabase(work: (app: App) => Promise<void>): Promise<void> {
  const app = await createApp(loadConfig({ ...env, LOG_LEVEL: 'silent' }), { worker: false });
  try {
    await work(app);
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  if (hasTaskset) execFileSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });
  // As `npm start` runs it: compiled JavaScript (dist/), built first.
  // BENCH_SKIP_BUILD=1: run the dist/ already there (built by hand, e.g. while a shared tree does not typecheck).
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  }
  await administer(POSTGRES, `create database ${benchDatabase}`);
  const receiver = await startReceiver();
  try {
    const seeded = await seed(receiver);
    console.log(
      `\nvictim: GET /api/v3/get_campaigns (50 campaigns) over ${seeded.victims.length} accounts, ${CONNECTIONS} ` +
        `connections, ${DURATION} s after ${WARMUP} s of warm-up; attacker: one account, ${ATTACKERS} loops of hostile ` +
        `requests; @live: ${LIVE_STREAMS} live queries over ${ACCOUNTS_SHOWN}, each busy campaign starting ` +
        `with ${BUSY_CALL_LOGS} call logs, callbacks at ${CALLBACKS_PER_SECOND}/s; server ` +
        `${hasTaskset ? 'pinned to core 0' : 'not pinned (no taskset)'}; database ` +
        `${POSTGRES ? `PostgreSQL (${benchDatabase} at ${POSTGRES.host})` : 'SQLite (a file)'}`,
    );
    const results: ScenarioResult[] = [];
    // BENCH_ONLY=<regex>: only the cases whose id or name matches (e.g. `@live`, `^fan-out$`, `page-sizes|bodies`).
    const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
    for (const spec of SCENARIOS) {
      if (!only || only.test(spec.id) || only.test(spec.name)) results.push(await scenario(spec, seeded));
    }
    const failedAny = judge(results);
    if (process.env.BENCH_STRICT === '1' && failedAny) {
      throw new Error(
        'a judged case failed: its ratio, its own judgement, a 5xx to a hostile request, a failed victim request, ' +
          'or an attack that was not the one meant',
      );
    }
  } finally {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
    await administer(POSTGRES, `drop database if exists ${benchDatabase} with (force)`);
  }
}

/**
 * The verdicts, as a table; whether any case that counts failed. A full run (DURATION ≥ 5) judges every judged case's
 * ratio against 2×; a short run (the CI smoke run) judges it only past SHORT_RUN_FLOOR_MS, and only the cases not in
 * NOT_YET_JUDGED (those are shown, their verdict in brackets).
 */
function judge(results: ScenarioResult[]): boolean {
  const long = DURATION >= 5;
  console.log(
    `\n| case | quiet p99 ms | p99 under attack ms | ratio | verdict (target ≤ 2×${long ? '' : `, or under attack ≤ ${SHORT_RUN_FLOOR_MS} ms in a short run`}) |`,
  );
  console.log('|---|---|---|---|---|');
  let failedAny = false;
  for (const r of results) {
    const ratioHolds = r.ratio <= 2 || (!long && r.attackP99 <= SHORT_RUN_FLOOR_MS);
    const broken = r.serverErrors > 0 || r.victimErrors > 0 || r.problems.length > 0;
    const passes = (!r.judged || ratioHolds) && r.failures.length === 0 && !broken;
    const counts = long || !NOT_YET_JUDGED.includes(r.id);
    if (counts && !passes) failedAny = true;
    const reasons = [
      ...(r.judged && !ratioHolds ? ['ratio'] : []),
      ...r.failures,
      ...(r.serverErrors > 0 ? [`${r.serverErrors}× 5xx`] : []),
      ...(r.victimErrors > 0 ? [`${r.victimErrors} victim errors`] : []),
      ...r.problems.map((p) => `not the attack meant: ${p}`),
    ];
    const verdict = `${passes ? 'PASS' : `FAIL (${reasons.join('; ')})`}${r.judged ? '' : ', ratio not judged'}`;
    const shown = Number.isFinite(r.ratio) ? `${r.ratio.toFixed(2)}×` : '∞ (stalled)';
    const attackP99 = Number.isFinite(r.attackP99) ? String(r.attackP99) : '— (no answer)';
    console.log(
      `| ${r.id}: ${r.name} | ${r.quietP99} | ${attackP99} | ${shown} | ${counts ? verdict : `(${verdict}; not yet judged in a short run)`} |`,
    );
  }
  return failedAny;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
