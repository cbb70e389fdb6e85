// `npm run bench:restarts` (issue 22): two gateway instances on a PostgreSQL cluster and a Redis of this script's own
// (started on free ports in a temporary directory, removed at the end), 10 writers and one live subscriber. Phases:
// quiet, Redis killed (SIGKILL) for OUTAGE seconds and started again, quiet, PostgreSQL stopped for OUTAGE seconds and
// started again, quiet. Prints per phase the requests, their statuses and latency (p50, p90), the time to the first
// success after each service is back, and at the end acknowledged writes against the rows stored and the live events
// the subscriber received against the events committed, per phase; acknowledged call-status callbacks against the
// calls stored, and the call statistics the database keeps against the call logs counted again. Loopback only; bounded
// in time (about 6 × OUTAGE + 20 s). BENCH_STRICT=1 fails on any acknowledged write or call lost, committed event not
// received, or call statistics row that disagrees with the call logs: the short
// version in `npm run bench:smoke` (CI) keeps that guarantee from rotting.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { chmodSync, chownSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, OwnRedis } from '../test/helpers/own-redis.js';
import { campaignData, START_NODE_FLAGS, WORK_BUDGETS_OUT_OF_THE_WAY } from './support.js';

const ROOT = join(import.meta.dirname, '..');
const OUTAGE_S = Number(process.env.OUTAGE ?? 5);
const QUIET_S = Number(process.env.QUIET ?? 4);
const WRITERS = Number(process.env.WRITERS ?? 10);
const dir = mkdtempSync(join(tmpdir(), 'gateway-restarts-'));
chmodSync(dir, 0o755);

/** The auth token the account's telephony is connected with: callbacks are signed with it. */
const CALLBACK_TOKEN = 'restart-bench-auth-token-0123456789';

/** The provider's signature: base64(HMAC-SHA1(auth token, URL + each parameter's name and value, by name)). */
function signCallback(url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((text, name) => text + name + params[name], url);
  return createHmac('sha1', CALLBACK_TOKEN).update(data).digest('base64');
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** PostgreSQL's binaries (Debian's layout), run as the postgres user when this runs as root (initdb refuses root). */
const PG_BIN = (() => {
  const base = '/usr/lib/postgresql';
  const version = readdirSync(base).sort().at(-1);
  if (!version) throw new Error('no PostgreSQL under /usr/lib/postgresql');
  return join(base, version, 'bin');
})();
const asPostgres = (command: string, args: string[]) => {
  const tool = join(PG_BIN, command);
  return process.getuid?.() === 0
    ? execFileSync('runuser', ['-u', 'postgres', '--', tool, ...args])
    : execFileSync(tool, args);
};

