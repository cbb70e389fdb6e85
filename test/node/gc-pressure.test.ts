// The server under garbage-collection pressure on the Node that runs the suite (CI: .node-version): thousands of mixed
// reads and writes through GraphQL, REST and MCP on one SQLite file, statements of many shapes prepared and dropped
// (the statement cache overflows), full collections forced between phases, then SIGTERM. Any exit but a clean 0 fails,
// and so does any warning the server prints (a deprecated API in use on this Node among them):
// better-sqlite3 12 on Node 24.19+ aborted here (SIGABRT in Statement::~Statement when a collected statement was
// finalised) — docs/architecture.md, "Node.js versions".
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, expect, it } from 'vitest';
import { kill, ROOT, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { campaignInput, campaignModelData } from '../helpers/campaigns.js';

/** A CampaignCreateInput (GraphQL and MCP names). */
const createInput = (campId: string, title: string) => {
  const { voice, ...rest } = campaignInput({ campId, title });
  return { ...rest, voiceId: voice };
};

const PHASES = 6;
const REQUESTS_PER_PHASE = 600;
const CONCURRENCY = 8;
/** Text fields of a campaign that an update may change, in any combination. */
const PATCHABLE = [
  'description',
  'script',
  'purpose',
  'knowledgeBase',
  'calendar',
  'firstLine',
  'tone',
  'systemPrompt',
  'flowName',
  'sampleSid',
];
const GC_HOOK = pathToFileURL(join(ROOT, 'test/helpers/gc-on-signal.ts')).href;

let server: ServerProcess | undefined;
afterAll(() => server && kill(server.child));

/** Resolves with the next `gc done` the server prints after SIGUSR2; rejects if the server exits first. */
function collectGarbage(started: ServerProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      // A line may come in two chunks.
      seen = (seen + chunk.toString()).slice(-64);
      if (!seen.includes('gc done')) return;
      done();
      resolve();
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      done();
      reject(new Error(`the server exited during a forced collection: code ${code}, signal ${signal}`));
    };
    const done = () => {
      started.child.stdout?.off('data', onData);
      started.child.off('exit', onExit);
    };
    started.child.stdout?.on('data', onData);
    started.child.once('exit', onExit);
    started.child.kill('SIGUSR2');
  });
}

// The embedded database is what is under test: once per run is enough (not again in the PostgreSQL pass).
it.skipIf(process.env.TEST_DATABASE_URL)(
  'survives mixed traffic on three doors, forced full collections and SIGTERM with exit code 0',
  async () => {
    server = await startServerProcess(
      // A fresh SQLite file (the default ./data/campaigns.db of an empty working directory); no limit gets in the way.
      {
        DATABASE_URL: undefined,
        PASSWORD_HASH_COST: '10',
        RATE_LIMIT_PER_MINUTE: '1000000',
        LARGE_BODY_MIB_PER_MINUTE: '1000',
        // One account (or address) driven flat out on purpose: its share of the CPU would stop it.
        WORK_BUDGET_MS_PER_MINUTE: '100000000',
        ANONYMOUS_WORK_BUDGET_MS_PER_MINUTE: '100000000',
      },
      mkdtempSync(join(tmpdir(), 'gateway-gc-')),
      ['--expose-gc', '--import', GC_HOOK],
    );
    const { base, child } = server;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resolve) => {
      let output = '';
      child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
      child.once('exit', (code, signal) => resolve({ code, signal, output }));
    });

    const json = async (path: string, init: { method?: string; body?: unknown; token?: string } = {}) => {
      const response = await fetch(`${base}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          'content-type': 'application/json',
          ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${text}`);
      return JSON.parse(text) as any;
    };
    const email = 'gc@example.com';
    await json('/api/v3/signup', { method: 'POST', body: { email, password: 'a long password' } });
    const { access_token: token } = await json('/api/v3/login', {
      method: 'POST',
      body: { username: email, password: 'a long password' },
    });
    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const answer = await json('/graphql', { method: 'POST', body: { query, variables }, token });
      if (answer.errors) throw new Error(JSON.stringify(answer.errors));
      return answer.data;
    };
    const mcp = new Client({ name: 'gc-pressure', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const tool = async (name: string, args: Record<string, unknown>) => {
      const result = await mcp.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
      return result.structuredContent as any;
    };

    await tool('campaign_create', { input: createInput('standing', 'Updated by every phase') });
    const ids: string[] = [];
    let answered = 0;
    const operation = async (phase: number, n: number) => {
      const campId = `p${phase}-${n}`;
      switch (n % 8) {
        case 0: {
          const data = await gql(
            'mutation ($input: CampaignCreateInput!) { campaignCreate(input: $input) { campaign { id } } }',
            { input: createInput(campId, `GraphQL ${n}`) },
          );
          ids.push(data.campaignCreate.campaign.id);
          break;
        }
        case 1:
          await gql(
            'query ($first: Int, $search: String) { campaigns(first: $first, search: $search) { edges { node { id campId title status metrics { totalNumCall totalSpent } } } } }',
            { first: 1 + (n % 100), search: n % 3 === 0 ? 'GraphQL' : null },
          );
          break;
        case 2:
          // `nodes` with 1–100 ids: each count is a statement of its own shape, so the statement cache fills and is
          // emptied, and the statements it held are left to the collector.
          await gql('query ($ids: [ID!]!) { nodes(ids: $ids) { id ... on Campaign { title } } }', {
            ids: ids.slice(-(1 + ((n * 7) % 100))),
          });
          break;
        case 3:
          await json('/api/v3/update_campaign', {
            method: 'POST',
            body: { campId, campaignModelData: campaignModelData({ title: `REST ${n}` }) },
            token,
          });
          break;
        case 4:
          await json(`/api/v3/get_campaigns?limit=${1 + (n % 50)}&offset=${n % 7}`, { token });
          break;
        case 5:
          await tool('campaign_create', { input: createInput(campId, `MCP ${n}`) });
          break;
        case 6:
          await tool('campaign_list', { first: 1 + (n % 100), status: n % 2 ? 'ACTIVE' : null });
          break;
        default: {
          // Each update changes another set of fields: each set is an UPDATE statement of its own.
          const patch = Object.fromEntries(
            PATCHABLE.filter((_, bit) => ((phase * REQUESTS_PER_PHASE + n) >> 3) & (1 << bit)).map((field) => [
              field,
              `${field} ${n}`,
            ]),
          );
          await tool('campaign_update', { input: { campId: 'standing', title: `MCP updated ${n}`, ...patch } });
        }
      }
      answered += 1;
    };

    for (let phase = 0; phase < PHASES; phase += 1) {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let n = next++; n < REQUESTS_PER_PHASE; n = next++) await operation(phase, n);
        }),
      );
      await collectGarbage(server);
    }
    await mcp.close();
    expect(answered).toBe(PHASES * REQUESTS_PER_PHASE);

    child.kill('SIGTERM');
    const exit = await exited;
    expect(exit, exit.output).toMatchObject({ code: 0, signal: null });
    // Nothing deprecated in use on this Node, and no other warning either (node prints them on stderr).
    expect(exit.output).not.toMatch(/Warning/);
  },
  180_000,
);
