// The CampaignStatus enum, shared by the campaign type and its list filter.
import { builder } from '../builder.js';

export const CampaignStatusEnum = builder.enumType('CampaignStatus', {
  description: 'active ⇄ paused → completed (terminal).',
  values: {
    ACTIVE: { value: 'active', description: 'Running: the status of a new campaign, and of a resumed one.' },
    PAUSED: { value: 'paused', description: 'Paused by `campaignPause` until `campaignResume`.' },
    COMPLETED: {
      value: 'completed',
      description: 'Finished by `campaignComplete`, for good: it can no longer change.',
    },
  } as const,
});
