// Client mistakes are logged at info, without stacks, on the request's one access line (docs/limits.md "Logs"); the
// unexpected keeps its error line with a stack.
import { afterEach, expect, test } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { logCapture } from '../helpers/log-lines.js';

let t: TestApp | undefined;
afterEach(() => t?.close());

test('wrong passwords, bad tokens, 422s and GraphQL input errors write one info line per request, no stack', async () => {
  const { stream, lines } = logCapture();
  t = await startApp({ LOG_LEVEL: 'info' }, [], { logStream: stream, worker: false });
  const user = await t.account();
  lines.length = 0;
  const bad = 'Bearer not-a-token';
  const mistakes = [
    t.rest('POST', '/login', { body: { username: user.email, password: 'wrong password' } }),
    t.gql(`mutation { login(email: "${user.email}", password: "wrong password") { accessToken } }`),
    t.rest('GET', '/get_campaigns', { headers: { authorization: bad } }),
    t.request('POST', '/graphql', {
      body: { query: '{ campaigns(first: 1) { edges { cursor } } }' },
      headers: { authorization: bad },
    }),
    t.rest('POST', '/signup', { body: { email: 'not an e-mail' } }),
    t.gql('mutation { signUp(email: "x", password: "y") { apiKey } }'),
    t.gql('{ campaign(campId: "missing") { campId } }', {}, user.token),
    t.gql('{ nope }', {}, user.token),
    t.rest('GET', '/get_campaign?campId=missing', { token: user.token }),
  ];
  const replies = await Promise.all(mistakes);
  for (const reply of replies) expect(reply.status).toBeLessThan(500);
  expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  expect(lines.filter((line) => JSON.stringify(line).includes('stack'))).toEqual([]);
  const perRequest = new Map<string, number>();
  for (const line of lines) perRequest.set(String(line.requestId), (perRequest.get(String(line.requestId)) ?? 0) + 1);
  expect(perRequest.size).toBe(mistakes.length);
  expect([...perRequest.values()].every((count) => count === 1)).toBe(true);
  // GraphQL answers 200 with errors: the access line says which.
  const graphql = lines.filter((line) => line.path === '/graphql');
  expect(graphql.map((line) => line.errors)).toEqual(
    expect.arrayContaining([['UNAUTHENTICATED'], ['BAD_USER_INPUT'], ['GRAPHQL_VALIDATION_FAILED']]),
  );
});
