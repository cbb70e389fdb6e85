// Filtered lists (docs/dashboards.md "Filters"): the filters a list's default order walks by an index of their own —
// the number called or calling (call logs, newest first), the language and the voice (campaigns, newest first).
// Several campaigns and several statuses walk the indexes of 0006_call_logs.ts and 0021_list_orders.ts, one per value.
import type { Kysely } from 'kysely';

const INDEXES: Array<[string, string, string[]]> = [
  ['call_logs_account_to_started', 'call_logs', ['account_id', 'to_number', 'started_at', 'call_id']],
  ['call_logs_account_from_started', 'call_logs', ['account_id', 'from_number', 'started_at', 'call_id']],
  ['campaigns_account_language_created', 'campaigns', ['account_id', 'language', 'created_at', 'camp_id']],
  ['campaigns_account_voice_created', 'campaigns', ['account_id', 'voice', 'created_at', 'camp_id']],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, table, columns] of INDEXES) await db.schema.createIndex(name).on(table).columns(columns).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute();
}
