// Lists sorted the way dashboards need (docs/dashboards.md "Sorted lists"): each order of a list is walked by an index
// in that order, tie-broken by the id, per account and (call logs) per campaign, so that a page reads its own rows and
// no more. Durations and costs not reported yet (and costs that are no finite amount) sort as -1: the index is on that
// expression, which the lists' ORDER BY repeats word for word (a NULL would break the keyset's row comparison, and a
// cursor cannot carry Infinity or NaN).
import { type Kysely, sql } from 'kysely';

const CAMPAIGN_INDEXES: Array<[string, string[]]> = [
  ['campaigns_account_updated', ['account_id', 'updated_at', 'camp_id']],
  ['campaigns_account_title', ['account_id', 'title', 'camp_id']],
  ['campaigns_account_status_id', ['account_id', 'status', 'camp_id']],
];

/** A call's cost as lists sort it: -1 when not reported, or not a finite amount (stored before prices were capped). */
const COST = '(CASE WHEN cost >= 0 AND cost <= 1e12 THEN cost ELSE -1 END)';

/** Call log indexes: the name, and the key (the sort expression between the scope and the id). */
const CALL_LOG_INDEXES: Array<[string, string]> = [
  ['call_logs_account_duration', 'account_id, coalesce(duration_seconds, -1), call_id'],
  ['call_logs_account_cost', `account_id, ${COST}, call_id`],
  ['call_logs_account_status_id', 'account_id, status, call_id'],
  ['call_logs_campaign_duration', 'account_id, camp_id, coalesce(duration_seconds, -1), call_id'],
  ['call_logs_campaign_cost', `account_id, camp_id, ${COST}, call_id`],
  ['call_logs_campaign_status_id', 'account_id, camp_id, status, call_id'],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, columns] of CAMPAIGN_INDEXES) {
    await db.schema.createIndex(name).on('campaigns').columns(columns).execute();
  }
  for (const [name, key] of CALL_LOG_INDEXES) {
    await db.schema.createIndex(name).on('call_logs').expression(sql.raw(key)).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of [...CALL_LOG_INDEXES, ...CAMPAIGN_INDEXES]) await db.schema.dropIndex(name).execute();
}
