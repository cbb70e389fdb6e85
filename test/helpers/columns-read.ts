// Helpers for the "lists read what they select" tests (issue 52): seed call logs carrying long texts, and tell which
// long columns each select of a table read, from the SQL the test app recorded.
import { expect } from 'vitest';
import type { TestApp } from './app.js';

/** A seeded call's long texts. */
export interface CallLogTexts {
  transcript: string;
  summary: string;
  analysis: string | null;
}

/** The call id seedCallLogs gives the call at this index (CA0000, CA0001…). */
export const seededCallId = (index: number): string => `CA${String(index).padStart(4, '0')}`;

/**
 * Inserts `count` completed calls of campaign `campId`, one a second from 2026-01-01, with the texts `textsOf` gives;
 * one statement per row, so that megabytes of transcripts never travel as a single statement.
 */
export async function seedCallLogs(
  t: TestApp,
  accountId: string,
  count: number,
  textsOf: (index: number) => CallLogTexts,
  campId = 'calls',
): Promise<void> {
  const at = (index: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + index * 1000).toISOString();
  for (let index = 0; index < count; index++) {
    await t.app.database.db
      .insertInto('call_logs')
      .values({
        account_id: accountId,
        call_id: seededCallId(index),
        camp_id: campId,
        direction: 'outbound-api',
        from_number: '+14155550100',
        to_number: '+14155550101',
        status: 'completed',
        status_rank: 100,
        started_at: at(index),
        ended_at: at(index),
        duration_seconds: 60,
        cost: 0.25,
        recording_url: null,
        ...textsOf(index),
        created_at: at(index),
        updated_at: at(index),
      })
      .execute();
  }
}

/**
 * The long columns each select of `table` read since the last resetQueries (by quoted column name in the SQL;
 * `select *` reads them all), one entry per statement.
 */
export function longColumnsRead(t: TestApp, table: string, columns: readonly string[]): string[][] {
  return t.queries
    .filter((sql) => /^select/i.test(sql) && sql.includes(`from "${table}"`))
    .map((sql) => columns.filter((column) => /^select \*/i.test(sql) || sql.includes(`"${column}"`)));
}

/** Runs a GraphQL query that must answer without errors, and returns its data with what `read` saw it read. */
export async function gqlReading<Read>(
  t: TestApp,
  token: string,
  query: string,
  variables: Record<string, unknown>,
  read: (t: TestApp) => Read,
): Promise<{ data: any; read: Read }> {
  t.resetQueries();
  const reply = await t.gql(query, variables, token);
  expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
  return { data: reply.body.data as any, read: read(t) };
}
