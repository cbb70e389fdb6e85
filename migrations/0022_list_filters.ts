// Filtered lists (docs/dashboards.md "Filters"): the filters a list's default order walks by an index of their own —
// the number called or calling (call logs, newest first), the language and the voice (campaigns, newest first) — and
// the short results of each post-call analysis, which a filter searches without parsing the analysis
// (src/db/analysis-results.ts). Several campaigns and several statuses walk the indexes of 0006_call_logs.ts and
// 0021_list_orders.ts, one per value.
// SQLite runs no DDL in the migration's transaction (Kysely's adapter): every step can run again after a crash
// half-way (indexes if not there, the column if not there, the results of the calls that have none yet).
import { type Kysely, sql } from 'kysely';
import { analysisResultsOf } from '../src/db/analysis-results.js';
import { dialectOf } from '../src/db/dialect.js';

const INDEXES: Array<[string, string, string[]]> = [
  ['call_logs_account_to_started', 'call_logs', ['account_id', 'to_number', 'started_at', 'call_id']],
  ['call_logs_account_from_started', 'call_logs', ['account_id', 'from_number', 'started_at', 'call_id']],
  ['campaigns_account_language_created', 'campaigns', ['account_id', 'language', 'created_at', 'camp_id']],
  ['campaigns_account_voice_created', 'campaigns', ['account_id', 'voice', 'created_at', 'camp_id']],
];

/** Call logs read (and written, one statement an account) at a time while the results are filled in. */
export const BACKFILL_BATCH = 500;

interface Recorded {
  account_id: string;
  call_id: string;
  analysis: string;
}

/** The results of the analyses recorded before they were kept, batch by batch in key order. */
async function backfill(db: Kysely<any>): Promise<void> {
  let after: Recorded | null = null;
  for (;;) {
    let query = db
      .selectFrom('call_logs')
      .select(['account_id', 'call_id', 'analysis'])
      .where('analysis', 'is not', null)
      .where('analysis_results', 'is', null)
      .orderBy('account_id')
      .orderBy('call_id')
      .limit(BACKFILL_BATCH);
    // A row value: an index range on the primary key on both databases.
    if (after) query = query.where(sql<boolean>`(account_id, call_id) > (${after.account_id}, ${after.call_id})`);
    const rows = (await query.execute()) as Recorded[];
    const byAccount = new Map<string, Array<[string, string]>>();
    for (const row of rows) {
      let results: string | null = null;
      try {
        results = analysisResultsOf(JSON.parse(row.analysis) as unknown);
      } catch {
        // Not JSON (never written so by this gateway): no results to filter on.
      }
      if (results === null) continue;
      const calls = byAccount.get(row.account_id) ?? [];
      calls.push([row.call_id, results]);
      byAccount.set(row.account_id, calls);
    }
    for (const [accountId, calls] of byAccount) {
      const cases = sql.join(
        calls.map(([callId, results]) => sql`when ${callId} then ${results}`),
        sql` `,
      );
      await db
        .updateTable('call_logs')
        .set({ analysis_results: sql`case call_id ${cases} end` })
        .where('account_id', '=', accountId)
        .where(
          'call_id',
          'in',
          calls.map(([callId]) => callId),
        )
        .execute();
    }
    if (rows.length < BACKFILL_BATCH) break;
    after = rows.at(-1)!;
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, table, columns] of INDEXES) {
    await db.schema.createIndex(name).ifNotExists().on(table).columns(columns).execute();
  }
  // PostgreSQL runs the whole migration in one transaction: the column is never there already.
  const added =
    dialectOf(db) === 'sqlite' &&
    (await sql<{ name: string }>`pragma table_info(call_logs)`.execute(db)).rows.some(
      (column) => column.name === 'analysis_results',
    );
  if (!added) await db.schema.alterTable('call_logs').addColumn('analysis_results', 'text').execute();
  await backfill(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('call_logs').dropColumn('analysis_results').execute();
  for (const [name] of INDEXES) await db.schema.dropIndex(name).ifExists().execute();
}
