// Campaign metrics are derived from call logs, never stored or taken from clients (DESIGN.md §5, §7).
// Every reader goes through loadCampaignMetrics, batched per request by a dataloader.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';

export interface CampaignMetrics {
  totalCallTime: number;
  totalNumCall: number;
  totalSpent: number;
  averageCallCost: number;
}

export const NO_CALLS: CampaignMetrics = {
  totalCallTime: 0,
  totalNumCall: 0,
  totalSpent: 0,
  averageCallCost: 0,
};

/**
 * Metrics of several campaigns of one account, in the order of `campIds`.
 * The call_logs table arrives with the call-status callbacks; until then no campaign has calls, so this
 * answers without a query. When the table lands, this becomes one grouped aggregate query.
 */
export async function loadCampaignMetrics(
  _db: Kysely<Database>,
  _accountId: string,
  campIds: readonly string[],
): Promise<CampaignMetrics[]> {
  return campIds.map(() => ({ ...NO_CALLS }));
}