class Cluster {
  readonly data = join(dir, 'pg');
  constructor(readonly port: number) {}
  init() {
    execFileSync('mkdir', ['-p', this.data]);
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
      chownSync(this.data, uid, gid);
    }
    asPostgres('initdb', ['-D', this.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  }
  start() {
    asPostgres('pg_ctl', [
      '-D',
      this.data,
      '-w',
      '-l',
      join(this.data, 'log'),
      '-o',
      `-p ${this.port} -k ${this.data} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  }
  stop() {
    asPostgres('pg_ctl', ['-D', this.data, '-w', '-m', 'fast', 'stop']);
  }
  get url() {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }
}

async function startInstance(
  name: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; base: string }> {
  const log = join(dir, `${name}.log`);
  const child = spawn(process.execPath, [...START_NODE_FLAGS, join(ROOT, 'dist/src/main.js')], {
    env: { ...process.env, ...env, PORT: '0' },
    stdio: ['ignore', openSync(log, 'w'), openSync(log, 'a')],
  });
  for (let i = 0; i < 300; i++) {
    const found = /listening on (http:\/\/[^\s"]+)/.exec(readFileSync(log, 'utf8'));
    if (found?.[1]) return { child, base: found[1] };
    await sleep(50);
  }
  throw new Error(`${name} did not start: ${readFileSync(log, 'utf8')}`);
}

interface Outcome {
  at: number;
  ms: number;
  status: number;
  campId: string;
}

async function main() {
  const cluster = new Cluster(await freePort());
  cluster.init();
  cluster.start();
  const redis = await OwnRedis.start();
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const env = {
    DATABASE_URL: cluster.url,
    REDIS_URL: `redis://127.0.0.1:${redis.port}`,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
    PASSWORD_HASH_COST: '10',
    RATE_LIMIT_PER_MINUTE: '1000000',
    ...WORK_BUDGETS_OUT_OF_THE_WAY,
    DATABASE_TIMEOUT_SECONDS: '1',
    LOG_LEVEL: 'info',
  };
  const instances = [await startInstance('a', env), await startInstance('b', env)];
  const json = { 'content-type': 'application/json' };
  const [a, b] = instances.map((instance) => instance.base) as [string, string];
  const signup = await fetch(`${a}/api/v3/signup`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email: 'r@example.com', password: 'restart password 1' }),
  });
  const { apiKey } = (await signup.json()) as { apiKey: string };
  const login = await fetch(`${a}/api/v3/login`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ username: 'r@example.com', password: 'restart password 1' }),
  });
  const { access_token: token } = (await login.json()) as { access_token: string };
  const auth = { ...json, authorization: `Bearer ${token}` };
  await fetch(`${a}/api/v3/update_campaign`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ campId: 'watched', campaignModelData: campaignData() }),
  });
  // Call-status callbacks (a call's first and its last), signed as the provider signs them: the call statistics the
  // database keeps from them must agree with the call logs after the outages.
  await fetch(`${a}/api/v3/update_telephony`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      telephonyAccountSid: 'AC0123456789',
      telephonyAuthToken: CALLBACK_TOKEN,
      telephonyPhoneNumber: '+14155550100',
    }),
  });

  // One live subscriber on instance B, counting the events of the watched campaign.
  const seen = new Set<string>();
  const abort = new AbortController();
  void (async () => {
    const response = await fetch(`${b}/graphql`, {
      method: 'POST',
      headers: { ...auth, accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { campaignEvents(campId: "watched") { id } }' }),
      signal: abort.signal,
    });
    const decoder = new TextDecoder();
    const reader = response.body?.getReader();
    let text = '';
    for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
      text += decoder.decode(read.value, { stream: true });
      const lines = text.split('\n');
      text = lines.pop() ?? '';
      for (const line of lines) for (const id of line.matchAll(/"id":"(evt_[^"]+)"/g)) seen.add(id[1] ?? '');
    }
  })().catch(() => undefined);
  // The stream is live once it has received an event: one write on the watched campaign, awaited on the subscriber
  // (events committed before the subscription was registered were never its to deliver; the short CI run started
  // its writers before that and counted two of them as lost).
  for (let attempt = 0; attempt < 40 && seen.size === 0; attempt++) {
    await fetch(`${a}/api/v3/update_campaign`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        campId: 'watched',
        campaignModelData: { ...campaignData(), title: `subscribed ${attempt}?` },
      }),
    });
    for (let i = 0; i < 10 && seen.size === 0; i++) await sleep(50);
  }
  if (seen.size === 0) {
    for (const { child } of instances) child.kill('SIGKILL');
    await redis.kill();
    cluster.stop();
    throw new Error('the subscriber on instance B received nothing in 20 s: it is not subscribed');
  }

  const started = Date.now();
  const startedAt = started;
  const outcomes: Outcome[] = [];
  let stop = false;
  let sequence = 0;
  const writers = Array.from({ length: WRITERS }, async (_, writer) => {
    while (!stop) {
      const campId = `w${writer}-${(sequence += 1)}`;
      const target = writer % 2 === 0 ? a : b;
      const t0 = Date.now();
      // Every other write changes the watched campaign (an event for the subscriber); the rest create campaigns.
      const body =
        sequence % 2 === 0
          ? { campId: 'watched', campaignModelData: { ...campaignData(), title: campId } }
          : { campId, campaignModelData: campaignData() };
      let status = 0;
      try {
        const response = await fetch(`${target}/api/v3/update_campaign`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        status = response.status;
        await response.arrayBuffer();
      } catch {
        status = 0;
      }
      outcomes.push({ at: t0 - started, ms: Date.now() - t0, status, campId: body.campId });
      if (status !== 200) await sleep(50);
    }
  });

  // One more writer sends call-status callbacks: each call rings, then ends with a duration and a price.
  const callbacks: Array<{ sid: string; status: number }> = [];
  const callbackWriter = (async () => {
    for (let call = 0; !stop; call++) {
      const sid = `CA${String(call).padStart(6, '0')}`;
      const steps: Array<Record<string, string>> = [
        { CallSid: sid, CallStatus: 'ringing' },
        { CallSid: sid, CallStatus: 'completed', CallDuration: String(call % 300), Price: `-0.0${call % 10}5` },
      ];
      for (const params of steps) {
        const target = call % 2 === 0 ? a : b;
        const path = `/api/v3/telephony_webhook/${apiKey}/watched`;
        let status = 0;
        try {
          const response = await fetch(`${target}${path}`, {
            method: 'POST',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              'x-telephony-signature': signCallback(`${target}${path}`, params),
            },
            body: new URLSearchParams(params).toString(),
            signal: AbortSignal.timeout(10_000),
          });
          status = response.status;
          await response.arrayBuffer();
        } catch {
          status = 0;
        }
        callbacks.push({ sid, status });
        if (status !== 200) await sleep(50);
      }
    }
  })();

  const phases: Array<[string, number, number]> = [];
  const phase = async (name: string, work: () => Promise<void>) => {
    const from = Date.now() - started;
    await work();
    phases.push([name, from, Date.now() - started]);
  };
  let redisBack = 0;
  let postgresBack = 0;
  await phase('quiet', () => sleep(QUIET_S * 1000));
  await phase('Redis killed', async () => {
    await redis.kill();
    await sleep(OUTAGE_S * 1000);
  });
  await phase('Redis back', async () => {
    await redis.start();
    redisBack = Date.now() - started;
    await sleep(QUIET_S * 1000);
  });
  await phase('PostgreSQL stopped', async () => {
    cluster.stop();
    await sleep(OUTAGE_S * 1000);
  });
  await phase('PostgreSQL back', async () => {
    cluster.start();
    postgresBack = Date.now() - started;
    await sleep(QUIET_S * 1000);
  });
  stop = true;
  await Promise.all([...writers, callbackWriter]);
  await sleep(1000);
  abort.abort();

  const percentile = (values: number[], p: number) =>
    [...values].sort((x, y) => x - y)[Math.floor(p * values.length)] ?? 0;
  console.log(`\n${WRITERS} writers over two instances; outages of ${OUTAGE_S} s\n`);
  console.log('| phase | requests | statuses | p50 ms | p90 ms | max ms |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, from, to] of phases) {
    const inPhase = outcomes.filter((o) => o.at >= from && o.at < to);
    const statuses = new Map<number, number>();
    for (const o of inPhase) statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1);
    const ms = inPhase.map((o) => o.ms);
    console.log(
      `| ${name} | ${inPhase.length} | ${[...statuses].map(([s, n]) => `${s || 'no answer'}: ${n}`).join(', ')} | ` +
        `${percentile(ms, 0.5)} | ${percentile(ms, 0.9)} | ${Math.max(0, ...ms)} |`,
    );
  }
  const firstOkAfter = (t: number) => {
    const ok = outcomes
      .filter((o) => o.status === 200 && o.at + o.ms >= t)
      .sort((x, y) => x.at + x.ms - (y.at + y.ms))[0];
    return ok ? `${ok.at + ok.ms - t} ms` : 'none';
  };
  console.log(
    `\nfirst success after Redis was back: ${firstOkAfter(redisBack)}; after PostgreSQL was back: ${firstOkAfter(postgresBack)}`,
  );

  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  const acknowledged = outcomes.filter((o) => o.status === 200 && o.campId !== 'watched').map((o) => o.campId);
  const stored = await client.query<{ n: string }>('select count(*) as n from campaigns where camp_id = any($1)', [
    acknowledged,
  ]);
  const events = await client.query<{ event_id: string; created_at: string }>(
    "select event_id, created_at from events where camp_id = 'watched' and created_at >= $1",
    [new Date(startedAt).toISOString()],
  );
  const acknowledgedCalls = [...new Set(callbacks.filter((c) => c.status === 200).map((c) => c.sid))];
  const storedCalls = await client.query<{ n: string }>('select count(*) as n from call_logs where call_id = any($1)', [
    acknowledgedCalls,
  ]);
  // The counters the database keeps (migrations/0020_call_stats.ts) against the call logs counted again: rows that
  // differ either way, per UTC hour of the account and per campaign.
  const counted = (key: string) =>
    `select ${key}, count(*) as calls, sum(case when status = 'completed' then 1 else 0 end) as completed, ` +
    'sum(coalesce(duration_seconds, 0)) as seconds, ' +
    'sum(case when cost >= 0 and cost <= 1e12 then cast(round(cost * 1000000) as bigint) else 0 end) as spent_micros ' +
    `from call_logs group by 1`;
  const kept = (table: string, key: string) =>
    `select ${key}, calls, completed, seconds, spent_micros from ${table} where calls <> 0`;
  const differing = async (table: string, key: string, recountKey: string) => {
    const { rows } = await client.query<{ n: string }>(
      `select count(*) as n from ((${kept(table, key)} except ${counted(recountKey)}) ` +
        `union all (${counted(recountKey)} except ${kept(table, key)})) d`,
    );
    return Number(rows[0]?.n);
  };
  const statsOff =
    (await differing('account_call_stats_hours', 'hour', 'substr(started_at, 1, 13)')) +
    (await differing('campaign_call_totals', 'camp_id', 'camp_id'));
  await client.end();
  const lostCalls = acknowledgedCalls.length - Number(storedCalls.rows[0]?.n);
  console.log(
    `acknowledged calls: ${acknowledgedCalls.length}; stored: ${storedCalls.rows[0]?.n}; lost: ${lostCalls}; ` +
      `call statistics rows that disagree with the call logs: ${statsOff}`,
  );
  const lostWrites = acknowledged.length - Number(stored.rows[0]?.n);
  console.log(`acknowledged new campaigns: ${acknowledged.length}; stored: ${stored.rows[0]?.n}; lost: ${lostWrites}`);
  // Per phase, by when each event was committed: how many the subscriber on the other instance received.
  console.log('\n| phase | events committed | received live on instance B | missing |');
  console.log('|---|---|---|---|');
  let missing = 0;
  for (const [name, from, to] of phases) {
    const inPhase = events.rows.filter((row) => {
      const at = Date.parse(row.created_at) - started;
      return at >= from && (at < to || name === phases.at(-1)?.[0]);
    });
    const received = inPhase.filter((row) => seen.has(row.event_id)).length;
    missing += inPhase.length - received;
    console.log(`| ${name} | ${inPhase.length} | ${received} | ${inPhase.length - received} |`);
  }
  const received = events.rows.filter((row) => seen.has(row.event_id)).length;
  console.log(
    `\nevents of the watched campaign committed: ${events.rows.length}; received live on instance B: ${received}`,
  );
  const failed =
    lostWrites > 0 ||
    missing > 0 ||
    events.rows.length === 0 ||
    lostCalls > 0 ||
    statsOff > 0 ||
    acknowledgedCalls.length === 0;
  if (process.env.BENCH_STRICT === '1' && failed) {
    console.error(
      `FAIL: ${lostWrites} acknowledged writes lost, ${missing} committed events not received, ${lostCalls} calls ` +
        `lost, ${statsOff} call statistics rows off`,
    );
    process.exitCode = 1;
  }

  for (const { child } of instances) child.kill('SIGTERM');
  await Promise.all(instances.map(({ child }) => new Promise((resolve) => child.once('exit', resolve))));
  await redis.kill();
  cluster.stop();
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));
