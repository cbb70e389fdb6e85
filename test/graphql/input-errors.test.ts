// Argument values that do not fit their types (docs/graphql.md, "Errors"): one BAD_USER_INPUT error with `issues`,
// the same whether the value came as a variable or was written inline.
import { afterEach, describe, expect, test } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
afterEach(() => t?.close());

const CREATE = '{ campaignCreate(input: INPUT) { campaign { id } } }';

async function post(token: string, query: string, variables?: Record<string, unknown>, accept?: string) {
  return t.request('POST', '/graphql', {
    token,
    headers: accept ? { accept } : {},
    body: variables ? { query, variables } : { query },
  });
}

describe('a value that does not fit its type', () => {
  test('as a variable: one BAD_USER_INPUT error naming every problem in `issues`', async () => {
    t = await startApp();
    const { token } = await t.account();
    const reply = await post(token, `mutation ($i: CampaignCreateInput!) ${CREATE.replace('INPUT', '$i')}`, {
      i: { campId: 5 },
    });
    expect(reply.body.errors, reply.text).toHaveLength(1);
    const [error] = reply.body.errors;
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.extensions.issues).toContainEqual({
      path: ['i', 'campId'],
      type: 'string_type',
      message: 'Input should be a valid string',
    });
    expect(error.extensions.issues).toContainEqual({
      path: ['i', 'title'],
      type: 'missing',
      message: 'Field required',
    });
    expect(error.extensions.issues).toHaveLength(11);
    expect(error.message).toMatch(/^i\.\w+: /);
    expect(reply.body).not.toHaveProperty('data');
  });

  test('inline and as a variable, the same mistake answers the same body and status', async () => {
    t = await startApp();
    const { token } = await t.account();
    const input = { campId: 5, title: null, maxCallTimeout: 'x', bogus: 1, timeZone: 7 };
    const variable = `mutation ($input: CampaignCreateInput!) ${CREATE.replace('INPUT', '$input')}`;
    const inline = `mutation ${CREATE.replace('INPUT', '{campId: 5, title: null, maxCallTimeout: "x", bogus: 1, timeZone: 7}')}`;
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const asVariable = await post(token, variable, { input }, accept);
      const written = await post(token, inline, undefined, accept);
      expect(written.body, written.text).toEqual(asVariable.body);
      expect(written.status).toBe(asVariable.status);
      // GraphQL over HTTP: a request error is a 400 for graphql-response+json, a 200 for plain JSON.
      expect(written.status).toBe(accept === 'application/json' ? 200 : 400);
    }
    const { body } = await post(token, inline);
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions.issues).toEqual(
      expect.arrayContaining([
        { path: ['input', 'title'], type: 'string_type', message: 'Input should be a valid string' },
        { path: ['input', 'maxCallTimeout'], type: 'int_type', message: 'Input should be a valid integer' },
        { path: ['input', 'bogus'], type: 'extra_forbidden', message: 'Extra inputs are not permitted' },
        { path: ['input', 'voiceId'], type: 'missing', message: 'Field required' },
      ]),
    );
    expect(
      body.errors[0].extensions.issues.find((issue: { path: string[] }) => issue.path[1] === 'timeZone'),
    ).toMatchObject({
      type: 'string_type',
    });
  });

  test('a missing argument and a missing variable, an enum value and a query compiled by graphql-jit', async () => {
    t = await startApp();
    const { token } = await t.account();
    const missingVariable = await post(token, 'query ($id: ID!) { node(id: $id) { id } }', {});
    const missingArgument = await post(token, 'query { node { id } }');
    for (const reply of [missingVariable, missingArgument]) {
      expect(reply.body.errors, reply.text).toHaveLength(1);
      expect(reply.body.errors[0].extensions).toEqual({
        code: 'BAD_USER_INPUT',
        issues: [{ path: ['id'], type: 'missing', message: 'Field required' }],
      });
    }
    const enumIssue = {
      path: ['status'],
      type: 'enum',
      message: expect.stringMatching(/^Input should be 'ACTIVE', .* or '\w+'$/),
    };
    const badEnum = await post(
      token,
      'query ($status: CampaignStatus) { campaigns(status: $status) { pageInfo { hasNextPage } } }',
      {
        status: 'RUNNING',
      },
    );
    expect(badEnum.body.errors[0].extensions.issues, badEnum.text).toEqual([enumIssue]);
    const inlineEnum = await post(token, 'query { campaigns(status: RUNNING) { pageInfo { hasNextPage } } }');
    expect(inlineEnum.body.errors[0].extensions.issues, inlineEnum.text).toEqual([enumIssue]);
    // An enum value written as a string is a mistake only inline (JSON variables spell enums as strings).
    const quoted = await post(token, 'query { campaigns(status: "ACTIVE") { pageInfo { hasNextPage } } }');
    expect(quoted.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [{ path: ['status'], type: 'value_error', message: expect.stringContaining('ACTIVE') }],
    });
    const page = await post(token, 'query ($first: Int) { campaigns(first: $first) { pageInfo { hasNextPage } } }', {
      first: 'ten',
    });
    expect(page.body.errors[0].extensions.issues, page.text).toEqual([
      { path: ['first'], type: 'int_type', message: 'Input should be a valid integer' },
    ]);
  });

  test('beside another validation error, the value errors become one BAD_USER_INPUT and the other stays', async () => {
    t = await startApp();
    const { token } = await t.account();
    const reply = await post(token, 'query { campaigns(first: "x") { nope } }');
    const codes = reply.body.errors.map((error: { extensions: { code: string } }) => error.extensions.code);
    expect(codes.sort(), reply.text).toEqual(['BAD_USER_INPUT', 'GRAPHQL_VALIDATION_FAILED']);
  });

  test('every BAD_USER_INPUT error carries issues', async () => {
    t = await startApp();
    const { token } = await t.account();
    const replies = [
      await post(token, 'query { campaigns(first: 500) { pageInfo { hasNextPage } } }'),
      await post(token, 'query { campaigns(first: 1.5) { pageInfo { hasNextPage } } }'),
      await post(token, 'query ($n: Int) { campaigns(first: $n) { pageInfo { hasNextPage } } }', { n: 2 ** 40 }),
      await post(token, 'query { node(id: 5) { id } }'),
      await post(token, 'mutation { campaignCreate(input: 5) { campaign { id } } }'),
      await post(token, 'mutation ($i: CampaignCreateInput!) { campaignCreate(input: $i) { campaign { id } } }', {
        i: [1, 2],
      }),
    ];
    for (const reply of replies) {
      const bad = reply.body.errors.filter(
        (error: { extensions: { code: string } }) => error.extensions.code === 'BAD_USER_INPUT',
      );
      expect(bad.length, reply.text).toBeGreaterThan(0);
      for (const error of bad) expect(error.extensions.issues?.length, reply.text).toBeGreaterThan(0);
    }
  });
});

