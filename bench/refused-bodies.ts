// What a refused body of a hostile shape costs the event loop (issue 52): 100 000-field forms and 60 000-key JSON
// sent in process (app.fetch) to every door that reads them, each timed on its own (median of RUNS), with the status
// and the size of the answer (the time includes building the Request in process and reading its body as text). `tsx bench/refused-bodies.ts`; DATABASE_URL=postgres://… for PostgreSQL.
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/core/config.js';

const RUNS = Number(process.env.RUNS ?? 5);
const FIELDS = 100_000;
const KEYS = 60_000;

const app = await createApp(
  loadConfig({
    DATABASE_URL: process.env.DATABASE_URL ?? 'sqlite::memory:',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0',
    SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'),
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000',
    ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000000',
    LARGE_BODY_MIB_PER_MINUTE: '100000',
    // The handling-time budgets out of the way too: what is measured is one request's cost, not a tenant's minute.
    WORK_BUDGET_MS_PER_MINUTE: '100000000',
    ANONYMOUS_WORK_BUDGET_MS_PER_MINUTE: '100000000',
    PASSWORD_HASH_COST: '10',
  }),
  { worker: false },
);

const post = (path: string, type: string, body: string, headers: Record<string, string> = {}) =>
  app.fetch(
    new Request(`http://127.0.0.1${path}`, { method: 'POST', headers: { 'content-type': type, ...headers }, body }),
    { address: '198.51.100.20' },
  );

const email = `bench-${process.pid}@example.com`;
const signup = await post('/api/v3/signup', 'application/json', JSON.stringify({ email, password: 'bench pass 123' }));
const { apiKey } = (await signup.json()) as { apiKey: string };
const login = await post(
  '/api/v3/login',
  'application/json',
  JSON.stringify({ username: email, password: 'bench pass 123' }),
);
const { access_token: token } = (await login.json()) as { access_token: string };

const form = Array.from({ length: FIELDS }, (_, i) => `f${i}=x`).join('&');
const manyKeys = Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`k${i}`, 1]));
// Every body is built once, before the clock starts.
const GQL = {
  variables: JSON.stringify({ query: 'query { __typename }', variables: manyKeys }),
  extensions: JSON.stringify({ query: 'query { __typename }', extensions: manyKeys }),
};
const gql = (part: 'variables' | 'extensions') => GQL[part];
const KEYS_JSON = JSON.stringify(manyKeys);
const MCP_JSON = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: manyKeys });
const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

const cases: Array<[string, () => Promise<Response>, number]> = [
  // What building the Request in process costs, answered before its body is read: subtract it from the others.
  ['baseline: the form to a path no route serves (404)', () => post('/api/v3/no_such_route', FORM, form), form.length],
  [
    'telephony webhook, made-up key, 100 000-field form',
    () => post('/api/v3/telephony_webhook/ck_madeup/anything', FORM, form, { 'x-telephony-signature': 'x' }),
    form.length,
  ],
  [
    'telephony webhook, real key, 100 000-field form',
    () => post(`/api/v3/telephony_webhook/${apiKey}/anything`, FORM, form, { 'x-telephony-signature': 'x' }),
    form.length,
  ],
  ['login, 100 000-field form', () => post('/api/v3/login', FORM, form), form.length],
  ['signup, 100 000-field form (JSON route)', () => post('/api/v3/signup', FORM, form), form.length],
  ['signup, JSON of 60 000 keys', () => post('/api/v3/signup', JSON_TYPE, KEYS_JSON), KEYS_JSON.length],
  ['/graphql variables of 60 000 keys', () => post('/graphql', JSON_TYPE, gql('variables')), gql('variables').length],
  [
    '/graphql extensions of 60 000 keys',
    () => post('/graphql', JSON_TYPE, gql('extensions')),
    gql('extensions').length,
  ],
  ['/subgraph variables of 60 000 keys', () => post('/subgraph', JSON_TYPE, gql('variables')), gql('variables').length],
  [
    '/mcp message of 60 000 keys',
    () =>
      post('/mcp', JSON_TYPE, MCP_JSON, {
        authorization: `Bearer ${token}`,
        accept: 'application/json, text/event-stream',
      }),
    KEYS_JSON.length,
  ],
];

for (const [name, send, bytes] of cases) {
  const times: number[] = [];
  // CPU time too (the process's, user + system): on a loaded machine wall time mostly measures the wait for a core.
  const cpu: number[] = [];
  let status = 0;
  let answer = 0;
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const response = await send();
    const text = await response.text();
    times.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
    status = response.status;
    answer = Buffer.byteLength(text);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? 0;
  const cpuMedian = cpu[Math.floor(cpu.length / 2)] ?? 0;
  const per100k = (median / bytes) * 100_000;
  console.log(
    `${name.padEnd(52)} ${String(status).padStart(3)}  ${median.toFixed(1).padStart(8)} ms (min ${(times[0] ?? 0).toFixed(1)}), CPU ${cpuMedian.toFixed(1)} ms` +
      `  (${per100k.toFixed(2)} ms per 100 KB of ${(bytes / 1024).toFixed(0)} KiB)  answer ${answer} bytes`,
  );
}
await app.close();
