// GraphQL variables and extensions hold at most MAX_JSON_VALUES object keys and list items in all (issue 52, item 2;
// docs/limits.md): counted on the body's text before it is parsed, on /graphql, /subgraph and through the prepared
// lane, and refused with a 400 BAD_USER_INPUT that names the limit, in milliseconds, instead of costing the event loop
// half a second to build, walk and coerce 60 000 keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { MAX_JSON_VALUES } from '../../src/validation/json-limits.js';

/** Before the limit these took 0.3–0.8 s on an idle machine; the bound leaves room for a loaded test machine. */
const QUICK_MS = 1500;

const keys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 1]));
const MANY = keys(60_000);

const apps: TestApp[] = [];
let t: TestApp;
let lane: TestApp;
beforeAll(async () => {
  t = await startApp({}, [], { worker: false });
  lane = await startApp({ GRAPHQL_PREPARED_LANE: 'on' }, [], { worker: false });
  apps.push(t, lane);
});
afterAll(async () => {
  for (const app of apps) await app.close();
});

async function timedPost(app: TestApp, path: string, body: unknown) {
  const raw = JSON.stringify(body);
  const started = performance.now();
  const reply = await app.request('POST', path, { raw, headers: { 'content-type': 'application/json' } });
  return { reply, ms: performance.now() - started };
}

function expectRefused(reply: Awaited<ReturnType<TestApp['request']>>, part: RegExp) {
  expect(reply.status, reply.text).toBe(400);
  const [error] = reply.body.errors;
  expect(error.extensions.code).toBe('BAD_USER_INPUT');
  expect(error.message).toMatch(part);
  expect(error.message).toMatch(new RegExp(`${MAX_JSON_VALUES} object keys and list items`));
  expect(reply.text.length).toBeLessThan(400);
}

describe('variables and extensions of 60 000 keys', () => {
  it.each([
    ['/graphql', 'variables'],
    ['/graphql', 'extensions'],
    ['/subgraph', 'variables'],
    ['/subgraph', 'extensions'],
  ] as const)('%s %s: 400 BAD_USER_INPUT naming the limit, quick', async (path, part) => {
    const { reply, ms } = await timedPost(t, path, { query: 'query { __typename }', [part]: MANY });
    expectRefused(reply, /variables and extensions/);
    expect(ms).toBeLessThan(QUICK_MS);
  });

  it('through the prepared lane (GRAPHQL_PREPARED_LANE=on), the same answer', async () => {
    // A document the lane knows (seen once), so that it would answer the request itself.
    const known = { query: 'query Known($a: Int) { __typename }' };
    expect((await lane.request('POST', '/graphql', { body: known })).status).toBe(200);
    const { reply, ms } = await timedPost(lane, '/graphql', { ...known, variables: MANY });
    expectRefused(reply, /variables and extensions/);
    expect(ms).toBeLessThan(QUICK_MS);
  });

  it('a batch counts all of its operations together', async () => {
    const half = keys(MAX_JSON_VALUES / 2 + 1);
    const { reply } = await timedPost(t, '/graphql', [
      { query: '{ __typename }', variables: half },
      { query: '{ __typename }', variables: half },
    ]);
    expect(reply.status).toBe(400);
  });
});

describe('within the limit', () => {
  it('variables of a few thousand keys are read as before', async () => {
    const reply = await t.request('POST', '/graphql', {
      body: { query: 'query { __typename }', variables: keys(MAX_JSON_VALUES - 100) },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ data: { __typename: 'Query' } });
  });

  it('nested past the limit once parsed (the count of the walk, too): 400', async () => {
    const reply = await t.request('POST', '/graphql', {
      body: {
        query: 'query { __typename }',
        variables: { a: Array.from({ length: 11 }, () => keys(MAX_JSON_VALUES / 10)) },
      },
    });
    expectRefused(reply, /variables/);
  });

  it('invalid JSON and a body that is not an object: the same answers yoga gave', async () => {
    const invalid = await t.request('POST', '/graphql', {
      raw: '{"query": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors[0].message).toBe('POST body sent invalid JSON.');
    const scalar = await t.request('POST', '/graphql', { raw: '42', headers: { 'content-type': 'application/json' } });
    expect(scalar.status).toBe(400);
    expect(scalar.body.errors[0].message).toBe('POST body is expected to be object but received number');
  });
});
