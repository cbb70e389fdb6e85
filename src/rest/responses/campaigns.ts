// The legacy campaign bodies: the whole campaign (update_campaign, get_campaign) and the list entry (get_campaigns).
import { z } from 'zod';
import { campaignOutputFields } from '../../domain/campaigns.schema.js';
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
    // Every model field, from its declaration (src/domain/campaigns.schema.ts).
    ...campaignOutputFields,
    totalCallTime: z.int().describe('Seconds of calls, summed (derived from the call logs)'),
    totalNumCall: z.int().describe('Calls, whatever their status (derived from the call logs)'),
    totalSpent: z.number().describe('The calls’ reported costs, summed (derived from the call logs)'),
    averageCallCost: z.number().describe('totalSpent over the calls that reported a cost (0 when none did)'),
  })
  .meta({ id: 'LegacyCampaign' });

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
