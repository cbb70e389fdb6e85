// `npm run seed:demo` fills a database with a demo account that the GraphiQL default query works against unchanged.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect, it } from 'vitest';
import { GRAPHIQL_DEFAULT_QUERY } from '../../src/graphql/server/graphiql.js';
import { DIALECT, startApp, type TestApp } from '../helpers/app.js';
import { tempSqliteFile } from '../helpers/temp-database.js';

const ROOT = join(import.meta.dirname, '../..');
let t: TestApp | undefined;

afterEach(async () => {
  await t?.close();
});

async function seedDemo(databaseUrl: string) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'seed:demo'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
        SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
        PASSWORD_HASH_COST: '10',
        // The port the reader's server listens on: the printed address follows it.
        PORT: '4177',
        GATEWAY: '',
      },
    },
  );
  return stdout;
}

it('creates a demo account that the GraphiQL default query logs in to and lists', async () => {
  const file = tempSqliteFile('gateway-demo');
  t = await startApp(DIALECT === 'sqlite' ? { DATABASE_URL: `sqlite:${file}` } : {}, [], { worker: false });
  const first = await seedDemo(t.databaseUrl);
  expect(first).toContain('demo@example.com');
  expect(first).toContain('demo-password');
  const apiKey = /API key\s+(ck_\S+)/.exec(first)?.[1];
  expect(apiKey).toBeDefined();
  // What a reader needs to sign a callback by hand, and the address their examples start from.
  expect(first).toMatch(/telephony token\s+demo-telephony-auth-token/);
  expect(first).toContain('export GATEWAY=http://127.0.0.1:4177');
  // A server started with another PORT prints its own address: the seed says so, and its examples use $GATEWAY.
  expect(first).toContain('PORT=… npm start prints its own');
  expect(first).toContain('open $GATEWAY/graphql in a browser');
  expect(first).not.toContain('open http://');
  expect(first).toContain(`API_KEY=${apiKey} npm run cli -- callback:send --camp spring-outreach`);
  // Running it again starts over: still one demo account, with a new key.
  const second = await seedDemo(t.databaseUrl);
  expect(/API key\s+(ck_\S+)/.exec(second)?.[1]).not.toBe(apiKey);

  const login = await t.request('POST', '/graphql', {
    body: { query: GRAPHIQL_DEFAULT_QUERY, operationName: 'Login' },
  });
  const token = login.body.data.accountLogin.accessToken as string;
  expect(token).toBeTruthy();
  const campaigns = await t.request('POST', '/graphql', {
    body: { query: GRAPHIQL_DEFAULT_QUERY, operationName: 'Campaigns' },
    token,
  });
  expect(campaigns.body.errors).toBeUndefined();
  const nodes = campaigns.body.data.campaigns.edges.map((e: any) => e.node);
  expect(nodes).toHaveLength(4);
  expect(new Set(nodes.map((n: any) => n.status))).toEqual(new Set(['ACTIVE', 'PAUSED', 'COMPLETED']));

  const more = await t.gql(
    `{ callLogs(first: 100) { edges { node { callId status } } }
       upcomingMeetings { title }
       webhooks { url enabled campaigns { campId } }
       campaign(campId: "spring-outreach") { metrics { totalNumCall totalSpent } textPipeline { goal } } }`,
    {},
    token,
  );
  expect(more.body.errors).toBeUndefined();
  expect(more.body.data.callLogs.edges.length).toBeGreaterThanOrEqual(20);
  expect(new Set(more.body.data.callLogs.edges.map((e: any) => e.node.status)).size).toBeGreaterThan(2);
  expect(more.body.data.upcomingMeetings).toHaveLength(3);
  expect(more.body.data.webhooks).toEqual([
    // Paused: its example URL answers nobody, and an enabled one would log a failed delivery on every retry.
    { url: 'https://hooks.example.com/demo', enabled: false, campaigns: [{ campId: 'spring-outreach' }] },
  ]);
  expect(more.body.data.campaign.metrics.totalSpent).toBeGreaterThan(0);

  const rest = await t.rest('GET', '/get_campaigns', { token });
  expect(rest.status, rest.text).toBe(200);
  expect(rest.body).toHaveLength(4);
}, 30_000);

it("GraphiQL's default document fits the editor: no line longer than 50 characters, the password in view", () => {
  const lines = GRAPHIQL_DEFAULT_QUERY.split('\n');
  expect(lines.filter((line) => line.startsWith('#')).length).toBeGreaterThan(3);
  for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(50);
  expect(lines).toContain('    password: "demo-password"');
});
