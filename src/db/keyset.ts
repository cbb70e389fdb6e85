// Keyset paging shared by every list ordered by (a time, an id): campaigns, call logs, messages (newest first),
// a campaign's meetings (in time order).
import { type SelectQueryBuilder, sql } from 'kysely';
import type { Database } from './types.js';

/** A position in the list: the row's sort value and its id (the tiebreak). */
export type Keyset = readonly [sortValue: string, id: string];

export interface KeysetPage {
  /** Rows after this key in newest-first order. */
  after?: Keyset | undefined;
  /** Rows before this key in newest-first order. */
  before?: Keyset | undefined;
  limit: number;
  /** Walk from the oldest end (Relay `last`); the caller reverses. */
  inverted: boolean;
}

/**
 * Adds the keyset bounds, order and limit to `query` over the columns (sort, id); both are indexed with the filters.
 * Lists are newest first; `order: 'oldest first'` walks the other way (meetings, in time order).
 */
export function keysetPage<QB extends SelectQueryBuilder<Database, keyof Database, object>>(
  query: QB,
  [sortColumn, idColumn]: readonly [string, string],
  page: KeysetPage,
  order: 'newest first' | 'oldest first' = 'newest first',
): QB {
  const columns = sql`(${sql.ref(sortColumn)}, ${sql.ref(idColumn)})`;
  const ascending = order === 'oldest first';
  const [onward, back] = ascending ? [sql`>`, sql`<`] : [sql`<`, sql`>`];
  let bounded = query as SelectQueryBuilder<Database, keyof Database, object>;
  if (page.after) bounded = bounded.where(sql<boolean>`${columns} ${onward} (${page.after[0]}, ${page.after[1]})`);
  if (page.before) bounded = bounded.where(sql<boolean>`${columns} ${back} (${page.before[0]}, ${page.before[1]})`);
  const direction = page.inverted !== ascending ? sql`asc` : sql`desc`;
  return bounded
    .orderBy(sql`${sql.ref(sortColumn)} ${direction}`)
    .orderBy(sql`${sql.ref(idColumn)} ${direction}`)
    .limit(page.limit) as QB;
}

/** A page as the parameters of a reusable query (src/db/reusable-query.ts): bounds flattened, direction a boolean. */
export interface KeysetParameters {
  afterSort: string | null;
  afterId: string | null;
  beforeSort: string | null;
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
