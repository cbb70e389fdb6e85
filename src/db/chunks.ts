// Batches of rows: multi-row inserts go in chunks (one statement may bind only so many values: SQLite 32 766,
// PostgreSQL 65 535; 500 rows of up to 16 columns stay well under both), and batched reads are split per key.
export const INSERT_CHUNK_ROWS = 500;

export function chunks<T>(rows: readonly T[], size = INSERT_CHUNK_ROWS): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < rows.length; start += size) result.push(rows.slice(start, start + size));
  return result;
}

/**
 * The rows of one batched query, split per key in the order of `keys` (a dataloader's answer): each key's list keeps
 * the rows' order, and a key without rows gets an empty list.
 */
export function groupedBy<Row, Item>(
  keys: readonly string[],
  rows: readonly Row[],
  keyOf: (row: Row) => string,
  itemOf: (row: Row) => Item,
): Item[][] {
  const byKey = new Map<string, Item[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const list = byKey.get(key);
    if (list) list.push(itemOf(row));
    else byKey.set(key, [itemOf(row)]);
  }
  return keys.map((key) => byKey.get(key) ?? []);
}
