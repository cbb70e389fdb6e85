// A frontend can type its documents against the public schema: the README's GraphQL examples, written as gql.tada
// documents (readme-documents.ts), type-check under `npm run typecheck` and run against the server, and their typed
// results are used below as a client would use them. The generated introspection types must match the schema.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, print, validate } from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema/schema.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { Campaigns, CreateCampaign, Login, README_DOCUMENTS } from './readme-documents.js';
import type { ResultOf } from './tada.js';

const ROOT = join(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

let t: TestApp;
beforeAll(async () => {
  t = await startApp({}, [], { worker: false });
});
afterAll(() => t.close());

it("the typed documents are the README's GraphQL examples", () => {
  const fromReadme = [...README.matchAll(/```graphql\n([\s\S]*?)```/g)].flatMap((m) =>
    parse(m[1]!).definitions.map((definition) => print(definition)),
  );
  expect(README_DOCUMENTS.map((document) => print(document))).toEqual(fromReadme);
  // gql.tada types a field the schema lacks as `unknown` (its editor plugin and `gql.tada check` report it): validate.
  for (const document of README_DOCUMENTS) expect(validate(schema, document)).toEqual([]);
});

it('they run, and their typed results read as the schema says', async () => {
  const run = async <T>(document: Parameters<typeof print>[0], token?: string): Promise<T> => {
    const reply = await t.gql<T>(print(document), {}, token);
    expect(reply.body.errors, reply.text).toBeUndefined();
    return reply.body.data as T;
  };
  await run(README_DOCUMENTS[0]!);
  const login = await run<ResultOf<typeof Login>>(Login);
  const token: string = login.accountLogin.accessToken;
  const expiresIn: number = login.accountLogin.expiresIn;
  expect(expiresIn).toBeGreaterThan(0);

  const created = await run<ResultOf<typeof CreateCampaign>>(CreateCampaign, token);
  // An enum is a union of its values.
  const status: 'ACTIVE' | 'PAUSED' | 'COMPLETED' = created.campaignCreate.campaign.status;
  expect(status).toBe('ACTIVE');

  const page = await run<ResultOf<typeof Campaigns>>(Campaigns, token);
  const node = page.campaigns.edges[0]!.node;
  const voiceName: string = node.voice.name;
  const calls: number = node.metrics.totalNumCall;
  expect([voiceName, calls, page.campaigns.pageInfo.hasNextPage]).toEqual([expect.any(String), 0, false]);
  // @ts-expect-error `script` is not selected by the document, so its result has no such field.
  expect(node.script).toBeUndefined();
});

it('test/client/graphql-env.d.ts is what gql.tada generates from schema/schema.graphql (npm run schema)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tada-'));
  try {
    const output = join(dir, 'graphql-env.d.ts');
    await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'node_modules/gql.tada/bin/cli.js'), 'generate', 'output', '--output', output],
      {
        cwd: ROOT,
      },
    );
    expect(readFileSync(output, 'utf8')).toBe(readFileSync(join(ROOT, 'test/client/graphql-env.d.ts'), 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
