// A non-null variable with a default (`query ($first: Int! = 1)`) may be left out: the spec's CoerceVariableValues
// uses the default. graphql-jit (queries) did not, and refused it as "not provided"; the default is now put in place
// before execution (src/graphql/server/variable-defaults.ts), for queries, mutations and an explicit null alike.
import { afterEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('non-null variables with defaults', () => {
  it('a query (graphql-jit) uses the default of an omitted non-null variable', async () => {
    t = await startApp();
    const { token } = await t.account();
    await createLegacyCampaign(t, token, 'one');
    await createLegacyCampaign(t, token, 'two');
    const query = 'query ($first: Int! = 1) { campaigns(first: $first) { edges { node { campId } } } }';
    const omitted = await t.gql(query, {}, token);
    expect(omitted.body.errors).toBeUndefined();
    expect(omitted.body.data.campaigns.edges).toHaveLength(1);
    const given = await t.gql(query, { first: 2 }, token);
    expect(given.body.data.campaigns.edges).toHaveLength(2);
    // An explicit null is still refused: the default stands only for a variable not sent.
    const nulled = await t.gql(query, { first: null }, token);
    expect(nulled.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('a mutation (graphql-js) uses it too', async () => {
    t = await startApp();
    const { token } = await t.account();
    await createLegacyCampaign(t, token, 'spring');
    const mutation =
      'mutation ($campId: String! = "spring") { campaignPause(input: { campId: $campId }) { campaign { status } } }';
    const paused = await t.gql(mutation, {}, token);
    expect(paused.body.errors).toBeUndefined();
    expect(paused.body.data.campaignPause.campaign.status).toBe('PAUSED');
  });
});
