// Campaign metrics are derived from call logs, never taken from clients (docs/decisions.md §5, §7): the database
// keeps each campaign's totals as its calls are written (migrations/0020_call_stats.ts). Every reader goes through
// loadCampaignMetrics, batched per request by a dataloader: one query.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';

export interface CampaignMetrics {
  /** Seconds, summed over the calls that reported a duration. */
  totalCallTime: number;
  /** Every call the campaign has a log of, whatever its status. */
  totalNumCall: number;
  /** To a millionth of the currency unit. */
  totalSpent: number;
  /** totalSpent over the calls that reported a cost; 0 when none did. */
  averageCallCost: number;
}

const NO_CALLS: CampaignMetrics = { totalCallTime: 0, totalNumCall: 0, totalSpent: 0, averageCallCost: 0 };

/** Metrics of several campaigns of one account, in the order of `campIds`. */
export async function loadCampaignMetrics(
  db: Kysely<Database>,
  accountId: string,
  campIds: readonly string[],
): Promise<CampaignMetrics[]> {
  if (campIds.length === 0) return [];
  // The totals the database keeps as calls are written (migrations/0020_call_stats.ts): one row per campaign.
  const rows = await db
    .selectFrom('campaign_call_totals')
    .select(['camp_id', 'calls', 'seconds', 'spent_micros', 'costed'])
    .where('account_id', '=', accountId)
    .where('camp_id', 'in', campIds)
    .execute();
  // pg returns bigint columns as strings; SQLite as numbers.
  const byCampaign = new Map(
    rows.map((row) => {
      const spent = Number(row.spent_micros) / 1_000_000;
      const costed = Number(row.costed);
      return [
        row.camp_id,
        {
          totalCallTime: Number(row.seconds),
          totalNumCall: Number(row.calls),
          totalSpent: spent,
          averageCallCost: costed > 0 ? spent / costed : 0,
        },
      ];
    }),
  );
  return campIds.map((campId) => byCampaign.get(campId) ?? { ...NO_CALLS });
}
