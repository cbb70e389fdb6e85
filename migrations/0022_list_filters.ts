// Filtered lists (docs/dashboards.md "Filters"): the filters a list's default order walks by an index of their own —
// the number called or calling (call logs, newest first), the language and the voice (campaigns, newest first) — and
// the short results of each post-call analysis, which a filter searches without parsing the analysis
// (src/domain/analysis-results.ts). Several campaigns and several statuses walk the indexes of 0006_call_logs.ts and
// 0021_list_orders.ts, one per value.
import type { Kysely } from 'kysely';
import { analysisResultsOf } from '../src/db/analysis-results.js';

const INDEXES: Array<[string, string, string[]]> = [
  ['call_logs_account_to_started', 'call_logs', ['account_id', 'to_number', 'started_at', 'call_id']],
  ['call_logs_account_from_started', 'call_logs', ['account_id', 'from_number', 'started_at', 'call_id']],
  ['campaigns_account_language_created', 'campaigns', ['account_id', 'language', 'created_at', 'camp_id']],
  ['campaigns_account_voice_created', 'campaigns', ['account_id', 'voice', 'created_at', 'camp_id']],
];

/** Call logs read at a time while the results of the analyses recorded before are written. */
const BACKFILL_BATCH = 500;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, table, columns] of INDEXES) await db.schema.createIndex(name).on(table).columns(columns).execute();
  await db.schema.alterTable('call_logs').addColumn('analysis_results', 'text').execute();
  let after: { account_id: string; call_id: string } | null = null;
  for (;;) {
    let query = db
      .selectFrom('call_logs')
      .select(['account_id', 'call_id', 'analysis'])
      .where('analysis', 'is not', null)
      .orderBy('account_id')
      .orderBy('call_id')
      .limit(BACKFILL_BATCH);
    if (after) {
      const { account_id, call_id } = after;
      query = query.where((eb) =>
        eb.or([
          eb('account_id', '>', account_id),
          eb.and([eb('account_id', '=', account_id), eb('call_id', '>', call_id)]),
        ]),
      );
    }
    const rows = (await query.execute()) as Array<{ account_id: string; call_id: string; analysis: string }>;
    for (const row of rows) {
      const results = analysisResultsOf(JSON.parse(row.analysis) as unknown);
      if (results === null) continue;
      await db
        .updateTable('call_logs')
        .set({ analysis_results: results })
        .where('account_id', '=', row.account_id)
        .where('call_id', '=', row.call_id)
        .execute();
    }
    if (rows.length < BACKFILL_BATCH) break;
    after = rows.at(-1)!;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('call_logs').dropColumn('analysis_results').execute();
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute();
}
