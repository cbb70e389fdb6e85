// The hostile catalogue of issue 52 as cases of `npm run bench:isolation` (bench/isolation.ts runs them): each an
// attack on the shared event loop by one tenant or one anonymous address, judged by another tenant's p99 (and, where
// the attack aims elsewhere, by what it must not take from the others: their callbacks, their login, a registration).
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../src/app.js';
import { telephonySignature } from '../src/security/telephony-signature.js';
import { Answers, type Attack, AUTH_TOKEN, hammer, type HostileRequest, paced, sleep, Tally } from './attack.js';
import { callLogRow, campaignData, insertCallLogs } from './support.js';

const SHORT = Number(process.env.DURATION ?? 8) < 5;
const ATTACKERS = Number(process.env.ATTACKERS ?? 4);

/** Page sizes: campaigns of the paging account, each with this many call logs (n = m = 100 in the document). */
const PAGE_CAMPAIGNS = 100;
const PAGE_CALL_LOGS = 100;
/** Long texts: call logs with a transcript of this many characters each. */
const LONG_TEXT_LOGS = 20;
const LONG_TEXT_CHARS = 400_000;
/** Fan-out: webhooks on the campaign (the most an account may have), messages in each social delivery. */
const FAN_WEBHOOKS = 50;
const FAN_MESSAGES = 1000;
/** Failing signatures: the attacker's failing callbacks a minute, and the honest tenant's signed ones a second. */
const FAILING_CALLBACKS_PER_MINUTE = Number(process.env.FAILING_CALLBACKS_PER_MINUTE ?? 300);
const HONEST_CALLBACKS_PER_SECOND = Number(process.env.HONEST_CALLBACKS_PER_SECOND ?? 10);

/** A signed-in account: its token, id and API key. */
export interface BenchAccount {
  id: string;
  token: string;
  apiKey: string;
}

/** What the catalogue's cases need seeded. */
export interface CatalogueSeed {
  /** PAGE_CAMPAIGNS campaigns with PAGE_CALL_LOGS call logs each. */
  pages: BenchAccount;
  /** LONG_TEXT_LOGS call logs with transcripts of LONG_TEXT_CHARS characters. */
  texts: BenchAccount;
  /** Campaign `fan` with FAN_WEBHOOKS webhooks on it (to the receiver), social connected. */
  fan: BenchAccount;
  /** Telephony connected with AUTH_TOKEN, campaign `honest`: the tenant whose signed callbacks must get through. */
  honest: BenchAccount;
  /** Telephony connected with AUTH_TOKEN, campaign `forged`: the account whose callbacks the attacker forges. */
  forged: BenchAccount;
}

/** Posts JSON (or a string) in process; throws unless 200. */
export type SeedCall = (
  path: string,
  token: string | null,
  body: unknown,
  headers?: Record<string, string>,
) => Promise<Record<string, unknown>>;

