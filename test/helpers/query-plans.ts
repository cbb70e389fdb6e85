// Query plans of the statements a test app ran (test/helpers/app.ts `statements`): which indexes they walk, whether
// they sort rows the index does not give in order, and whether they scan a table whole. On PostgreSQL the plan is
// read with sequential scans and sorts priced out (a test table is small enough that a scan would win otherwise): a
// plan that still scans or sorts has no index that could serve it.
import { CompiledQuery, sql } from 'kysely';
import { DIALECT, type TestApp } from './app.js';

export interface Plan {
  /** The indexes it walks. */
  indexes: string[];
  /** It sorts rows (no index gives them in the order asked). */
  sorts: boolean;
  /** The tables it reads whole (no index narrows them). */
  scans: string[];
  /** The plan as the database wrote it, for the failure message. */
  text: string;
}

interface PgNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PgNode[];
}

export async function planOf(t: TestApp, statement: { sql: string; parameters: readonly unknown[] }): Promise<Plan> {
  const db = t.app.database.db;
  if (DIALECT === 'sqlite') {
    const { rows } = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`EXPLAIN QUERY PLAN ${statement.sql}`, [...statement.parameters]),
    );
    const details = rows.map((row) => row.detail);
    return {
      indexes: details.flatMap((detail) => [...detail.matchAll(/USING (?:COVERING )?INDEX (\w+)/g)].map((m) => m[1]!)),
      sorts: details.some((detail) => /USE TEMP B-TREE FOR (ORDER BY|RIGHT PART OF ORDER BY)/.test(detail)),
      scans: details.flatMap((detail) => {
        const scan = /^SCAN (\w+)(?! USING)/.exec(detail);
        return scan && !/USING/.test(detail) ? [scan[1]!] : [];
      }),
      text: details.join('\n'),
    };
  }
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    await sql`set local enable_sort = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PgNode }> }>(
      CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${statement.sql}`, [...statement.parameters]),
    );
    const root = rows[0]!['QUERY PLAN'][0]!.Plan;
    const nodes: PgNode[] = [];
    const walk = (node: PgNode) => {
      nodes.push(node);
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(root);
    return {
      indexes: nodes.flatMap((node) => (node['Index Name'] ? [node['Index Name']] : [])),
      sorts: nodes.some((node) => /Sort/.test(node['Node Type'])),
      scans: nodes.flatMap((node) => (node['Node Type'] === 'Seq Scan' ? [node['Relation Name'] ?? '?'] : [])),
      text: JSON.stringify(root, null, 1),
    };
  });
}

/** The last statement the app ran that reads `table` and matches `like` (the page query of a list). */
export function lastStatement(t: TestApp, table: string, like: RegExp = /order by/i) {
  const found = [...t.statements]
    .reverse()
    .find((s) => new RegExp(`from "?${table}"?`, 'i').test(s.sql) && like.test(s.sql));
  if (!found) throw new Error(`no statement read ${table} (${t.statements.length} recorded)`);
  return found;
}
