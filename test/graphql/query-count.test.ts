// Listing campaigns with their voices and metrics costs the same number of SQL queries for 5 or 50 campaigns.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignInput } from '../helpers/campaigns.js';

const VOICES = ['en-US-aria', 'en-GB-ryan', 'fr-FR-denise', 'de-DE-conrad', 'es-ES-elvira', 'it-IT-elsa'];

const LIST = /* GraphQL */ `
  query List($first: Int!) {
    campaigns(first: $first) {
      edges {
        node {
          id
          campId
          title
          voice {
            voiceId
            name
            language
          }
          metrics {
            totalNumCall
            totalSpent
          }
        }
      }
    }
  }
`;

async function createCampaigns(t: TestApp, token: string, count: number, offset = 0) {
  for (let i = offset; i < offset + count; i++) {
    const input = campaignInput({ campId: `c${i}`, title: `Campaign ${i}`, voice: VOICES[i % VOICES.length] });
    const reply = await t.gql(
      'mutation($input: CreateCampaignInput!) { createCampaign(input: $input) { campId } }',
      { input },
      token,
    );
    expect(reply.body.errors).toBeUndefined();
  }
}

describe('listing campaigns with their voices', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp({}, [], { worker: false });
  });
  afterEach(() => t.close());

  test('runs a constant number of SQL queries, whatever the page size', async () => {
    const { token } = await t.account();
    await createCampaigns(t, token, 5);

    t.resetQueries();
    const small = await t.gql(LIST, { first: 50 }, token);
    expect(small.body.data.campaigns.edges).toHaveLength(5);
    const queriesFor5 = t.queries.length;

    await createCampaigns(t, token, 45, 5);
    t.resetQueries();
    const large = await t.gql(LIST, { first: 50 }, token);
    const edges = large.body.data.campaigns.edges;
    expect(edges).toHaveLength(50);
    expect(new Set(edges.map((e: { node: { voice: { voiceId: string } } }) => e.node.voice.voiceId)).size).toBe(
      VOICES.length,
    );

    expect(t.queries.length).toBe(queriesFor5);
    // The viewer, the page of campaigns, one batch of voices, one grouped metrics aggregate.
    expect(t.queries.length).toBeLessThanOrEqual(4);
  });

  test('the legacy list costs a constant number of queries too', async () => {
    const { token } = await t.account();
    await createCampaigns(t, token, 50);
    t.resetQueries();
    const reply = await t.rest('GET', '/get_campaigns', { token });
    expect(reply.body).toHaveLength(50);
    expect(t.queries.length).toBeLessThanOrEqual(2);
  });
});