async function account(call: SeedCall, label: string): Promise<BenchAccount> {
  const email = `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const signup = await call('/api/v3/signup', null, { email, password: 'attacker password' });
  const login = await call('/api/v3/login', null, { username: email, password: 'attacker password' });
  return { id: signup.id as string, token: login.access_token as string, apiKey: signup.apiKey as string };
}

async function campaign(call: SeedCall, owner: BenchAccount, campId: string): Promise<void> {
  await call('/api/v3/update_campaign', owner.token, {
    campId,
    campaignModelData: { ...campaignData(), title: `Campaign ${campId}`, script: 'Hello, this is a bench script.' },
  });
}

async function telephony(call: SeedCall, owner: BenchAccount): Promise<void> {
  await call('/api/v3/update_telephony', owner.token, {
    telephonyAccountSid: 'AC0123456789',
    telephonyAuthToken: AUTH_TOKEN,
    telephonyPhoneNumber: '+14155550100',
  });
}

const logRow = (owner: BenchAccount, campId: string, n: number, now: number) =>
  callLogRow({
    accountId: owner.id,
    campId,
    callId: `CA${campId.replace(/\W/g, '')}${String(n).padStart(6, '0')}`,
    status: 'completed',
    at: new Date(now - n * 60_000).toISOString(),
    durationSeconds: 60,
    cost: 0.25,
  });

/** Seeds the catalogue's accounts through the app (`call`) and, for the bulk rows, straight into the tables. */
export async function seedCatalogue(app: App, call: SeedCall, receiverUrl: string): Promise<CatalogueSeed> {
  const now = Date.now();
  const pages = await account(call, 'pages');
  const logs = [];
  for (let c = 0; c < PAGE_CAMPAIGNS; c++) {
    await campaign(call, pages, `page-${c}`);
    for (let n = 0; n < PAGE_CALL_LOGS; n++) logs.push(logRow(pages, `page-${c}`, n, now));
  }
  await insertCallLogs(app, logs);

  const texts = await account(call, 'texts');
  await campaign(call, texts, 'texts');
  const words = 'the caller asked about the appointment and the agent answered politely ';
  const transcript = words.repeat(Math.ceil(LONG_TEXT_CHARS / words.length)).slice(0, LONG_TEXT_CHARS);
  await insertCallLogs(
    app,
    Array.from({ length: LONG_TEXT_LOGS }, (_, n) => ({ ...logRow(texts, 'texts', n, now), transcript })),
  );

  const fan = await account(call, 'fan');
  await campaign(call, fan, 'fan');
  await call('/api/v3/add_social_info', fan.token, {
    pageId: 'page',
    accessToken: 'access-token-123',
    verifyToken: 'verify-token-123',
  });
  for (let i = 0; i < FAN_WEBHOOKS; i++) {
    const webhook = await call('/api/v3/create_webhook', fan.token, {
      url: `${receiverUrl}/hook/${i}`,
      events: ['social.message.received'],
    });
    await call(`/api/v3/add_webhook_campaingn?webhookId=${String(webhook.webhookId)}&campaignId=fan`, fan.token, {});
  }

  const honest = await account(call, 'honest');
  await telephony(call, honest);
  await campaign(call, honest, 'honest');
  const forged = await account(call, 'forged');
  await telephony(call, forged);
  await campaign(call, forged, 'forged');
  return { pages, texts, fan, honest, forged };
}

/** The fan-out case's webhook receiver (in this process, on the load generator's core): answers 200, counts. */
export interface Receiver {
  url: string;
  received(): number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  let received = 0;
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = { 'content-type': 'application/json' };
const form = { 'content-type': 'application/x-www-form-urlencoded' };
const bearer = (token: string) => ({ ...json, authorization: `Bearer ${token}` });
const graphql = (query: string, token?: string, variables?: Record<string, unknown>): RequestInit => ({
  method: 'POST',
  headers: token ? bearer(token) : json,
  body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
});
/** `n` aliases a0…a(n-1) of one selection. */
const aliased = (n: number, selection: string) =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${selection}`).join(' ')} }`;
/** A form of `fields` fields (`f0=0&f1=1…`). */
const formOf = (fields: number) => Array.from({ length: fields }, (_, i) => `f${i}=${i}`).join('&');

/** An attack of loops sending requests back to back (`hammer`), reported as the table of answers by kind. */
function loopAttack(
  heading: string,
  loops: number,
  pick: (i: number) => HostileRequest,
  options: { waitOn429?: boolean; expect?: string[] } = {},
): Attack {
  return {
    open: async () => undefined,
    close: async () => undefined,
    async run(until) {
      const answers = new Answers();
      await hammer('', until, loops, pick, answers, options);
      const report = [...answers.table(heading), '', `5xx answers: ${answers.serverErrors}`];
      const expected = options.expect ?? ['200', '201', '400', '401', '403', '404', '413', '422', '429'];
      const meant = answers.count(...expected);
      const problems = meant === 0 ? [`no hostile request was answered (${[...answers.values()].join('; ')})`] : [];
      return { report, serverErrors: answers.serverErrors, problems };
    },
  };
}

/** A case of the catalogue: what `bench/isolation.ts` needs to run it. */
export interface CatalogueCase {
  /** Short name: BENCH_ONLY matches it, NOT_YET_JUDGED lists it. */
  id: string;
  name: string;
  /** Settings of the server for this case (otherwise the defaults). */
  env: Record<string, string>;
  /** Whether the victim's p99 ratio is judged (the failing-signatures case is judged by its 429 count instead). */
  judged: boolean;
  make(base: string, seed: CatalogueSeed, receiver: Receiver): Attack;
  /** After the case's server has exited, on the run's database (the fan-out case drops its pending deliveries). */
  after?(app: App, seed: CatalogueSeed): Promise<void>;
}

const INTROSPECTION =
  '__schema { types { name fields { name args { name type { name } } type { name kind ofType { name } } } } }';

export const CATALOGUE: CatalogueCase[] = [
  {
    id: 'page-sizes',
    name:
      `page sizes: campaigns(first: 100) × callLogs(first: 100) with campaign { title }, signed in, ${ATTACKERS} ` +
      `loops, an account of ${PAGE_CAMPAIGNS} campaigns × ${PAGE_CALL_LOGS} call logs`,
    env: {},
    judged: true,
    make: (base, seed) => {
      const query =
        'query ($n: Int, $m: Int) { campaigns(first: $n) { edges { node { callLogs(first: $m) { edges { node { ' +
        'callId campaign { title } } } } } } } }';
      const init = graphql(query, seed.pages.token, { n: 100, m: 100 });
      return loopAttack('page sizes', ATTACKERS, () => ['n = m = 100', `${base}/graphql`, init]);
    },
  },
  {
    id: 'call-stats',
    name:
      `call statistics: 5 aliases of a year of daily callStats in Asia/Kolkata (a half-hour zone: every day's edge ` +
      `hour read from the call logs too), just within the cost limit, signed in, ${ATTACKERS} loops`,
    env: {},
    judged: true,
    make: (base, seed) => {
      const year =
        'callStats(from: "2025-12-01T00:00:00Z", to: "2026-12-01T00:00:00Z", timeZone: "Asia/Kolkata") ' +
        '{ buckets { localStart calls completed spend } totals { calls spend } }';
      const init = graphql(`{ ${Array.from({ length: 5 }, (_, i) => `y${i}: ${year}`).join(' ')} }`, seed.pages.token);
      return loopAttack('call statistics', ATTACKERS, () => ['5 × a year of days', `${base}/graphql`, init]);
    },
  },
  {
    id: 'list-filters',
    name:
      `filtered lists: 30 aliases of call-log pages whose filters no index of their order serves (a number called, ` +
      `sorted by duration; 50 campaigns with a duration range, sorted by cost): each reads its 4 000-row budget, ` +
      `within the cost limit, signed in, ${ATTACKERS} loops`,
    env: {},
    judged: true,
    make: (base, seed) => {
      const campIds = JSON.stringify(Array.from({ length: 50 }, (_, c) => `page-${c}`));
      const pages = [
        'callLogs(first: 100, orderBy: { field: DURATION }, filter: { toNumber: "+19995550000" })',
        `callLogs(first: 100, orderBy: { field: COST }, filter: { campIds: ${campIds}, duration: { min: 100000 } })`,
      ];
      const aliases = Array.from(
        { length: 30 },
        (_, i) => `f${i}: ${pages[i % 2]} { edges { node { callId } } pageInfo { endCursor } }`,
      );
      const init = graphql(`{ ${aliases.join(' ')} }`, seed.pages.token);
      return loopAttack('filtered lists', ATTACKERS, () => ['30 × a budget-long walk', `${base}/graphql`, init]);
    },
  },
  {
    id: 'introspection',
    name: 'introspection: 30 aliases of __schema { types { fields { args … } } }, anonymous, 2 loops',
    env: {},
    judged: true,
    make: (base) => {
      const init = graphql(aliased(30, INTROSPECTION));
      return loopAttack('introspection', 2, () => ['30 × __schema', `${base}/graphql`, init]);
    },
  },
  {
    id: 'bodies',
    name:
      `bodies: a 0.9 MB form of 80 000 fields (within the 1 MiB limit: read and counted) to a made-up key's telephony webhook, GraphQL variables of 60 000 ` +
      `keys, an 80 000-field login form; anonymous, ${ATTACKERS} loops`,
    env: {},
    judged: true,
    make: (base) => {
      const fields = formOf(80_000);
      const keys = `{"query":"query { __typename }","variables":{${Array.from({ length: 60_000 }, (_, i) => `"k${i}":${i}`).join(',')}}}`;
      const requests: HostileRequest[] = [
        [
          'telephony webhook, 80 000 fields',
          `${base}/api/v3/telephony_webhook/sk_madeup0123456789abcdef/anything`,
          { method: 'POST', headers: form, body: fields },
        ],
        ['GraphQL variables, 60 000 keys', `${base}/graphql`, { method: 'POST', headers: json, body: keys }],
        ['login form, 80 000 fields', `${base}/api/v3/login`, { method: 'POST', headers: form, body: fields }],
      ];
      return loopAttack('body', ATTACKERS, (i) => requests[i % requests.length]!);
    },
  },
  {
    id: 'failing-signatures',
    name:
      `failing signatures: ${FAILING_CALLBACKS_PER_MINUTE} failing callbacks a minute from one address (a made-up ` +
      `key; an account signed with a wrong token), and another tenant's signed callbacks from the same address at ` +
      `${HONEST_CALLBACKS_PER_SECOND}/s (judged: none of those refused 429)`,
    env: {},
    judged: false,
    make: (base, seed) => ({
      open: async () => undefined,
      close: async () => undefined,
      async run(until) {
        const answers = new Answers();
        const prefix = `CA${Date.now().toString(36)}`;
        const callback = async (kind: string, owner: string, campId: string, token: string, sid: string) => {
          const path = `/api/v3/telephony_webhook/${owner}/${campId}`;
          const params = { CallSid: sid, CallStatus: 'completed', CallDuration: '30', Direction: 'outbound-api' };
          try {
            const response = await fetch(`${base}${path}`, {
              method: 'POST',
              headers: { ...form, 'x-telephony-signature': telephonySignature(token, `${base}${path}`, params) },
              body: new URLSearchParams(params).toString(),
              signal: AbortSignal.timeout(10_000),
            });
            await answers.read(kind, response);
          } catch (error) {
            answers.note(kind, error instanceof Error ? error.name : 'error');
          }
        };
        const failing = paced(until, 60_000 / FAILING_CALLBACKS_PER_MINUTE, (i) =>
          i % 2 === 0
            ? callback('failing: made-up key', 'sk_madeup0123456789abcdef', 'x', AUTH_TOKEN, `${prefix}f${i}`)
            : callback('failing: wrong token', seed.forged.apiKey, 'forged', 'wrong-token', `${prefix}f${i}`),
        );
        const honest = paced(until, 1000 / HONEST_CALLBACKS_PER_SECOND, (i) =>
          callback("another tenant's, signed", seed.honest.apiKey, 'honest', AUTH_TOKEN, `${prefix}h${i}`),
        );
        await Promise.all([failing, honest]);
        const honestAnswers = answers.get("another tenant's, signed") ?? new Tally();
        const refused = honestAnswers.get('429') ?? 0;
        const sent = [...honestAnswers.values()].reduce((a, b) => a + b, 0);
        const report = [
          ...answers.table('callback'),
          '',
          `another tenant's signed callbacks refused 429: ${refused} of ${sent}`,
        ];
        const failures = refused > 0 ? [`${refused} of ${sent} of another tenant's signed callbacks got 429`] : [];
        const problems = (honestAnswers.get('200') ?? 0) + refused === 0 ? ['no signed callback was answered'] : [];
        return { report, serverErrors: answers.serverErrors, problems, failures };
      },
    }),
  },
  {
    id: 'long-texts',
    name:
      `long texts: callLogs(first: 100) over ${LONG_TEXT_LOGS} call logs of ${LONG_TEXT_CHARS / 1000} 000-character ` +
      'transcripts, callId alone and with transcript in turn, signed in, 3 loops',
    env: {},
    judged: true,
    make: (base, seed) => {
      const requests: HostileRequest[] = [
        [
          'callLogs(first: 100) { callId }',
          `${base}/graphql`,
          graphql('{ callLogs(first: 100) { edges { node { callId } } } }', seed.texts.token),
        ],
        [
          'callLogs(first: 100) { callId transcript }',
          `${base}/graphql`,
          graphql('{ callLogs(first: 100) { edges { node { callId transcript } } } }', seed.texts.token),
        ],
      ];
      return loopAttack('long texts', 3, (i) => requests[i % requests.length]!);
    },
  },
  {
    id: 'costly-documents',
    name:
      'costly valid documents: 30 aliases of campaigns(first: n) { campId title script }, n the largest ≤ 100 the ' +
      'cost limit lets through, signed in (100 campaigns), 4 loops',
    env: {},
    judged: true,
    make: (base, seed) => {
      const documentOf = (first: number) =>
        graphql(aliased(30, `campaigns(first: ${first}) { edges { node { campId title script } } }`), seed.pages.token);
      let first = 100;
      let init = documentOf(first);
      const attack = loopAttack('costly documents', 4, () => [
        `30 × campaigns(first: ${first})`,
        `${base}/graphql`,
        init,
      ]);
      return {
        ...attack,
        // Valid documents: the page size comes down until the document is no longer refused (by the cost limit).
        async open() {
          for (; first > 1; first -= first > 20 ? 5 : 1) {
            init = documentOf(first);
            const response = await fetch(`${base}/graphql`, init);
            await response.arrayBuffer();
            if (response.status === 200) return;
          }
        },
      };
    },
  },
  {
    id: 'registrations',
    name:
      `registrations: dynamic client registrations at /oauth/register from one address as fast as allowed, ` +
      `${ATTACKERS} loops (judged too: one from another address meanwhile is registered)`,
    env: {},
    judged: true,
    make: (base) => {
      const body = JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/callback'], client_name: 'Bench agent' });
      const attack = loopAttack(
        'registration',
        ATTACKERS,
        () => ['POST /oauth/register', `${base}/oauth/register`, { method: 'POST', headers: json, body }],
        { waitOn429: true },
      );
      return {
        ...attack,
        async run(until) {
          // Halfway through the attack, a registration from another loopback address (127.0.0.2).
          const other = sleep((until - Date.now()) / 2).then(() => registerFrom(base, '127.0.0.2', body));
          const [outcome, status] = await Promise.all([attack.run(until), other]);
          outcome.report.push(`a registration from another address (127.0.0.2) during the attack: ${status}`);
          if (status !== '201') {
            (outcome.failures ??= []).push(`a registration from another address was answered ${status}`);
          }
          return outcome;
        },
      };
    },
  },
  {
    id: 'login-lockout',
    name:
      `login lockout through a gateway (TRUST_PROXY=1): wrong-password logins for the victim's e-mail from many ` +
      `X-Forwarded-For addresses, ${ATTACKERS} loops (judged too: the victim logs in from its own address meanwhile)`,
    env: { TRUST_PROXY: '1' },
    judged: true,
    make: (base) => {
      const email = `lockout-${Date.now()}@example.com`;
      const password = 'the victim password';
      const login = (pass: string, from: string): RequestInit => ({
        method: 'POST',
        headers: { ...json, 'x-forwarded-for': from },
        body: JSON.stringify({ username: email, password: pass }),
      });
      const attack = loopAttack('login', ATTACKERS, (i) => [
        'wrong password, a new address',
        `${base}/api/v3/login`,
        login('wrong password', `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`),
      ]);
      return {
        ...attack,
        // The victim signs up through the server (its password hashed at the server's default cost, as users' are).
        async open() {
          const response = await fetch(`${base}/api/v3/signup`, {
            method: 'POST',
            headers: { ...json, 'x-forwarded-for': '198.51.100.7' },
            body: JSON.stringify({ email, password }),
          });
          if (response.status !== 200) throw new Error(`the lockout victim's sign-up: ${await response.text()}`);
        },
        async run(until) {
          const victim = new Tally();
          let victimRefusal = '';
          const logins = paced(until, SHORT ? 250 : 500, async () => {
            try {
              const response = await fetch(`${base}/api/v3/login`, {
                ...login(password, '198.51.100.7'),
                signal: AbortSignal.timeout(10_000),
              });
              const text = await response.text();
              if (response.status !== 200 && !victimRefusal) victimRefusal = text.slice(0, 200);
              victim.note(String(response.status));
            } catch (error) {
              victim.note(error instanceof Error ? error.name : 'error');
            }
          });
          const [outcome] = await Promise.all([attack.run(until), logins]);
          outcome.report.push(`the victim's own logins (from 198.51.100.7) during the attack: ${victim}`);
          if (victimRefusal) outcome.report.push(`the first refusal of the victim's login: ${victimRefusal}`);
          const total = [...victim.values()].reduce((a, b) => a + b, 0);
          const refused = total - (victim.get('200') ?? 0);
          if (refused > 0) (outcome.failures ??= []).push(`${refused} of the victim's ${total} logins were refused`);
          return outcome;
        },
      };
    },
  },
  {
    id: 'fan-out',
    name:
      `fan-out: social deliveries of ${FAN_MESSAGES} messages each, back to back from one address, to a campaign ` +
      `with ${FAN_WEBHOOKS} webhooks (a receiver on this process's core)`,
    env: { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' },
    judged: true,
    // Its webhook deliveries left pending would be delivered by the next cases' servers, weighing on their victims.
    after: async (app, seed) => {
      await app.database.db.deleteFrom('webhook_deliveries').where('account_id', '=', seed.fan.id).execute();
    },
    make: (base, seed, receiver) => {
      let before = 0;
      const prefix = `m${Date.now().toString(36)}`;
      const attack = loopAttack('social delivery', 1, (i) => [
        `${FAN_MESSAGES} messages`,
        `${base}/api/v3/social_webhook/${seed.fan.apiKey}/fan`,
        {
          method: 'POST',
          headers: json,
          body: JSON.stringify({
            object: 'page',
            entry: [
              {
                messaging: Array.from({ length: FAN_MESSAGES }, (_, n) => ({
                  sender: { id: 's' },
                  message: { mid: `${prefix}-${i}-${n}`, text: 'hello' },
                })),
              },
            ],
          }),
        },
      ]);
      return {
        ...attack,
        open: async () => {
          before = receiver.received();
        },
        async run(until) {
          const outcome = await attack.run(until);
          outcome.report.push(`webhook deliveries received during the case: ${receiver.received() - before}`);
          return outcome;
        },
      };
    },
  },
];

/** One registration from `localAddress` (a loopback address of its own): its status, or the error's name. */
function registerFrom(base: string, localAddress: string, body: string): Promise<string> {
  const url = new URL(`${base}/oauth/register`);
  return new Promise((resolve) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress,
        headers: { ...json, host: url.host },
        timeout: 10_000,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(String(response.statusCode)));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', (error) => resolve(error.message));
    request.end(body);
  });
}
