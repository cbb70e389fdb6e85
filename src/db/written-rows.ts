// What a write statement wrote, read off Kysely's operation tree (docs/graphql-internals.md, "Live queries"): its table, its
// kind, and for each row the column values known of it — the rows it returned (RETURNING), over what the statement
// pins down: an insert's values, or the `column = value` (and `column in (values)`) conditions an update's or a
// delete's WHERE joins with AND. Live queries are invalidated from these facts (src/graphql/live/live-keys.ts), for every
// write of every code path, in this one place.
//
// An upsert (INSERT … ON CONFLICT) may change a row other than the one it proposed: of its values only the conflict
// target's columns are trusted, unless it returned the rows. A statement with RETURNING that returned no row wrote
// none. A statement whose rows cannot be told (raw SQL, an insert from a SELECT) names its table with no columns, or no
// table at all; whoever reads the facts then has to assume the worst.
import type { OperationNode, RootOperationNode } from 'kysely';

/** The rows of one table a write touched, each as the column values known of it (possibly none). */
export interface WrittenRows {
  /** null: the statement is not one Kysely built (raw SQL); anything may have changed. */
  table: string | null;
  /** A delete also removes the rows that reference these through foreign keys ON DELETE CASCADE. */
  kind?: 'insert' | 'update' | 'delete';
  rows: Array<Record<string, unknown>>;
}

/** More rows than this in one statement are summed up by their account (the column `account_id`) alone. */
export const MAX_ROWS_PER_STATEMENT = 1000;

type Node = OperationNode & Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';

/** The name of a table node (`TableNode`, possibly aliased). */
function tableName(node: unknown): string | null {
  if (!isNode(node)) return null;
  if (node.kind === 'AliasNode') return tableName(node.node);
  if (node.kind !== 'TableNode') return null;
  const identifier = (node.table as { identifier?: { name?: unknown } } | undefined)?.identifier;
  return typeof identifier?.name === 'string' ? identifier.name : null;
}

