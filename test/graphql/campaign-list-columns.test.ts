// campaignList (the internal graph's, docs/graphql.md#two-graphs) reads only the columns of a list entry when only list-entry fields are asked (as the REST door's
// get_campaigns does), and whole campaigns otherwise — the answers are the same either way.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { internalGql } from '../helpers/internal-graph.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp({}, [], { worker: false });
  ({ token } = await t.account());
  for (const campId of ['a', 'b']) await createLegacyCampaign(t, token, campId);
});
afterAll(() => t.close());

const campaignSelects = () => t.queries.filter((sql) => /from "campaigns"/.test(sql) && /^select/.test(sql));

test.each([
  ['fields', '{ campaignList { campId title status creationDate description } }', false],
  ['a named fragment', '{ campaignList { ...Entry } } fragment Entry on Campaign { campId title }', false],
  ['an inline fragment', '{ campaignList { ... on Campaign { id campId } } }', false],
  ['a field outside the entry', '{ campaignList { campId script } }', true],
  [
    'a fragment with a field outside the entry',
    '{ campaignList { ...F } } fragment F on Campaign { campId tone }',
    true,
  ],
])('with %s, whole rows are read only when needed', async (_what, query, whole) => {
  t.resetQueries();
  const reply = await internalGql(t, query, {}, token);
  expect(reply.errors).toBeUndefined();
  expect(reply.data.campaignList).toHaveLength(2);
  const [sql] = campaignSelects();
  expect(sql).toBeDefined();
  // Whole rows: every short column (`voice` among them), not only the five of an entry; long texts as asked
  // (test/graphql/campaign-text-columns.test.ts).
  expect(sql!.includes('"voice"')).toBe(whole);
});

test('both ways answer the same entries, and REST get_campaigns is unchanged', async () => {
  const fields = 'campId title status creationDate description';
  const summary = await internalGql(t, `{ campaignList { ${fields} } }`, {}, token);
  const full = await internalGql(t, `{ campaignList { ${fields} script } }`, {}, token);
  expect(summary.data.campaignList).toEqual(
    full.data.campaignList.map(({ script: _script, ...rest }: Record<string, unknown>) => rest),
  );
  const rest = await t.rest('GET', '/get_campaigns', { token });
  expect(rest.body.map((c: { campaignId: string }) => c.campaignId)).toEqual(['b', 'a']);
  expect(Object.keys(rest.body[0]).sort()).toEqual(['campaignId', 'creationDate', 'details', 'name', 'status']);
});
