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