describe('beyond a query or a mutation', () => {
  test('a subscription whose variable does not fit answers the same BAD_USER_INPUT, the value not quoted', async () => {
    t = await startApp();
    const { token } = await t.account();
    const long = 'z'.repeat(5_000);
    const reply = await t.request('POST', '/graphql', {
      token,
      headers: { accept: 'text/event-stream' },
      body: {
        query: 'subscription ($campId: String!) { campaignEvents(campId: $campId) { type } }',
        variables: { campId: [long] },
      },
    });
    const data = reply.text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(5)) as { errors?: Array<{ extensions: Record<string, unknown> }> })
      .find((payload) => payload.errors);
    expect(data?.errors, reply.text.slice(0, 500)).toHaveLength(1);
    expect(data?.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      issues: [{ path: ['campId'], type: 'string_type', message: 'Input should be a valid string' }],
    });
    expect(reply.text).not.toContain('zzzz');
  });

  test('an inline mistake beside one in a variable’s default value: neither is lost', async () => {
    t = await startApp();
    const { token } = await t.account();
    const reply = await post(
      token,
      'query ($n: Int = "x") { campaigns(first: 1.5, last: $n) { pageInfo { hasNextPage } } }',
    );
    const errors: Array<{ message: string; extensions: { code: string; issues?: unknown[] } }> = reply.body.errors;
    expect(errors.find((error) => error.extensions.code === 'BAD_USER_INPUT')?.extensions.issues, reply.text).toEqual([
      { path: ['first'], type: 'int_type', message: 'Input should be a valid integer' },
    ]);
    expect(
      errors.some((error) => /"x"/.test(error.message)),
      reply.text,
    ).toBe(true);
  });

  test('an issue message quoting a long value is cut', async () => {
    t = await startApp();
    const { token } = await t.account();
    const reply = await post(
      token,
      'query ($since: DateTime) { callLogs(first: 1, since: $since) { pageInfo { hasNextPage } } }',
      {
        since: 'y'.repeat(5_000),
      },
    );
    const [issue] = reply.body.errors[0].extensions.issues;
    expect(issue.path, reply.text.slice(0, 300)).toEqual(['since']);
    expect(issue.message.length).toBeLessThanOrEqual(500);
  });
});

