// Caps found by the hostile-input probe of 2026-11-27: a campaign's postCallAnalysisSchema was taken at any size (a
// 560 KB schema made campaign_get answer 1.1 MB), and a cursor of any length was decoded and echoed back whole. Both
// are refused now, on every door, and the echo is cut short.
import { afterEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const schemaOf = (characters: number) => {
  const padding = 'x'.repeat(characters - JSON.stringify({ type: 'object', description: '' }).length);
  return { type: 'object', description: padding };
};

describe('input size caps', () => {
  it('a postCallAnalysisSchema of at most 50 000 characters as JSON, by REST and GraphQL', async () => {
    t = await startApp();
    const { token } = await t.account();
    const save = (schema: object) =>
      t!.rest('POST', '/update_campaign', {
        token,
        body: { campId: 'sized', campaignModelData: campaignModelData({ postCallAnalysisSchema: schema }) },
      });
    expect((await save(schemaOf(50_000))).status).toBe(200);
    const refused = await save(schemaOf(50_001));
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('at most 50000 characters as JSON');
    const update = await t.gql(
      'mutation ($input: CampaignUpdateInput!) { campaignUpdate(input: $input) { campaign { campId } } }',
      { input: { campId: 'sized', postCallAnalysisSchema: schemaOf(60_000) } },
      token,
    );
    expect(update.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(update.body.errors)).toContain('at most 50000 characters as JSON');
  });

  it('a cursor longer than any the server makes is refused without decoding, and echoed cut short', async () => {
    t = await startApp();
    const { token } = await t.account();
    const long = 'A'.repeat(5000);
    const answer = await t.gql(
      'query ($after: String) { campaigns(first: 1, after: $after) { edges { cursor } } }',
      { after: long },
      token,
    );
    const error = answer.body.errors?.[0];
    expect(error?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(error?.message).toMatch(/not a cursor returned by this connection/);
    expect(JSON.stringify(answer.body).length).toBeLessThan(1000);
  });
});
