import type { TestApp } from './app.js';
// A valid legacy campaignModelData (legacy-interface.md §2.1): every required field, including the four metrics.
export function campaignModelData(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Spring outreach',
    voice: 'en-US-aria',
    language: 'en-US',
    script: 'Hello, this is Aria calling about your appointment.',
    purpose: 'Confirm appointments',
    knowledgeBase: 'https://example.com/kb',
    calendar: 'cal-123',
    firstLine: 'Hi, do you have a minute?',
    tone: 'friendly',
    postCallAnalysisSchema: { type: 'object', properties: { confirmed: { type: 'boolean' } } },
    totalCallTime: 0,
    totalNumCall: 0,
    totalSpent: 0,
    averageCallCost: 0,
    ...overrides,
  };
}

/** A minimal valid GraphQL CreateCampaignInput / CampaignDataInput, with overrides. */
export function campaignInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'T',
    voice: 'en-US-aria',
    language: 'en-US',
    script: 's',
    purpose: 'p',
    knowledgeBase: 'kb',
    calendar: 'cal',
    firstLine: 'Hi',
    tone: 'warm',
    postCallAnalysisSchema: {},
    ...overrides,
  };
}

/** Creates (or replaces) campaign `campId` of the account with `token` by the legacy door; throws unless 200. */
export async function createLegacyCampaign(
  t: TestApp,
  token: string,
  campId: string,
  overrides: Record<string, unknown> = {},
): Promise<void> {
  const reply = await t.rest('POST', '/update_campaign', {
    token,
    body: { campId, campaignModelData: campaignModelData(overrides) },
  });
  if (reply.status !== 200) throw new Error(`update_campaign failed: ${reply.text}`);
}
