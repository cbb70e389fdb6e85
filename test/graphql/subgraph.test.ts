// The campaign graph as an Apollo Federation 2 subgraph at /subgraph (src/graphql/schema/federation.ts): its SDL is
// committed (schema/subgraph.graphql) and composes with another subgraph; `_entities` resolves only the caller's own
// objects, batched per type, at most 100 at once; /graphql's schema has none of it.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeServices } from '@theguild/federation-composition';
import { getNamedType, type GraphQLObjectType, isLeafType, parse } from 'graphql';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { breakingSubgraphChanges } from '../../src/graphql/schema/federation.js';
import { printSubgraphSdl, subgraphSchema } from '../../src/graphql/schema/schema.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { CRM_SDL } from '../helpers/crm-subgraph.js';
import { TSX_LOADER } from '../helpers/server-process.js';

const ROOT = join(import.meta.dirname, '../..');

describe('the subgraph SDL', () => {
  it('is schema/subgraph.graphql, as npm run schema writes it', () => {
    expect(readFileSync(join(ROOT, 'schema/subgraph.graphql'), 'utf8')).toBe(printSubgraphSdl());
  });

  it('npm run schema refuses to write a breaking change of it unless asked to', async () => {
    const committed = readFileSync(join(ROOT, 'schema/subgraph.graphql'), 'utf8');
    // The committed SDL as it would be had it promised one more field: the current one then removes that field.
    const promised = committed.replace(
      /^type Campaign implements Node[^{]*\{/m,
      (head) => `${head}\n  ownerName: String`,
    );
    expect(promised).not.toBe(committed);
    expect(breakingSubgraphChanges(promised, committed)).toEqual(['Campaign.ownerName was removed.']);
    expect(breakingSubgraphChanges(committed, printSubgraphSdl())).toEqual([]);

    const folder = mkdtempSync(join(tmpdir(), 'gateway-subgraph-'));
    try {
      mkdirSync(join(folder, 'schema'));
      writeFileSync(join(folder, 'schema/subgraph.graphql'), promised);
      const print = (...args: string[]) =>
        new Promise<{ code: number; output: string }>((resolve) =>
          execFile(
            process.execPath,
            ['--import', TSX_LOADER, join(ROOT, 'src/cli.ts'), 'subgraph:print', ...args],
            { cwd: folder, timeout: 60_000 },
            (error, stdout, stderr) =>
              resolve({
                code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
                output: stdout + stderr,
              }),
          ),
        );
      const refused = await print();
      expect(refused.code).toBe(1);
      expect(refused.output).toContain('Campaign.ownerName was removed.');
      expect(readFileSync(join(folder, 'schema/subgraph.graphql'), 'utf8')).toBe(promised);
      const forced = await print('--allow-breaking');
      expect(forced.code, forced.output).toBe(0);
      expect(readFileSync(join(folder, 'schema/subgraph.graphql'), 'utf8')).toBe(printSubgraphSdl());
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 90_000);

  it('composes with a second subgraph (a CRM) into a supergraph, with no error', () => {
    const result = composeServices([
      { name: 'campaigns', typeDefs: parse(printSubgraphSdl()), url: 'http://127.0.0.1:4000/subgraph' },
      { name: 'crm', typeDefs: parse(CRM_SDL), url: 'http://127.0.0.1:4001/graphql' },
    ]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.supergraphSdl).toContain('join__type(graph: CAMPAIGNS, key: "campId")');
  });
});

describe('_entities at /subgraph', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp({}, [], { worker: false });
  });
  afterEach(() => t.close());

  const entities = async (representations: unknown[], token?: string) =>
    t.request('POST', '/subgraph', {
      token,
      body: {
        query: `query ($r: [_Any!]!) { _entities(representations: $r) {
          __typename ... on Campaign { id campId title } ... on Voice { voiceId } ... on Account { email } } }`,
        variables: { r: representations },
      },
    });

  it("answers the caller's own objects, null for another account's and for a caller without a token", async () => {
    const owner = await t.account();
    const other = await t.account();
    await createLegacyCampaign(t, owner.token, 'mine');
    await createLegacyCampaign(t, other.token, 'theirs');
    const ids = async (token: string) =>
      (await t.gql('{ viewer { id } campaigns(first: 5) { edges { node { id } } } }', {}, token)).body.data;
    const own = await ids(owner.token);
    const theirs = await ids(other.token);
    const ownCampaign = own.campaigns.edges[0].node.id as string;
    const theirCampaign = theirs.campaigns.edges[0].node.id as string;

    const answer = await entities(
      [
        { __typename: 'Campaign', id: ownCampaign },
        { __typename: 'Campaign', campId: 'mine' },
        { __typename: 'Campaign', id: theirCampaign },
        { __typename: 'Campaign', campId: 'theirs' },
        { __typename: 'Campaign', id: 'not a global id' },
        { __typename: 'Account', id: own.viewer.id },
        { __typename: 'Account', id: theirs.viewer.id },
        { __typename: 'Voice', id: (await t.gql('{ voices { id } }', {}, owner.token)).body.data.voices[0].id },
      ],
      owner.token,
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    const [byId, byCampId, theirsById, theirsByCampId, malformed, account, theirAccount, voice] =
      answer.body.data._entities;
    expect(byId).toMatchObject({ __typename: 'Campaign', campId: 'mine', id: ownCampaign });
    expect(byCampId).toMatchObject({ campId: 'mine', id: ownCampaign });
    expect([theirsById, theirsByCampId, malformed, theirAccount]).toEqual([null, null, null, null]);
    expect(account).toMatchObject({ __typename: 'Account' });
    expect(voice).toMatchObject({ __typename: 'Voice' });

    // Without a token: nothing but the public catalogue, and no error that tells what exists.
    const anonymous = await entities([{ __typename: 'Campaign', id: ownCampaign }]);
    expect(anonymous.body).toEqual({ data: { _entities: [null] } });
  });

  it('resolves the representations of one type in one statement, and refuses more than 100', async () => {
    const { token } = await t.account();
    for (const campId of ['a', 'b', 'c']) await createLegacyCampaign(t, token, campId);
    t.resetQueries();
    const answer = await entities(
      ['a', 'b', 'c', 'nope'].map((campId) => ({ __typename: 'Campaign', campId })),
      token,
    );
    expect(answer.body.data._entities.map((entity: { campId?: string } | null) => entity?.campId ?? null)).toEqual([
      'a',
      'b',
      'c',
      null,
    ]);
    expect(t.queries.filter((sql) => /from "campaigns"/.test(sql))).toHaveLength(1);

    const many = await entities(
      Array.from({ length: 101 }, (_, index) => ({ __typename: 'Campaign', campId: `c${index}` })),
      token,
    );
    expect(many.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(many.body.errors[0].message).toMatch(/at most 100 representations/);
  });

  it('counts representations against the cost limit of every document', async () => {
    const { token } = await t.account();
    // Ten aliased campaigns of a call log, each with every scalar of a campaign and a page of its call logs: a selection
    // that costs over 2 000, times the representations (src/graphql/server/document-cost.ts).
    const campaign = subgraphSchema.getType('Campaign') as GraphQLObjectType;
    const scalars = Object.values(campaign.getFields())
      .filter((field) => isLeafType(getNamedType(field.type)) && field.args.length === 0)
      .map((field) => field.name);
    const branches = Array.from({ length: 10 }, (_, index) => `c${index}: campaign { ...C }`).join(' ');
    const query = `query ($r: [_Any!]!) { _entities(representations: $r) { ... on CallLog { ${branches} } } }
      fragment C on Campaign { ${scalars.join(' ')} callLogs(first: 100) { edges { node { callId } } } }`;
    const send = (count: number) =>
      t.request('POST', '/subgraph', {
        token,
        body: {
          query,
          variables: { r: Array.from({ length: count }, () => ({ __typename: 'CallLog', callId: 'x' })) },
        },
      });
    const refused = await send(100);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'COST_LIMIT_EXCEEDED', limit: 20000 });
    expect(refused.body.errors[0].message).toMatch(/would cost \d+, more than the limit of 20000/);
    const one = await send(1);
    expect(one.body.errors).toBeUndefined();
    expect(one.body.data._entities).toEqual([null]);
  });

  it("refuses what is not a representation of an entity as the client's mistake, naming each", async () => {
    const { token } = await t.account();
    for (const representation of [
      { __typename: 'Query' },
      'a string',
      { __typename: 'Nope', id: 'x' },
      { __typename: 'CampaignConnection', id: 'x' },
      { id: 'no typename' },
    ]) {
      const answer = await entities([{ __typename: 'Voice', id: 'x' }, representation], token);
      expect(answer.status).toBe(200);
      expect(answer.body.errors[0].extensions.code, JSON.stringify(representation)).toBe('BAD_USER_INPUT');
      expect(answer.body.errors[0].extensions.issues).toEqual([
        expect.objectContaining({ path: ['representations', 1], type: 'value_error' }),
      ]);
    }
  });

  it('counts against the rate limit of the account, as every door', async () => {
    const limited = await startApp({ RATE_LIMIT_PER_MINUTE: '2' }, [], { worker: false });
    try {
      const { token } = await limited.account();
      const ask = () => limited.request('POST', '/subgraph', { token, body: { query: '{ _service { sdl } }' } });
      const answers = [await ask(), await ask(), await ask()];
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429]);
      expect(answers[2]!.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    } finally {
      await limited.close();
    }
  });

  it('serves the SDL to a gateway, and /graphql knows nothing of it', async () => {
    const sdl = await t.request('POST', '/subgraph', { body: { query: '{ _service { sdl } }' } });
    expect(sdl.body.data._service.sdl).toContain('@key(fields: "campId")');
    const publicGraph = await t.request('POST', '/graphql', { body: { query: '{ _service { sdl } }' } });
    expect(publicGraph.body.errors[0].message).toMatch(/Cannot query field "_service"/);
  });

  it('runs under the rules of every door: a read-only token writes nothing, errors are masked', async () => {
    const { token } = await t.account();
    const created = await t.gql(
      'mutation { accessTokenCreate(input: { name: "reader", readOnly: true }) { token } }',
      {},
      token,
    );
    const reader = created.body.data.accessTokenCreate.token as string;
    const write = await t.request('POST', '/subgraph', {
      token: reader,
      body: { query: 'mutation { campaignPause(input: { campId: "x" }) { campaign { id } } }' },
    });
    expect(write.body.errors[0].extensions.code).toBe('FORBIDDEN');
    // A representation the subgraph cannot read is the client's mistake, named as such.
    const bad = await t.request('POST', '/subgraph', {
      token,
      body: { query: '{ _entities(representations: [{ campId: "x" }]) { __typename } }' },
    });
    expect(bad.body.errors[0].message).not.toMatch(/at |\.ts:/);
  });
});

describe('/subgraph with PERSISTED_OPERATIONS=only', () => {
  it('runs only the trusted documents there too', async () => {
    const t = await startApp({ PERSISTED_OPERATIONS: 'only' }, [], { worker: false });
    try {
      const { token } = await t.account();
      const answer = await t.request('POST', '/subgraph', { token, body: { query: '{ _service { sdl } }' } });
      expect(answer.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_ONLY');
    } finally {
      await t.close();
    }
  });
});
