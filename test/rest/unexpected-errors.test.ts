// An unexpected failure (here: the database goes away) is a 500 with no detail leaked, by either door.
import { afterEach, expect, test } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
afterEach(() => t.close());

test('a failing database gives REST 500 {"detail": "Internal Server Error"} and a masked GraphQL error', async () => {
  t = await startApp();
  const { token } = await t.account();
  await t.app.database.db.destroy();

  const rest = await t.rest('GET', '/get_campaigns', { token });
  expect(rest.status, rest.text).toBe(500);
  expect(rest.body).toEqual({ detail: 'Internal Server Error' });

  const graphql = await t.gql('{ campaigns(first: 1) { edges { cursor } } }', {}, token);
  expect(graphql.text).not.toMatch(/at .*\.ts|stack|sqlite|pool/i);
  expect(graphql.body.errors?.[0].message).toBe('Unexpected error.');
});
