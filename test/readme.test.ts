// The README and docs/ are executable documentation: their GraphQL examples and their curl examples run, in order,
// against a fresh server, as a reader would paste them, with GATEWAY set as `npm start` prints it (the server
// listens on a free port); each curl answer must be a success (curl --fail-with-body), and a streaming curl (-N, as
// in -sN) is cut after 2 s. The GraphQL examples run the way the README says to run them from a shell: sign-up and login by
// curl, the others by its `gql` function. The pages run in the order of PAGES, each going on in the same shell.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, print } from 'graphql';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createHttpServer, listen } from '../src/http/server.js';
import { startApp, type TestApp } from './helpers/app.js';
import { createLegacyCampaign } from './helpers/campaigns.js';

const ROOT = join(import.meta.dirname, '..');
/** The pages with commands, in the order a reader meets them: each goes on in the shell of those before it. */
const PAGES = [
  'README.md',
  'docs/rest-api.md',
  'docs/graphql-api.md',
  'docs/live-queries.md',
  'docs/webhooks.md',
  'docs/agents.md',
  'docs/observability.md',
];
const blocksOf = (page: string) =>
  [...readFileSync(join(ROOT, page), 'utf8').matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({
    page,
    lang: m[1] ?? '',
    code: m[2] ?? '',
  }));
const readmeBlocks = blocksOf('README.md');
const blocks = PAGES.flatMap(blocksOf);
/** A block a reader runs against the gateway: a shell block that calls curl. */
const runsCurl = (block: { lang: string; code: string }) => block.lang === 'sh' && /\bcurl\b/.test(block.code);

it('every page of the documentation with curl examples is run, in a known order', () => {
  const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)].filter((page) =>
    page.endsWith('.md'),
  );
  for (const page of pages) {
    if (blocksOf(page).some(runsCurl)) expect(PAGES, `${page} has curl examples`).toContain(page);
  }
  for (const page of PAGES) expect(blocksOf(page).some(runsCurl), `${page} has no curl example`).toBe(true);
  // Every example says where the gateway is by $GATEWAY, so that a reader's PORT needs no editing.
  for (const block of blocks.filter(runsCurl)) expect(block.code, block.page).not.toMatch(/127\.0\.0\.1:4000/);
  // A stream is read silently (-sN): without -s curl prints its progress meter into the stream.
  for (const block of blocks.filter(runsCurl)) {
    for (const line of block.code.split('\n').filter((line) => /\bcurl\b.*\s-[A-Za-z]*N\b/.test(line))) {
      expect(line, block.page).toMatch(/\bcurl -sN\b/);
    }
  }
});

/** The README's curl prelude: a failed HTTP answer fails the script; a stream (-N, -sN) is cut after 2 s (STREAM_SECONDS), not a failure. */
const PRELUDE = [
  'set -euo pipefail',
  'curl() {',
  "  local stream=' -[A-Za-z]*N[A-Za-z]* '",
  '  if [[ " $* " =~ $stream ]]; then command curl --max-time "${STREAM_SECONDS:-2}" --fail-with-body "$@" || [ $? -eq 28 ]; return; fi',
  '  command curl --fail-with-body "$@"',
  '}',
].join('\n');

function bash(script: string, env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'bash',
      ['-c', `${PRELUDE}\n${script}`],
      { timeout: 60_000, env: { ...process.env, ...env } },
      (error, out, err) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout: out, stderr: err }),
    );
  });
}

/** A fresh app served on a free port. */
async function serve() {
  const app = await startApp();
  const http = createHttpServer(app.app);
  const { port } = await listen(http.server, 0, '127.0.0.1');
  return {
    app,
    http,
    base: `http://127.0.0.1:${port}`,
    close: async () => {
      http.server.closeAllConnections();
      await new Promise<void>((resolve) => http.server.close(() => resolve()));
      await app.close();
    },
  };
}

let served: Awaited<ReturnType<typeof serve>>;
let t: TestApp;
let base: string;

beforeAll(async () => {
  served = await serve();
  ({ app: t, base } = served);
});
afterAll(() => served.close());

