// The MCP Inspector (@modelcontextprotocol/inspector, its `--cli` mode) against the server as `npm start` runs it: a
// client we did not write lists the tools, calls one with a named access token, reads the schema resource, and finds
// no tool schema that model providers cannot take (`--strict`).
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpCampaignInput } from '../helpers/gateway.js';
import { kill, ROOT, type ServerProcess, startServerProcess } from '../helpers/server-process.js';

// `npm run mcp:inspect`, as the README says.
const NPM = ['run', '--silent', 'mcp:inspect', '--'];
const OPTIONS = { timeout: 30_000, cwd: ROOT };
/** With the token in MCP_TOKEN, as the README says: npm, which prints the command line, prints no token. */
const withToken = (token: string) => ({ ...OPTIONS, env: { ...process.env, MCP_TOKEN: token } });
const run = promisify(execFile);

describe('the MCP Inspector CLI', () => {
  let server: ServerProcess;
  let token = '';

  beforeAll(async () => {
    server = await startServerProcess(
      { DATABASE_URL: undefined, PASSWORD_HASH_COST: '10' },
      mkdtempSync(join(tmpdir(), 'gateway-inspector-')),
    );
    const gql = async (query: string, variables: Record<string, unknown>, bearer?: string) => {
      const response = await fetch(`${server.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as { data: Record<string, any> };
    };
    const credentials = { email: 'agent-owner@example.com', password: 'correct horse battery' };
    await gql('mutation ($i: AccountSignUpInput!) { accountSignUp(input: $i) { apiKey } }', { i: credentials });
    const login = await gql('mutation ($i: AccountLoginInput!) { accountLogin(input: $i) { accessToken } }', {
      i: credentials,
    });
    const created = await gql(
      'mutation ($i: AccessTokenCreateInput!) { accessTokenCreate(input: $i) { token } }',
      { i: { name: 'inspector' } },
      login.data.accountLogin.accessToken,
    );
    token = created.data.accessTokenCreate.token;
  }, 60_000);

  afterAll(async () => {
    if (server) await kill(server.child);
  });

  const inspect = async (...args: string[]) => {
    const { stdout } = await run(
      'npm',
      [...NPM, `${server.base}/mcp?toolsets=all`, '--transport', 'http', ...args],
      withToken(token),
    );
    return JSON.parse(stdout) as Record<string, any>;
  };

  it('lists the tools, calls one, reads the schema', async () => {
    const listed = await inspect('--method', 'tools/list');
    expect(listed.tools.map((tool: { name: string }) => tool.name)).toEqual(
      expect.arrayContaining(['campaign_list', 'campaign_create', 'call_log_list', 'webhook_delivery_redeliver']),
    );
    const called = await inspect('--method', 'tools/call', '--tool-name', 'campaign_list', '--tool-arg', 'first=5');
    expect(called.isError).toBeFalsy();
    expect(called.structuredContent).toMatchObject({ campaigns: { items: [], hasMore: false } });
    const resource = await inspect('--method', 'resources/read', '--uri', 'campaign-gateway://schema.graphql');
    expect(resource.contents[0].text).toContain('type Campaign implements Node');
  }, 60_000);

  it('lists the resource templates and the prompts, fills one in, and reads a campaign by its template', async () => {
    const templates = await inspect('--method', 'resources/templates/list');
    expect(templates.resourceTemplates.map((template: { uriTemplate: string }) => template.uriTemplate)).toEqual([
      'campaign-gateway://campaigns/{campId}',
      'campaign-gateway://calls/{callId}',
      'campaign-gateway://calls/{callId}/transcript{?offset}',
    ]);
    const prompts = await inspect('--method', 'prompts/list');
    expect(prompts.prompts.map((prompt: { name: string }) => prompt.name)).toEqual([
      'campaign_setup',
      'calls_review',
      'weekly_report',
    ]);
    const filled = await inspect(
      '--method',
      'prompts/get',
      '--prompt-name',
      'calls_review',
      '--prompt-args',
      'campId=spring',
    );
    expect(filled.messages[0].content.text).toMatch(/campaign "spring"/);
    const created = await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'campaign_create',
      '--tool-arg',
      `input=${JSON.stringify(mcpCampaignInput({ campId: 'inspected', title: 'Inspected' }))}`,
    );
    expect(created.isError, JSON.stringify(created)).toBeFalsy();
    const read = await inspect('--method', 'resources/read', '--uri', 'campaign-gateway://campaigns/inspected');
    expect(JSON.parse(read.contents[0].text)).toMatchObject({
      campId: 'inspected',
      title: 'Inspected',
      status: 'PAUSED',
    });
  }, 60_000);

  it('finds no tool schema problem at all, error or warning (--strict)', async () => {
    const { stderr } = await run(
      'npm',
      [...NPM, `${server.base}/mcp?toolsets=all`, '--transport', 'http', '--method', 'tools/list', '--strict'],
      withToken(token),
    );
    // It exits 6 on an error-severity problem (execFile would then reject); warnings are only printed: none either
    // (no `type: [X, "null"]`, no untyped schema).
    expect(stderr).not.toMatch(/^Error:/m);
    expect(stderr).not.toMatch(/^Warning:/m);
  }, 60_000);

  it('npm prints its command line, without the token', async () => {
    const { stdout, stderr } = await run(
      'npm',
      ['run', 'mcp:inspect', '--', `${server.base}/mcp`, '--transport', 'http', '--method', 'tools/list'],
      withToken(token),
    );
    expect(stdout).toContain('> node scripts/mcp-inspect.mjs');
    expect(stdout).toContain('"campaign_list"');
    expect(stdout + stderr).not.toContain(token);
  }, 60_000);

  it('without a token, the inspector is refused', async () => {
    // --stored-auth-only: no interactive OAuth sign-in (there is no terminal here); the server's answer is shown.
    const refused = run(
      'npm',
      [...NPM, `${server.base}/mcp`, '--transport', 'http', '--method', 'tools/list', '--stored-auth-only'],
      OPTIONS,
    );
    await expect(refused).rejects.toThrow(/Not authenticated/);
  }, 60_000);
});
