// The legacy campaign bodies: the whole campaign (update_campaign, get_campaign) and the list entry (get_campaigns).
import { z } from 'zod';
import type { CampaignData } from '../../domain/campaign-fields.js';
import type { CampaignStatus } from '../../domain/campaigns.js';
import { dateTime, enumOf } from './common.js';

export const campaignStatus = enumOf<CampaignStatus>({ active: true, paused: true, completed: true });

/** The stored campaign as the legacy service returned it: model fields, status, dates, derived metrics. */
export const legacyCampaignResponse = z
  .object({
    campId: z.string(),
    status: campaignStatus,
    creationDate: dateTime,
    updatedAt: dateTime,
    title: z.string(),
    voice: z.string().describe('A voiceId of get_supported_voices'),
    language: z.string(),
    script: z.string(),
    purpose: z.string(),
    knowledgeBase: z.string(),
    calendar: z.string(),
    firstLine: z.string(),
    flowName: z.string(),
    systemPrompt: z.string(),
    tone: z.string(),
    maxCallTimeout: z.int(),
    inactiveCallTimeout: z.int(),
    postCallAnalysis: z.boolean(),
    postCallAnalysisSchema: z.record(z.string(), z.unknown()),
    timeZone: z.string(),
    isFreeflow: z.boolean(),
    public: z.boolean(),
    sampleSid: z.string(),
    description: z.string(),
    totalCallTime: z.int().describe('Seconds of calls, summed (derived from the call logs)'),
    totalNumCall: z.int().describe('Calls, whatever their status (derived from the call logs)'),
    totalSpent: z.number().describe('The calls’ reported costs, summed (derived from the call logs)'),
    averageCallCost: z.number().describe('totalSpent over the calls that reported a cost (0 when none did)'),
  })
  .meta({ id: 'LegacyCampaign' });

// The campaign's fields are declared once (src/domain/campaign-fields.ts); the compiler holds the legacy body to them,
// both ways: a field added there must be added here, with the same type.
type ModelFields = Pick<z.output<typeof legacyCampaignResponse>, keyof CampaignData>;
const _sameModel: [ModelFields, CampaignData] extends [CampaignData, ModelFields] ? true : never = true;

/** The legacy interface's list entry (legacy-interface.md §2.2). */
export const campaignListEntryResponse = z
  .object({
    campaignId: z.string().describe('The campaign’s campId'),
    name: z.string().describe('Its title'),
    status: campaignStatus,
    creationDate: dateTime,
    details: z.string().nullable().describe('Its description; null when empty'),
  })
  .meta({ id: 'CampaignListEntry' });
