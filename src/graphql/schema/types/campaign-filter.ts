// The `filter` of the campaign list (docs/dashboards.md "Filters"): several statuses, a language, a voice, created and
// updated spans (the list's `search` argument searches). Every given filter must hold.
import { z } from 'zod';
import { CAMPAIGN_STATUSES, CAMPAIGN_WALK_BUDGET, type CampaignFilters } from '../../../domain/campaigns.js';
import { builder } from '../builder.js';
import { CampaignStatusEnum } from './campaign-status.js';

export const TimeSpanInput = builder.inputType('TimeSpan', {
  description: 'A span of time, both ends inclusive; either may be left out.',
  fields: (t) => ({
    from: t.field({ type: 'DateTime', description: 'From.' }),
    to: t.field({ type: 'DateTime', description: 'To.' }),
  }),
});

export const CampaignFilterInput = builder.inputType('CampaignFilter', {
  description:
    'Which campaigns a list shows; every given filter must hold. Each page reads at most ' +
    `${CAMPAIGN_WALK_BUDGET} campaigns in the list's order: a filter that matches few of them can answer a page ` +
    'shorter than asked, even empty, with hasNextPage true and an endCursor to go on from (docs/dashboards.md, ' +
    '"Filters").',
  fields: (t) => ({
    statuses: t.field({
      type: [CampaignStatusEnum],
      validate: z.array(z.enum(CAMPAIGN_STATUSES)).min(1).max(CAMPAIGN_STATUSES.length * 2).nullish(),
      description: 'Any of these statuses.',
    }),
    language: t.string({
      validate: z.string().min(1).max(35).nullish(),
      description: 'This language tag, as stored (`en-US`).',
    }),
    voice: t.string({
      validate: z.string().min(1).max(200).nullish(),
      description: 'This voiceId.',
    }),
    created: t.field({ type: TimeSpanInput, description: 'Created in this span.' }),
    updated: t.field({ type: TimeSpanInput, description: 'Last changed in this span.' }),
  }),
});

type SpanInput = { from?: Date | null; to?: Date | null } | null | undefined;
const span = (given: SpanInput) => given && { from: given.from?.toISOString(), to: given.to?.toISOString() };

/** The GraphQL filter as the domain takes it. */
export function campaignFilters(input: typeof CampaignFilterInput.$inferInput | null | undefined): CampaignFilters | null {
  if (!input) return null;
  return { ...input, created: span(input.created), updated: span(input.updated) } as CampaignFilters;
}

/** What a filtered list costs beyond its page (docs/limits.md): the campaigns its walk may read, a point per 20. */
export const CAMPAIGN_FILTER_COST = Math.ceil(CAMPAIGN_WALK_BUDGET / 20);