it('the GraphQL examples run in order, each without errors, as the README runs them from a shell', async () => {
  const operations = readmeBlocks
    .filter((block) => block.lang === 'graphql')
    .flatMap((block) => parse(block.code).definitions.map((definition) => print(definition)));
  expect(operations.length).toBeGreaterThanOrEqual(4);
  // The shell block of the GraphQL section: sign-up and login by curl, then `gql`, which adds the token.
  const shell = readmeBlocks.find((block) => block.lang === 'sh' && /^gql\(\) \{/m.test(block.code));
  expect(shell, 'a sh block that defines gql()').toBeDefined();
  const inShell = [...shell!.code.matchAll(/'(?:query=)?((?:query|mutation)\b[^']*|\{[^']*)'/g)].map((m) =>
    print(parse(m[1]!)),
  );
  // The examples that get the token are the very ones the shell block runs; every other one goes through `gql`.
  const [signUp, login] = operations;
  expect(signUp).toContain('accountSignUp');
  expect(login).toContain('accountLogin');
  expect(inShell).toEqual(expect.arrayContaining([signUp, login]));
  const rest = operations.filter((operation) => !inShell.includes(operation));
  expect(rest.length).toBeGreaterThanOrEqual(2);

  const fresh = await serve();
  try {
    const script = [shell!.code, ...rest.map((_, index) => `echo; gql "$DOC_${index}"`), 'echo'].join('\n');
    const env = {
      GATEWAY: fresh.base,
      ...Object.fromEntries(rest.map((operation, index) => [`DOC_${index}`, operation])),
    };
    const { code, stdout, stderr } = await bash(script, env);
    expect(code, `${stderr}\n${stdout}`).toBe(0);
    const answers = stdout
      .split(/\n|(?<=\})(?=\{")/) // curl prints no newline after an answer: `{…}{…}`
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { data?: Record<string, any>; errors?: unknown });
    // The shell block's own answers (sign-up, viewer), then one per example run by `gql`.
    expect(answers).toHaveLength(2 + rest.length);
    for (const answer of answers) expect(answer.errors, JSON.stringify(answer)).toBeUndefined();
    expect(answers[0]!.data!.accountSignUp.apiKey).toMatch(/^ck_/);
    expect(answers[1]!.data!.viewer.email).toBe('ana@example.com');
    const data = Object.assign({}, ...answers.slice(2).map((answer) => answer.data));
    expect(data.campaignCreate.campaign.campId).toBe('spring-outreach');
    expect(data.campaigns.edges.map((edge: any) => edge.node.campId)).toEqual(['spring-outreach']);
  } finally {
    await fresh.close();
  }
});

it('the curl examples run in order in one shell, every answer a success', async () => {
  const script = blocks
    .filter(runsCurl)
    .map((block) => block.code)
    .join('\n');
  expect(script).toContain('add_webhook_campaingn');
  const { code, stdout, stderr } = await bash(`${script}\necho "TOKEN=\${TOKEN:0:10} WEBHOOK_ID=$WEBHOOK_ID"`, {
    GATEWAY: base,
  });
  expect(code, `${stderr}\n${stdout.slice(-2000)}`).toBe(0);
  // The GraphQL section's shell block: signed up and logged in by curl, then a query by `gql`.
  expect(stdout).toMatch(/\{"data":\{"accountSignUp":\{"apiKey":"ck_/);
  expect(stdout).toContain('{"data":{"viewer":{"email":"ana@example.com"}}}');
  expect(stdout).toContain('"attached":true');
  expect(stdout).toMatch(/TOKEN=ey\S+ WEBHOOK_ID=wh_\S+/);
  // The README's second shell creates a campaign; graphql-api.md's first block makes its own account and campaign,
  // which live-queries.md's second shell pauses and webhooks.md's resumes.
  expect(stdout).toContain('{"data":{"campaignCreate":{"campaign":{"campId":"summer-outreach","status":"ACTIVE"}}}}');
  expect(stdout).toContain('{"data":{"campaign":{"title":"Spring outreach","status":"ACTIVE"}}}');
  expect(stdout).toContain('{"data":{"campaignPause":{"campaign":{"campId":"spring-outreach","status":"PAUSED"}}}}');
  expect(stdout).toContain('{"data":{"campaignResume":{"campaign":{"campId":"spring-outreach","status":"ACTIVE"}}}}');
  expect(stdout).toContain('"campaignId":"spring-outreach"');
  // The call-status callback signed by hand with openssl (docs/rest-api.md) was taken, and its call log is listed.
  expect(stdout).toContain('{"received":true}');
  expect(stdout).toMatch(/"CA100"/);
  // The agent's session over MCP: the tool list, a created campaign, a tool error naming the bad argument.
  expect(stdout).toContain('"name":"campaign_list"');
  expect(stdout).toMatch(/"structuredContent":\{"campaignCreate":\{"campaign":\{[^}]*"campId":"agent-outreach"/);
  expect(stdout).toMatch(/"isError":true[^\n]*input\.maxCallTimeout|input\.maxCallTimeout[^\n]*"isError":true/);
  // The same door in revision 2026-07-28: the answer names the server in its `_meta`.
  expect(stdout).toMatch(
    /"resultType":"complete","_meta":\{"io\.modelcontextprotocol\/serverInfo":\{"name":"campaign-gateway","version":"[^"]+"\}\}\},"jsonrpc":"2\.0","id":6\}/,
  );
}, 90_000);

it("the README's live query moves when the second shell's command runs", async () => {
  // The block with the @live query, and the next shell block: the command a reader runs from a second shell.
  const index = readmeBlocks.findIndex((block) => runsCurl(block) && block.code.includes('@live'));
  expect(index, 'a sh block with a @live query').toBeGreaterThanOrEqual(0);
  const second = readmeBlocks.slice(index + 1).find(runsCurl);
  expect(second, 'a sh block after the live query').toBeDefined();
  expect(second!.code).toMatch(/mutation/);
  const { token } = await t.account('live-readme@example.com');
  const script = [
    `( ${readmeBlocks[index]!.code} ) > "$LIVE_OUT" &`,
    // The change comes once the first result is in (the live query runs again on changes after that one), or once
    // the stream has ended without one; not after a fixed pause, which a busy machine outlasts (issue 56).
    'while ! grep -q "^data: " "$LIVE_OUT" && kill -0 $! 2>/dev/null; do sleep 0.02; done',
    second!.code,
    // The stream is stopped once the change has arrived (or after STREAM_SECONDS), not cut at a fixed time.
    'for _ in $(seq 1 1000); do [ "$(grep -c "^data: .*}$" "$LIVE_OUT")" -ge 2 ] && break; kill -0 $! 2>/dev/null || break; sleep 0.02; done',
    // The block runs in a subshell that waits for its curl: stop the curl itself (the subshell then ends).
    'pkill -P $! 2>/dev/null || true',
    'wait || true',
    'echo; cat "$LIVE_OUT"',
  ].join('\n');
  const out = join(import.meta.dirname, `.readme-live-${randomBytes(4).toString('hex')}.txt`);
  try {
    const { code, stdout, stderr } = await bash(script, {
      GATEWAY: base,
      TOKEN: token,
      LIVE_OUT: out,
      STREAM_SECONDS: '20',
    });
    expect(code, `${stderr}\n${stdout}`).toBe(0);
    // No progress meter in the stream, a first result, then one more after the second shell's change.
    const results = [...stdout.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as { data: any });
    expect(results.length, stdout).toBeGreaterThanOrEqual(2);
    const campIds = (result: { data: any }) => result.data.campaigns.edges.map((edge: any) => edge.node.campId);
    expect(campIds(results[0]!)).toEqual([]);
    expect(campIds(results.at(-1)!)).toContain('summer-outreach');
    expect(stderr).not.toMatch(/% Total/);
  } finally {
    rmSync(out, { force: true });
  }
}, 30_000);

it('the JavaScript snippets run on this Node (a subscription over WebSocket receives an event)', async () => {
  const snippets = blocks.filter((block) => block.lang === 'js');
  expect(snippets.length).toBeGreaterThanOrEqual(1);
  const { token } = await t.account();
  await createLegacyCampaign(t, token, 'spring-outreach');
  for (const snippet of snippets) {
    // Node's own WebSocket (22 and later), as in browsers: the reader installs graphql-ws and nothing else.
    expect(snippet.code).not.toMatch(/from 'ws'|require\('ws'\)/);
    // Beside package.json, so that its imports resolve as in a reader's project; `accessToken` is the reader's token.
    const file = join(import.meta.dirname, `.readme-snippet-${randomBytes(4).toString('hex')}.mjs`);
    const code = snippet.code.replaceAll('127.0.0.1:4000', base.slice('http://'.length)); // the reader's address
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
