// Filtered lists (docs/dashboards.md "Filters"): a page is a walk of one index in the list's order, or of one index per
// value when a filter names several values of a column the index begins with (several campaigns, several statuses),
// merged in order by the database. The filters no index of that order serves are checked on the rows the walk reads,
// and the walk reads at most a budget of rows a page: a filter that matches little ends its page early, with a cursor
// where the walk stopped (hasNextPage true), instead of reading an account's whole call history.
import { type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { type Keyset, type KeysetPage, keysetPage, type SortKey } from './keyset.js';
import type { Database } from './types.js';

type Select = SelectQueryBuilder<Database, keyof Database, object>;

export interface Walk {
  /**
   * One query per arm (the rows of one value of the columns the index begins with, or all of the scope), its scope,
   * equalities and index ranges applied, nothing selected. At most MAX_ARMS.
   */
  arms: readonly Select[];
  /** The order: the sort key (as the index holds it) and the id. */
  keys: readonly [SortKey, string];
  ascending: boolean;
  /** The sort values are numbers (pg answers a bigint as a string). */
  numeric: boolean;
  /** What no index of this order serves, checked on the rows walked; null when the arms' indexes serve every filter. */
  residual: RawBuilder<SqlBool> | null;
  /** Rows a page may read, over all arms and passes: with many arms, each reads its share (a page may end short). */
  budget: number;
}

/** A page of a walk: the keys that matched, in order, and where the walk stopped when its budget ran out first. */
export interface WalkedPage {
  keys: Keyset[];
  resume: Keyset | null;
}

/** Arms of one walk: a filter naming more values than this is refused by its input's validation. */
export const MAX_ARMS = 64;

interface WalkRow {
  sort_value: string | number;
  walk_id: string;
  matched: number | string | boolean;
  arm: number | string;
}

/** The values both lists allow (null: no list, any value); duplicates are dropped. */
export function bothAllow<T>(given: readonly T[] | null, more: readonly T[] | null | undefined): T[] | null {
  if (more == null) return given === null ? null : [...given];
  const unique = [...new Set(more)];
  return given === null ? unique : unique.filter((value) => given.includes(value));
}

/**
 * The nodes of a walked page, read after the walk, each with the key the walk found it at (its cursor: a call whose
 * status or duration changed since is still where the walk saw it). A row gone between the walk and the read (deleted)
 * is left out; when the walk had found the row past the page (the page is full), the page then ends at its last key
 * walked, so that hasNextPage stays true and the next page starts after it.
 */
export function keptNodes<T>(
  walked: WalkedPage,
  limit: number,
  nodeOf: (key: Keyset) => T | undefined,
): { nodes: Array<{ node: T; key: Keyset }>; resume: Keyset | null } {
  const read = walked.keys.map((key) => ({ key, node: nodeOf(key) }));
  const kept = (entries: typeof read) =>
    entries.flatMap((entry) => (entry.node === undefined ? [] : [{ key: entry.key, node: entry.node }]));
  const nodes = kept(read);
  if (nodes.length === read.length || read.length < limit || limit < 2) return { nodes, resume: walked.resume };
  return { nodes: kept(read.slice(0, limit - 1)), resume: read[limit - 2]!.key };
}

/** The conditions, all of them (null when there are none). */
export const allOf = (conditions: ReadonlyArray<RawBuilder<SqlBool>>): RawBuilder<SqlBool> | null =>
  conditions.length === 0 ? null : sql<SqlBool>`(${sql.join(conditions, sql` and `)})`;

/** One pass: `width` rows of each arm in `active` from `page`'s bounds on, merged in order by the database. */
function pass(db: Kysely<Database>, walk: Walk, page: KeysetPage, active: readonly number[], width: number) {
  const [sortKey, idColumn] = walk.keys;
  const sortColumn = typeof sortKey === 'string' ? sql.ref(sortKey) : sortKey;
  const matched = walk.residual ? sql<number>`case when ${walk.residual} then 1 else 0 end` : sql<number>`1`;
  const order = walk.ascending ? 'oldest first' : 'newest first';
  const armQuery = (arm: number) =>
    keysetPage(
      walk.arms[arm]!.select([
        sql<string | number>`${sortColumn}`.as('sort_value'),
        sql<string>`${sql.ref(idColumn)}`.as('walk_id'),
        matched.as('matched'),
        sql<number>`${sql.lit(arm)}`.as('arm'),
      ]),
      walk.keys,
      { ...page, limit: width },
      order,
    );
  if (active.length === 1) return armQuery(active[0]!);
  // SQLite takes no ORDER BY or LIMIT in the arm of a compound select: each arm is a subquery.
  const [first, ...rest] = active.map((arm) => db.selectFrom(armQuery(arm).as(`arm${arm}`)).selectAll());
  let merged = first!;
  for (const arm of rest) merged = merged.unionAll(arm);
  const direction = page.inverted !== walk.ascending ? sql`asc` : sql`desc`;
  return merged.orderBy(sql`sort_value ${direction}`).orderBy(sql`walk_id ${direction}`);
}

/**
 * The keys of one page of `walk` (`page.limit` of them, or fewer where the list or the budget ends). Each pass reads
 * up to `width` rows of each arm still open; rows are known to be all the matches up to the first open arm's last row
 * (the frontier), so the next pass starts there, four times wider, until the page is full or the budget spent.
 */
export async function walkPage(db: Kysely<Database>, walk: Walk, page: KeysetPage): Promise<WalkedPage> {
  if (walk.arms.length > MAX_ARMS || walk.arms.length > walk.budget)
    throw new Error('a walk of more arms than it may read');
  // The budget holds however many arms there are (at most MAX_ARMS, fewer than any budget): each reads its share.
  const budget = walk.budget;
  const keyOf = (row: WalkRow): Keyset => [walk.numeric ? Number(row.sort_value) : row.sort_value, row.walk_id];
  const found: Keyset[] = [];
  let active = walk.arms.map((_, arm) => arm);
  let bounds = page;
  let examined = 0;
  let width = page.limit;
  for (;;) {
    // Within the budget: the first pass of many arms may read fewer than a page of each.
    width = Math.max(1, Math.min(width, Math.floor((budget - examined) / active.length)));
    const rows = (await pass(db, walk, bounds, active, width).execute()) as WalkRow[];
    examined += rows.length;
    const count = new Map<number, number>();
    const last = new Map<number, number>();
    rows.forEach((row, at) => {
      const arm = Number(row.arm);
      count.set(arm, (count.get(arm) ?? 0) + 1);
      last.set(arm, at);
    });
    // An arm that answered all it was asked may hold more: past its last row, the others' rows are not all known yet.
    const open = active.filter((arm) => count.get(arm) === width);
    const frontier = open.length === 0 ? rows.length - 1 : Math.min(...open.map((arm) => last.get(arm)!));
    for (let at = 0; at <= frontier; at++) {
      if (Number(rows[at]!.matched) !== 1) continue;
      found.push(keyOf(rows[at]!));
      if (found.length === page.limit) return { keys: found, resume: null };
    }
    if (open.length === 0) return { keys: found, resume: null };
    const stop = keyOf(rows[frontier]!);
    // The arms to read on: those still open, and those with rows past the frontier (read again from it).
    active = active.filter((arm) => open.includes(arm) || last.get(arm)! > frontier);
    if (budget - examined < active.length) return { keys: found, resume: stop };
    bounds = page.inverted ? { ...page, before: stop } : { ...page, after: stop };
    width *= 4;
  }
}
