// The README is executable documentation: its GraphQL examples and its curl examples run, in order, against a fresh
// server, as a reader would paste them. Only the address changes (the server listens on a free port); each curl
// answer must be a success (curl --fail-with-body), and a streaming curl (-N) is cut after 2 s.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, print } from 'graphql';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createHttpServer, listen } from '../src/http/server.js';
import { startApp, type TestApp } from './helpers/app.js';
import { createLegacyCampaign } from './helpers/campaigns.js';

const README = readFileSync(join(import.meta.dirname, '../README.md'), 'utf8');
const blocks = [...README.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1] ?? '', code: m[2] ?? '' }));

let t: TestApp;
let base: string;
let server: ReturnType<typeof createHttpServer>;

beforeAll(async () => {
  t = await startApp();
  server = createHttpServer(t.app);
  const { port } = await listen(server.server, 0, '127.0.0.1');
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server.server.closeAllConnections();
  await new Promise<void>((resolve) => server.server.close(() => resolve()));
  await t.close();
});

it('the GraphQL examples run in order, each without errors', async () => {
  const operations = blocks
    .filter((block) => block.lang === 'graphql')
    .flatMap((block) => parse(block.code).definitions.map((definition) => print(definition)));
  expect(operations.length).toBeGreaterThanOrEqual(4);
  let token: string | undefined;
  for (const query of operations) {
    const reply = await t.gql(query, {}, token);
    expect(reply.body.errors, `${query.slice(0, 80)} → ${reply.text}`).toBeUndefined();
    token = reply.body.data?.accountLogin?.accessToken ?? token;
  }
  expect(token).toBeTypeOf('string');
});

it('the curl examples run in order in one shell, every answer a success', async () => {
  const script = blocks
    .filter((block) => block.lang === 'sh' && /\bcurl\b/.test(block.code))
    .map((block) => block.code.replaceAll('http://127.0.0.1:4000', base))
    .join('\n');
  expect(script).toContain('add_webhook_campaingn');
  const prelude = [
    'set -euo pipefail',
    // A failed HTTP answer fails the script; a stream (-N) is cut after 2 s, which is not a failure.
    'curl() {',
    '  if [[ " $* " == *" -N "* ]]; then command curl --max-time 2 --fail-with-body "$@" || [ $? -eq 28 ]; return; fi',
    '  command curl --fail-with-body "$@"',
    '}',
  ].join('\n');
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'bash',
      ['-c', `${prelude}\n${script}\necho "TOKEN=\${TOKEN:0:10} WEBHOOK_ID=$WEBHOOK_ID"`],
      { timeout: 60_000 },
      (error, out, err) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout: out, stderr: err }),
    );
  });
  expect(code, `${stderr}\n${stdout.slice(-2000)}`).toBe(0);
  expect(stdout).toContain('"attached":true');
  expect(stdout).toMatch(/TOKEN=ey\S+ WEBHOOK_ID=wh_\S+/);
  expect(stdout).toContain('"campaignId":"spring-outreach"');
  // The agent's session over MCP: the tool list, a created campaign, a tool error naming the bad argument.
  expect(stdout).toContain('"name":"campaign_list"');
  expect(stdout).toMatch(/"structuredContent":\{"campaignCreate":\{"campaign":\{[^}]*"campId":"agent-outreach"/);
  expect(stdout).toMatch(/"isError":true[^\n]*input\.maxCallTimeout|input\.maxCallTimeout[^\n]*"isError":true/);
}, 90_000);

it('the JavaScript snippets run on this Node (a subscription over WebSocket receives an event)', async () => {
  const snippets = blocks.filter((block) => block.lang === 'js');
  expect(snippets.length).toBeGreaterThanOrEqual(1);
  const { token } = await t.account();
  await createLegacyCampaign(t, token, 'spring-outreach');
  for (const snippet of snippets) {
    // Beside package.json, so that its imports resolve as in a reader's project; `accessToken` is the reader's token.
    const file = join(import.meta.dirname, `.readme-snippet-${randomBytes(4).toString('hex')}.mjs`);
    const code = snippet.code.replaceAll('127.0.0.1:4000', base.slice('http://'.length));
    writeFileSync(file, `const accessToken = process.env.ACCESS_TOKEN;\n${code}`);
    const child = spawn(process.execPath, [file], { env: { ...process.env, ACCESS_TOKEN: token } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      // Once it is subscribed, a change of the campaign is an event it prints.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(stderr).toBe('');
      const paused = await t.gql(
        'mutation { campaignPause(input: { campId: "spring-outreach" }) { campaign { id } } }',
        {},
        token,
      );
      expect(paused.body.errors).toBeUndefined();
      await vi.waitFor(() => expect(stdout).toContain("eventType: 'CAMPAIGN_STATUS_CHANGED'"), { timeout: 5000 });
      expect(stderr).toBe('');
    } finally {
      child.kill();
      rmSync(file, { force: true });
    }
  }
}, 30_000);
