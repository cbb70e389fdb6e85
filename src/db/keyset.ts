// Keyset paging shared by every list ordered by (a time, an id): campaigns, call logs, messages (newest first),
// a campaign's meetings (in time order).
import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { Database } from './types.js';

/** A position in the list: the row's sort value (a number for counts and amounts) and its id (the tiebreak). */
export type Keyset = readonly [sortValue: string | number, id: string];

export interface KeysetPage {
  /** Rows after this key in newest-first order. */
  after?: Keyset | undefined;
  /** Rows before this key in newest-first order. */
  before?: Keyset | undefined;
  limit: number;
  /** Walk from the oldest end (Relay `last`); the caller reverses. */
  inverted: boolean;
}

/** What a list is sorted by: a column, or an expression an index is built on (coalesce(duration_seconds, -1)). */
export type SortKey = string | RawBuilder<unknown>;

/**
 * Adds the keyset bounds, order and limit to `query` over (sort, id); both are indexed with the filters. Lists are
 * newest (or largest) first; `order: 'oldest first'` walks the other way (meetings in time order, ascending sorts).
 */
export function keysetPage<QB extends SelectQueryBuilder<Database, keyof Database, object>>(
  query: QB,
  [sortKey, idColumn]: readonly [SortKey, string],
  page: KeysetPage,
  order: 'newest first' | 'oldest first' = 'newest first',
): QB {
  const sortColumn = typeof sortKey === 'string' ? sql.ref(sortKey) : sortKey;
  const columns = sql`(${sortColumn}, ${sql.ref(idColumn)})`;
  const ascending = order === 'oldest first';
  const [onward, back] = ascending ? [sql`>`, sql`<`] : [sql`<`, sql`>`];
  let bounded = query as SelectQueryBuilder<Database, keyof Database, object>;
  if (page.after) bounded = bounded.where(sql<boolean>`${columns} ${onward} (${page.after[0]}, ${page.after[1]})`);
  if (page.before) bounded = bounded.where(sql<boolean>`${columns} ${back} (${page.before[0]}, ${page.before[1]})`);
  const direction = page.inverted !== ascending ? sql`asc` : sql`desc`;
  return bounded
    .orderBy(sql`${sortColumn} ${direction}`)
    .orderBy(sql`${sql.ref(idColumn)} ${direction}`)
    .limit(page.limit) as QB;
}

/** A page as the parameters of a reusable query (src/db/reusable-query.ts): bounds flattened, direction a boolean. */
export interface KeysetParameters {
  afterSort: string | number | null;
  afterId: string | null;
  beforeSort: string | number | null;
  beforeId: string | null;
  limit: number;
  inverted: boolean;
}

export function keysetParameters(page: KeysetPage): KeysetParameters {
  return {
    afterSort: page.after?.[0] ?? null,
    afterId: page.after?.[1] ?? null,
    beforeSort: page.before?.[0] ?? null,
    beforeId: page.before?.[1] ?? null,
    limit: page.limit,
    inverted: page.inverted,
  };
}

/** The page the parameters describe (inside a reusable query's builder: it only tests them for absence). */
export function keysetOf(p: KeysetParameters): KeysetPage {
  return {
    after: p.afterSort !== null && p.afterId !== null ? [p.afterSort, p.afterId] : undefined,
    before: p.beforeSort !== null && p.beforeId !== null ? [p.beforeSort, p.beforeId] : undefined,
    limit: p.limit,
    inverted: p.inverted,
  };
}