/** The column a reference or column node names. */
function columnName(node: unknown): string | null {
  if (!isNode(node)) return null;
  if (node.kind === 'ReferenceNode') return columnName(node.column);
  if (node.kind !== 'ColumnNode') return null;
  const name = (node.column as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : null;
}

/** The values of a value node or a value list; undefined when any of them is not a plain value. */
function valuesOf(node: unknown): unknown[] | undefined {
  if (!isNode(node)) return undefined;
  if (node.kind === 'ValueNode') return [node.value];
  if (node.kind === 'PrimitiveValueListNode') return node.values as unknown[];
  if (node.kind === 'ValueListNode') {
    const values: unknown[] = [];
    for (const item of node.values as unknown[]) {
      if (!isNode(item) || item.kind !== 'ValueNode') return undefined;
      values.push(item.value);
    }
    return values;
  }
  if (node.kind === 'ParensNode') return valuesOf(node.node);
  return undefined;
}

/** The `column = value` and `column in (...)` conditions a WHERE joins with AND (others narrow it further: ignored). */
function pinnedColumns(node: unknown, into: Map<string, unknown[]>): void {
  if (!isNode(node)) return;
  if (node.kind === 'WhereNode' || node.kind === 'ParensNode') return pinnedColumns(node.where ?? node.node, into);
  if (node.kind === 'AndNode') {
    pinnedColumns(node.left, into);
    pinnedColumns(node.right, into);
    return;
  }
  if (node.kind !== 'BinaryOperationNode') return;
  const operator = (node.operator as { operator?: unknown } | undefined)?.operator;
  if (operator !== '=' && operator !== 'in') return;
  const column = columnName(node.leftOperand);
  const values = valuesOf(node.rightOperand);
  if (column && values && !into.has(column)) into.set(column, values);
}

/** Every combination of the pinned columns' values, as rows (one row with no columns when nothing is pinned). */
function rowsOf(pinned: Map<string, unknown[]>): Array<Record<string, unknown>> {
  let rows: Array<Record<string, unknown>> = [{}];
  for (const [column, values] of pinned) {
    rows = rows.flatMap((row) => values.map((value) => ({ ...row, [column]: value })));
    if (rows.length > MAX_ROWS_PER_STATEMENT) return summed(rows);
  }
  return rows;
}

/** Many rows, summed up by their account. */
function summed(rows: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const accounts = new Set(rows.map((row) => row.account_id));
  return [...accounts].map((account) => (account === undefined ? {} : { account_id: account }));
}

function insertedRows(node: Node): Array<Record<string, unknown>> {
  const columns = ((node.columns as unknown[] | undefined) ?? []).map(columnName);
  const values = node.values as Node | undefined;
  if (!values || values.kind !== 'ValuesNode') return [{}];
  const rows = (values.values as Node[]).map((list) => {
    const row: Record<string, unknown> = {};
    const items =
      list.kind === 'PrimitiveValueListNode'
        ? (list.values as unknown[])
        : (list.values as unknown[]).map((item) => (isNode(item) && item.kind === 'ValueNode' ? item.value : item));
    columns.forEach((column, index) => {
      if (column && !isNode(items[index])) row[column] = items[index];
    });
    return row;
  });
  return rows.length > MAX_ROWS_PER_STATEMENT ? summed(rows) : rows;
}

/** The columns an upsert's ON CONFLICT names (its conflict target). */
function conflictColumns(node: Node): Set<string> | null {
  const conflict = node.onConflict as { columns?: unknown[] } | undefined;
  if (!conflict) return null;
  return new Set((conflict.columns ?? []).map(columnName).filter((name): name is string => name !== null));
}

/** The values every row shares (what stays true of each row whatever RETURNING says). */
function common(rows: Array<Record<string, unknown>>): Record<string, unknown> {
  const [first, ...others] = rows;
  if (!first) return {};
  return Object.fromEntries(
    Object.entries(first).filter(([column, value]) => others.every((row) => row[column] === value)),
  );
}

const only = (row: Record<string, unknown>, columns: Set<string>) =>
  Object.fromEntries(Object.entries(row).filter(([column]) => columns.has(column)));

/**
 * What a write statement wrote. `returned`: the rows it answered, when it has RETURNING (they are the rows as they are
 * now, and the only ones written).
 */
export function writtenRows(node: RootOperationNode, returned?: readonly unknown[]): WrittenRows {
  const tree = node as unknown as Node;
  let table: string | null = null;
  let kind: WrittenRows['kind'];
  let rows: Array<Record<string, unknown>>;
  switch (tree.kind) {
    case 'InsertQueryNode': {
      table = tableName(tree.into);
      kind = 'insert';
      const conflict = conflictColumns(tree);
      rows = insertedRows(tree);
      if (conflict) rows = rows.map((row) => only(row, conflict));
      break;
    }
    case 'UpdateQueryNode': {
      const pinned = new Map<string, unknown[]>();
      pinnedColumns(tree.where, pinned);
      table = tableName(tree.table);
      kind = 'update';
      rows = rowsOf(pinned);
      break;
    }
    case 'DeleteQueryNode': {
      const froms = (tree.from as { froms?: unknown[] } | undefined)?.froms ?? [];
      const pinned = new Map<string, unknown[]>();
      pinnedColumns(tree.where, pinned);
      table = froms.length === 1 ? tableName(froms[0]) : null;
      kind = 'delete';
      rows = rowsOf(pinned);
      break;
    }
    default:
      return { table: null, rows: [{}] };
  }
  if (tree.returning && returned) {
    const base = common(rows);
    const answered = returned.filter((row): row is Record<string, unknown> => typeof row === 'object' && row !== null);
    rows = answered.map((row) => ({ ...base, ...row }));
    if (rows.length > MAX_ROWS_PER_STATEMENT) rows = summed(rows);
  }
  return { table, kind, rows };
}
