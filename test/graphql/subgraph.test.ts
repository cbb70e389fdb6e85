// The campaign graph as an Apollo Federation 2 subgraph at /subgraph (src/graphql/schema/federation.ts): its SDL is
// committed (schema/subgraph.graphql) and composes with another subgraph; `_entities` resolves only the caller's own
// objects, batched per type, at most 100 at once (another account's null, NOT_FOUND where a gateway would have to
// report it); /graphql's schema has none of it. Errors reach a gateway in a 200 when it takes application/json, and
// SUBGRAPH_TOKEN keeps the door the gateway's.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeServices } from '@theguild/federation-composition';
import { getNamedType, type GraphQLObjectType, isLeafType, parse } from 'graphql';
import { decodeGlobalID, encodeGlobalID } from '@pothos/plugin-relay';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { breakingSubgraphChanges } from '../../src/graphql/schema/federation.js';
import { printSubgraphSdl, subgraphSchema } from '../../src/graphql/schema/schema.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { CRM_SDL } from '../helpers/crm-subgraph.js';
import { logCapture } from '../helpers/log-lines.js';
import { removableDatabase } from '../helpers/removable-database.js';
import { TSX_LOADER } from '../helpers/server-process.js';

const ROOT = join(import.meta.dirname, '../..');

const JSON_MEDIA = 'application/json';
const STRICT_MEDIA = 'application/graphql-response+json';

