// Multi-row inserts go in chunks: one statement may bind only so many values (SQLite 32 766, PostgreSQL 65 535).
// 500 rows of up to 16 columns stay well under both.
export const INSERT_CHUNK_ROWS = 500;

export function chunks<T>(rows: readonly T[], size = INSERT_CHUNK_ROWS): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < rows.length; start += size) result.push(rows.slice(start, start + size));
  return result;
}
