// The CLI takes secrets from the environment, so that npm, which prints a script's command line before running it,
// prints none: `user:create` reads ACCOUNT_PASSWORD; `callback:send` reads the account's API key from API_KEY and
// signs a call-status callback with the telephony token the account stored, as the provider would.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHttpServer, listen } from '../../src/http/server.js';
import { DIALECT, startApp, type TestApp } from '../helpers/app.js';

const ROOT = join(import.meta.dirname, '../..');
let t: TestApp;
let http: ReturnType<typeof createHttpServer>;
let gateway: string;
// A file both the app and the CLI open (on PostgreSQL, the test's database).
const folder = mkdtempSync(join(tmpdir(), 'gateway-cli-'));

beforeAll(async () => {
  const file = join(folder, 'campaigns.db');
  t = await startApp(DIALECT === 'sqlite' ? { DATABASE_URL: `sqlite:${file}` } : {}, [], { worker: false });
  http = createHttpServer(t.app);
  const { port } = await listen(http.server, 0, '127.0.0.1');
  gateway = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  http.server.closeAllConnections();
  await new Promise<void>((resolve) => http.server.close(() => resolve()));
  await t.close();
  rmSync(folder, { recursive: true, force: true });
});

/** `npm run cli -- …` as a reader runs it (npm's own echo included), with these variables. */
function npmCli(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      'npm',
      ['run', 'cli', '--', ...args],
      {
        cwd: ROOT,
        timeout: 30_000,
        env: {
          ...process.env,
          DATABASE_URL: t.databaseUrl,
          JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
          SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
          PASSWORD_HASH_COST: '10',
          ...env,
        },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, output: stdout + stderr }),
    );
  });
}

it('user:create takes the password from ACCOUNT_PASSWORD: npm prints no password', async () => {
  const password = 'a password npm must not print';
  const created = await npmCli(['user:create', '--email', 'cli-owner@example.com'], { ACCOUNT_PASSWORD: password });
  expect(created.code, created.output).toBe(0);
  expect(created.output).toMatch(/API key \(shown once\): ck_/);
  expect(created.output).not.toContain(password);
  const login = await t.rest('POST', '/login', {
    raw: new URLSearchParams({ username: 'cli-owner@example.com', password }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(login.status, login.text).toBe(200);
  // Neither the variable nor the option: a usage error naming the variable.
  const missing = await npmCli(['user:create', '--email', 'nobody@example.com'], {});
  expect(missing.code).toBe(2);
  expect(missing.output).toContain('user:create needs the password in ACCOUNT_PASSWORD');
}, 60_000);

it("callback:send signs a call-status callback with the account's stored token; npm prints no API key", async () => {
  const { token, apiKey } = await t.account();
  const connect = await t.rest('POST', '/update_telephony', {
    token,
    body: {
      telephonyAccountSid: 'AC123',
      telephonyAuthToken: 'the-stored-telephony-token',
      telephonyPhoneNumber: '+14155550100',
    },
  });
  expect(connect.status, connect.text).toBe(200);
  const campaign = await t.rest('POST', '/update_campaign', {
    token,
    body: {
      campId: 'cli-calls',
      campaignModelData: {
        title: 'CLI calls',
        voice: 'en-US-aria',
        language: 'en-US',
        script: 'Hello',
        purpose: 'Test',
        knowledgeBase: 'https://example.com/kb',
        calendar: 'cal-1',
        firstLine: 'Hi',
        tone: 'warm',
        postCallAnalysisSchema: {},
        totalCallTime: 0,
        totalNumCall: 0,
        totalSpent: 0,
        averageCallCost: 0,
      },
    },
  });
  expect(campaign.status, campaign.text).toBe(200);

  const args = ['callback:send', '--camp', 'cli-calls', '--call-sid', 'CAcli1', '--status', 'completed'];
  const sent = await npmCli([...args, '--duration', '42', '--price=-0.0840'], { API_KEY: apiKey, GATEWAY: gateway });
  expect(sent.code, sent.output).toBe(0);
  // The answer the provider gets, printed with its status.
  expect(sent.output).toContain('200 {"received":true}');
  expect(sent.output).not.toContain(apiKey);
  const logs = await t.gql(
    '{ callLogs(first: 5) { edges { node { callId status durationSeconds cost campaign { campId } } } } }',
    {},
    token,
  );
  expect(logs.body.data.callLogs.edges.map((edge: any) => edge.node)).toEqual([
    { callId: 'CAcli1', status: 'COMPLETED', durationSeconds: 42, cost: 0.084, campaign: { campId: 'cli-calls' } },
  ]);

  // An unknown key, a wrong status, an unknown campaign, a gateway that is not there: one line each, exit 1 or 2.
  const unknownKey = await npmCli(args, { API_KEY: 'ck_not-a-key', GATEWAY: gateway });
  expect(unknownKey.code).toBe(1);
  expect(unknownKey.output).toContain('no account has this API key');
  const badStatus = await npmCli([...args.slice(0, -1), 'done'], { API_KEY: apiKey, GATEWAY: gateway });
  expect(badStatus.code).toBe(2);
  expect(badStatus.output).toContain('--status: ');
  const unknownCampaign = await npmCli(
    ['callback:send', '--camp', 'nope', '--call-sid', 'CAcli2', '--status', 'ringing'],
    { API_KEY: apiKey, GATEWAY: gateway },
  );
  expect(unknownCampaign.code).toBe(1);
  expect(unknownCampaign.output).toContain('404 {"detail":"Campaign not found"}');
  const away = await npmCli(args, { API_KEY: apiKey, GATEWAY: 'http://127.0.0.1:9' });
  expect(away.code).toBe(1);
  expect(away.output).toContain('the gateway at http://127.0.0.1:9 did not answer');
}, 90_000);