type AnswerError = { path?: Array<string | number>; message: string; extensions: Record<string, unknown> };
/** An answer's errors in the order of their paths (graphql-js lists them as they settle). */
const sortedErrors = (errors: AnswerError[]) =>
  errors
    .map(({ path, message, extensions }) => ({ path, message, extensions }))
    .sort((a, b) => JSON.stringify(a.path).localeCompare(JSON.stringify(b.path)));

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
    const [byId, byCampId, theirsById, theirsByCampId, malformed, account, theirAccount, voice] =
      answer.body.data._entities;
    expect(byId).toMatchObject({ __typename: 'Campaign', campId: 'mine', id: ownCampaign });
    expect(byCampId).toMatchObject({ campId: 'mine', id: ownCampaign });
    expect([theirsById, theirsByCampId, malformed, theirAccount]).toEqual([null, null, null, null]);
    expect(account).toMatchObject({ __typename: 'Account' });
    expect(voice).toMatchObject({ __typename: 'Voice' });
    // Each null was asked for non-null fields (a gateway would have to report it): NOT_FOUND, naming the type only.
    expect(sortedErrors(answer.body.errors)).toEqual([
      { path: ['_entities', 2], message: 'Campaign not found', extensions: { code: 'NOT_FOUND' } },
      { path: ['_entities', 3], message: 'Campaign not found', extensions: { code: 'NOT_FOUND' } },
      { path: ['_entities', 4], message: 'Campaign not found', extensions: { code: 'NOT_FOUND' } },
      { path: ['_entities', 6], message: 'Account not found', extensions: { code: 'NOT_FOUND' } },
    ]);

    // Another account's campaign is answered as one that exists nowhere: nothing tells that it exists.
    const { typename, id } = decodeGlobalID(theirCampaign);
    const nowhere = encodeGlobalID(typename, `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`);
    const theirsAlone = await entities([{ __typename: 'Campaign', id: theirCampaign }], owner.token);
    const nowhereAlone = await entities([{ __typename: 'Campaign', id: nowhere }], owner.token);
    expect(theirsAlone.text).toBe(nowhereAlone.text);
    expect(theirsAlone.body.data).toEqual({ _entities: [null] });

    // Without a token: nothing but the public catalogue, answered as for objects that exist nowhere.
    const anonymous = await entities([{ __typename: 'Campaign', id: ownCampaign }]);
    expect(anonymous.text).toBe(nowhereAlone.text);

    // Asked only for nullable fields (or the key it sent), the null needs no error: a gateway answers the object with
    // those fields null.
    const nullable = await t.request('POST', '/subgraph', {
      token: owner.token,
      body: {
        query: `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Campaign { campId textPipeline { id } } } }`,
        variables: { r: [{ __typename: 'Campaign', campId: 'theirs' }] },
      },
    });
    expect(nullable.body).toEqual({ data: { _entities: [null] } });
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
    const campaign = subgraphSchema().getType('Campaign') as GraphQLObjectType;
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
    expect(one.body.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual([
      'NOT_FOUND',
    ]);
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

  it('counts against the rate limit of the account, as every door, said in a 200 to application/json', async () => {
    const limited = await startApp({ RATE_LIMIT_PER_MINUTE: '2' }, [], { worker: false });
    try {
      const { token } = await limited.account();
      const ask = (accept: string) =>
        limited.request('POST', '/subgraph', { token, headers: { accept }, body: { query: '{ _service { sdl } }' } });
      const answers = [await ask(JSON_MEDIA), await ask(JSON_MEDIA), await ask(JSON_MEDIA), await ask(STRICT_MEDIA)];
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
      for (const refused of answers.slice(2)) {
        expect(refused.body.errors[0].extensions).toEqual({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
        expect(refused.headers.get('retry-after')).toBe(String(refused.body.errors[0].extensions.retryAfter));
      }
      expect(answers[3]!.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
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

describe('/subgraph while the database is down', () => {
  it('answers SERVICE_UNAVAILABLE with retryAfter: 200 to application/json, 503 to graphql-response+json', async () => {
    const database = await removableDatabase();
    const t = await startApp(database.env, [], { worker: false, ...database.options });
    try {
      const { token } = await t.account();
      await createLegacyCampaign(t, token, 'spring');
      await database.outage();
      // A write: on SQLite the lock refuses writes only.
      const pause = (accept: string) =>
        t.request('POST', '/subgraph', {
          token,
          headers: { accept },
          body: { query: 'mutation { campaignPause(input: { campId: "spring" }) { campaign { id } } }' },
        });
      for (const [accept, status, type] of [
        [JSON_MEDIA, 200, JSON_MEDIA],
        ['*/*', 200, JSON_MEDIA],
        [STRICT_MEDIA, 503, STRICT_MEDIA],
        [`${STRICT_MEDIA}, ${JSON_MEDIA};q=0.9`, 503, STRICT_MEDIA],
      ] as const) {
        const answer = await pause(accept);
        expect(answer.status, `${accept}: ${answer.text}`).toBe(status);
        expect(answer.headers.get('content-type')).toMatch(new RegExp(`^${type.replace('+', '\\+')}`));
        expect(answer.headers.get('retry-after')).toBe('5');
        expect(answer.body.errors[0]).toMatchObject({
          message: 'The service is temporarily unavailable; try again shortly',
          extensions: { code: 'SERVICE_UNAVAILABLE', retryAfter: 5 },
        });
      }
      // /graphql keeps its 503 for every client (docs/limits.md "When the database is down").
      const graphql = await t.request('POST', '/graphql', {
        token,
        headers: { accept: JSON_MEDIA },
        body: { query: 'mutation { campaignPause(input: { campId: "spring" }) { campaign { id } } }' },
      });
      expect(graphql.status).toBe(503);
    } finally {
      await database.recover();
      await t.close();
      await database.close();
    }
  });
});

describe('/subgraph with SUBGRAPH_TOKEN', () => {
  const TOKEN = 'a-subgraph-token-of-the-gateway';
  const log = logCapture();
  let t: TestApp;
  beforeEach(async () => {
    log.lines.length = 0;
    t = await startApp({ SUBGRAPH_TOKEN: TOKEN, LOG_LEVEL: 'info' }, [], { worker: false, logStream: log.stream });
  });
  afterEach(() => t.close());

  const sdl = (headers: Record<string, string>) =>
    t.request('POST', '/subgraph', { headers, body: { query: '{ _service { sdl } }' } });

  it('answers only the gateway that sends it in X-Subgraph-Token; /graphql needs none', async () => {
    const wrong: Array<Record<string, string>> = [
      {},
      { 'x-subgraph-token': 'a-wrong-token-of-the-same-size' },
      { 'x-subgraph-token': '' },
    ];
    for (const headers of wrong) {
      const refused = await sdl(headers);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(refused.body).toEqual({
        errors: [
          {
            message:
              'This subgraph answers its federation gateway only: the x-subgraph-token header is missing or wrong',
            extensions: { code: 'FORBIDDEN' },
          },
        ],
      });
    }
    const served = await sdl({ 'x-subgraph-token': TOKEN });
    expect(served.status).toBe(200);
    expect(served.body.data._service.sdl).toContain('@key(fields: "id")');
    expect((await t.request('POST', '/graphql', { body: { query: '{ __typename }' } })).status).toBe(200);
    // Neither the token nor the wrong one is ever logged.
    const logged = JSON.stringify(log.lines);
    expect(logged).toContain('"path":"/subgraph"');
    expect(logged).not.toContain(TOKEN);
    expect(logged).not.toContain('a-wrong-token-of-the-same-size');
  });

  it('is refused at start when shorter than 16 characters, without showing it', () => {
    const quiet = () => undefined;
    expect(() => loadConfig({ SUBGRAPH_TOKEN: 'short-secret' }, quiet)).toThrow(
      /SUBGRAPH_TOKEN=\(hidden\) must be at least 16 characters/,
    );
    expect(() => loadConfig({ SUBGRAPH_TOKEN: 'short-secret' }, quiet)).not.toThrow(/short-secret/);
  });
});

describe('what is made on first use (issue 55: an instance holds only what it serves)', () => {
  it('builds the subgraph schema on the first /subgraph request, loads the MCP SDK on the first /mcp request and the OpenAPI code on its first request, and oidc-provider on none of these', async () => {
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', TSX_LOADER, join(ROOT, 'test/fixtures/loaded-on-first-use.ts')],
        { cwd: ROOT, timeout: 60_000, env: { ...process.env, DATABASE_URL: undefined } },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    const nothing = { mcpSdk: false, oidcProvider: false, openapi: false };
    expect(JSON.parse(output.trim().split('\n').at(-1) ?? '{}')).toEqual({
      graphql: 200,
      afterGraphql: { subgraph: false, ...nothing },
      subgraph: 200,
      afterSubgraph: { subgraph: true, ...nothing },
      // No token: refused, by the door now loaded.
      mcp: 401,
      afterMcp: { mcpSdk: true, oidcProvider: false, openapi: false },
      openapi: 200,
      afterOpenapi: { mcpSdk: true, oidcProvider: false, openapi: true },
    });
  });
});
