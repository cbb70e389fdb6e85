// Campaign metrics are derived from call logs, never stored or taken from clients (docs/decisions.md §5, §7).
// Every reader goes through loadCampaignMetrics, batched per request by a dataloader: one grouped query.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';

export interface CampaignMetrics {
  /** Seconds, summed over the calls that reported a duration. */
  totalCallTime: number;
  /** Every call the campaign has a log of, whatever its status. */
  totalNumCall: number;
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
  const rows = await db
    .selectFrom('call_logs')
    .select((eb) => [
      'camp_id',
      eb.fn.countAll().as('calls'),
      eb.fn.sum<number | string | null>('duration_seconds').as('seconds'),
      eb.fn.sum<number | string | null>('cost').as('spent'),
      eb.fn.count('cost').as('costed'),
    ])
    .where('account_id', '=', accountId)
    .where('camp_id', 'in', campIds)
    .groupBy('camp_id')
    .execute();
  // pg returns bigint and numeric aggregates as strings; SQLite as numbers.
  const byCampaign = new Map(
    rows.map((row) => {
      const spent = Number(row.spent ?? 0);
      const costed = Number(row.costed);
      return [
        row.camp_id,
        {
          totalCallTime: Number(row.seconds ?? 0),
          totalNumCall: Number(row.calls),
          totalSpent: spent,
          averageCallCost: costed > 0 ? spent / costed : 0,
        },
      ];
    }),
  );
  return campIds.map((campId) => byCampaign.get(campId) ?? { ...NO_CALLS });
}