describe('what a hostile-input probe found', () => {
  test('an explicit null in a nullable variable with a default, where a value is required, is BAD_USER_INPUT everywhere', async () => {
    t = await startApp();
    const { token } = await t.account();
    const expected = (path: string, type: string) => ({
      code: 'BAD_USER_INPUT',
      issues: [expect.objectContaining({ path: [path], type })],
    });
    // A query (graphql-jit), a mutation (graphql-js), a directive, an input field.
    const query = await post(token, 'query ($l: Int = 50) { upcomingMeetings(limit: $l) { meetingId } }', { l: null });
    expect(query.body.errors?.[0].extensions, query.text).toEqual(expected('l', 'int_type'));
    const mutation = await post(
      token,
      'mutation ($m: String = "mtg_1") { meetingCancel(input: { meetingId: $m }) { meeting { meetingId } } }',
      { m: null },
    );
    expect(mutation.body.errors?.[0].extensions, mutation.text).toEqual(expected('m', 'string_type'));
    const skip = await post(token, 'query ($s: Boolean = true) { viewer @skip(if: $s) { id } }', { s: null });
    expect(skip.body.errors?.[0].extensions, skip.text).toEqual(expected('s', 'bool_type'));
    // Over SSE, a subscription: the same error, no 500.
    const sse = await t.request('POST', '/graphql', {
      token,
      headers: { accept: 'text/event-stream' },
      body: {
        query: 'subscription ($c: String = "x") { campaignEvents(campId: $c) { type } }',
        variables: { c: null },
      },
    });
    expect(sse.status).toBe(200);
    expect(sse.text).toContain('"code":"BAD_USER_INPUT"');
    // A null where null is allowed, or no value at all, is no mistake.
    const fine = await post(token, 'query ($l: Int = 5) { upcomingMeetings(limit: $l) { meetingId } }', {});
    expect(fine.body.errors, fine.text).toBeUndefined();
  });

  test('variables named like Object.prototype’s members are read as given, not from the prototype', async () => {
    t = await startApp();
    const { token } = await t.account();
    const reply = await post(
      token,
      'query ($constructor: String, $toString: String!, $first: Int) { campaign(campId: $toString) { campId } campaigns(first: $first) { pageInfo { hasNextPage } } v: viewer { email } x: campaigns(search: $constructor) { pageInfo { hasNextPage } } }',
      { first: 'x' },
    );
    expect(reply.body.errors?.[0].extensions.issues, reply.text).toEqual([
      { path: ['toString'], type: 'missing', message: 'Field required' },
      { path: ['first'], type: 'int_type', message: 'Input should be a valid integer' },
    ]);
  });

  test('a variable inside an inline value: the mistakes around it get the same issues as without it', async () => {
    t = await startApp();
    const { token } = await t.account();
    const withVariable = await post(
      token,
      'mutation ($c: String!) { campaignCreate(input: { campId: $c, title: 5 }) { campaign { id } } }',
      { c: 'c1' },
    );
    const without = await post(
      token,
      'mutation { campaignCreate(input: { campId: "c1", title: 5 }) { campaign { id } } }',
    );
    expect(withVariable.body.errors?.[0].extensions.issues, withVariable.text).toEqual(
      without.body.errors?.[0].extensions.issues,
    );
    expect(without.body.errors?.[0].extensions.issues).toContainEqual({
      path: ['input', 'title'],
      type: 'string_type',
      message: 'Input should be a valid string',
    });
    expect(without.body.errors?.[0].extensions.issues).toContainEqual({
      path: ['input', 'voiceId'],
      type: 'missing',
      message: 'Field required',
    });
  });

  test('a long default value is not quoted whole; more than 50 issues are said to be more', async () => {
    t = await startApp();
    const { token } = await t.account();
    const long = await post(
      token,
      `query ($n: Int = "${'Q'.repeat(300_000)}") { campaigns(first: $n) { pageInfo { hasNextPage } } }`,
    );
    expect(long.text.length, long.text.slice(0, 300)).toBeLessThan(5_000);
    const names = Array.from({ length: 60 }, (_, i) => `v${i}`);
    const many = await post(
      token,
      `query (${names.map((n) => `$${n}: ID!`).join(', ')}) { nodes(ids: [${names.map((n) => `$${n}`).join(', ')}]) { id } }`,
      Object.fromEntries(names.map((n) => [n, true])),
    );
    expect(many.body.errors?.[0].extensions.issues, many.text.slice(0, 300)).toHaveLength(50);
    expect(many.body.errors?.[0].message).toMatch(/\(and more: the first 50 are listed\)$/);
  });
});
