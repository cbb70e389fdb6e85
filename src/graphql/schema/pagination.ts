// Relay connection helpers: page-size cap and opaque keyset cursors that name the kind of list they page.
import { parseCursorConnectionArgs } from '@pothos/core';
import type { Keyset, KeysetPage } from '../../db/keyset.js';
import { z } from 'zod';
import { ablated } from '../../core/ablation.js';
import { badInput } from '../../core/errors.js';

export const MAX_PAGE_SIZE = 100;

/**
 * The options of a bounded list's `limit` argument (docs/graphql.md, "One vocabulary": the lists that are not
 * connections): 1–max, `fallback` when omitted; `order` says which come first.
 */
export const limitArg = (max: number, fallback: number, what: string, order: string) => ({
  required: true as const,
  defaultValue: fallback,
  validate: z.int().min(1).max(max),
  description: `At most this many ${what} (1–${max}), ${order} first.`,
});
/** The page a connection answers when neither `first` nor `last` is given. */
export const DEFAULT_PAGE_SIZE = 20;

interface ConnectionArgs {
  first?: number | null | undefined;
  last?: number | null | undefined;
  after?: string | null | undefined;
  before?: string | null | undefined;
}

/** A page larger than MAX_PAGE_SIZE (or negative) is refused rather than silently cut. */
function checkPageSize(args: ConnectionArgs): void {
  for (const name of ['first', 'last'] as const) {
    const value = args[name];
    if (value != null && (value < 0 || value > MAX_PAGE_SIZE)) {
      throw badInput([
        {
          path: [name],
          type: value < 0 ? 'greater_than_equal' : 'less_than_equal',
          message:
            value < 0
              ? 'Input should be greater than or equal to 0'
              : `Input should be less than or equal to ${MAX_PAGE_SIZE}`,
          input: value,
        },
      ]);
    }
  }
}

/**
 * The lists a cursor can page, one per keyset: a cursor names its kind, and a connection of another kind refuses it
 * (a campaign's position means nothing among call logs). Connections of one kind share their cursors: the call logs
 * of the account and of a campaign, the deliveries of a webhook and of a text pipeline.
 */
export type CursorKind = 'campaign' | 'call-log' | 'meeting' | 'delivery' | 'social-message';

/**
 * A list's order other than its default: its name in cursors (`title:asc`), and when it sorts by a number, the
 * numbers its column holds (a cursor's value outside them was not made here, and the database would refuse it).
 */
export interface ListOrder {
  name: string;
  numeric?: { integer: boolean; min: number; max: number };
}

/**
 * A Relay connection over a keyset-paged list of `listKind`, in `order` (a name, such as `title:asc`; none for the
 * list's default): `keyOf` gives a node's (sort value, id), `load` fetches one page. Page sizes above MAX_PAGE_SIZE and cursors this connection did not make (garbage, or another kind's) are
 * BAD_USER_INPUT. An empty page's start and end cursors are the `after` or `before` given (the position does not
 * move), or null when none was: every cursor a page answers is accepted back.
 */
export function keysetConnection<T>(
  listKind: CursorKind,
  args: ConnectionArgs,
  keyOf: (node: T) => Keyset,
  load: (page: KeysetPage) => Promise<T[] | CutPage<T>>,
  order?: ListOrder,
) {
  checkPageSize(args);
  // A list in another order than its default names the order too: a position in one order means nothing in another.
  const kind = order ? `${listKind}:${order.name}` : listKind;
  const toKey = (cursor: string | undefined, name: string) => decodeCursor(cursor, kind, order?.numeric, name);
  const { before, after, limit, inverted, expectedSize, hasPreviousPage, hasNextPage } = parseCursorConnectionArgs({
    args,
    defaultSize: DEFAULT_PAGE_SIZE,
    maxSize: MAX_PAGE_SIZE,
  });
  return load({ after: toKey(after, 'after'), before: toKey(before, 'before'), limit, inverted }).then((loaded) => {
    const { nodes, resume } = Array.isArray(loaded) ? { nodes: loaded, resume: null } : loaded;
    const page = nodes.slice(0, expectedSize);
    if (inverted) page.reverse();
    // As Pothos's resolveCursorConnection answers, but each cursor is encoded only if the query asks for it.
    const edges = page.map((node) => new Edge(node, kind, keyOf));
    const fallback = args.after ?? args.before ?? null;
    // A page cut short by its work budget goes on from where the walk stopped: that end's cursor is that position.
    const stop = resume ? encodeCursor(kind, resume) : null;
    return {
      edges,
      pageInfo: new PageInfo(
        edges,
        fallback,
        hasPreviousPage(nodes.length) || (inverted && stop !== null),
        hasNextPage(nodes.length) || (!inverted && stop !== null),
        inverted ? stop : null,
        inverted ? null : stop,
      ),
    };
  });
}

/**
 * A page a filtered walk cut short (src/db/filtered-walk.ts): fewer nodes than asked, and the position where the walk
 * stopped reading, past every node (null when the list ended).
 */
export interface CutPage<T> {
  nodes: T[];
  resume: Keyset | null;
}

/**
 * A page's PageInfo, its cursors read from its edges when asked. A class, not an object literal with getters: each
 * literal's getters are new closures that V8 records in an old-generation map, which keeps the closures (and the whole
 * page they see) alive through every young-generation collection until a full one (docs/decisions.md §18).
 */
class PageInfo<T> {
  constructor(
    private readonly edges: Edge<T>[],
    private readonly fallback: string | null,
    readonly hasPreviousPage: boolean,
    readonly hasNextPage: boolean,
    private readonly startStop: string | null = null,
    private readonly endStop: string | null = null,
  ) {}
  get startCursor(): string | null {
    return this.startStop ?? this.edges[0]?.cursor ?? this.fallback;
  }
  get endCursor(): string | null {
    return this.endStop ?? this.edges.at(-1)?.cursor ?? this.fallback;
  }
}

/** An edge whose cursor is made when read (most queries of a list ask for nodes only). */
class Edge<T> {
  #cursor: string | undefined;
  constructor(
    readonly node: T,
    private readonly kind: string,
    private readonly keyOf: (node: T) => Keyset,
  ) {}
  get cursor(): string {
    return (this.#cursor ??= encodeCursor(this.kind, this.keyOf(this.node)));
  }
}

/** The longest cursor decoded; a longer string is refused without reading it. */
const MAX_CURSOR_LENGTH = 4096;

/** base64url of the JSON array [kind (and order), sort value, id]. */
function encodeCursor(kind: string, [sortValue, id]: Keyset): string {
  if (ablated.has('cursors')) return id;
  return Buffer.from(JSON.stringify([kind, sortValue, id])).toString('base64url');
}

/** The value of a JSON text, or undefined when it is not JSON. */
function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isCursorTriple = (values: unknown): values is [string, string | number, string] =>
  Array.isArray(values) &&
  values.length === 3 &&
  typeof values[0] === 'string' &&
  (typeof values[1] === 'string' || (typeof values[1] === 'number' && Number.isFinite(values[1]))) &&
  typeof values[2] === 'string';

const sortValueFits = (value: string | number, numeric: ListOrder['numeric']): boolean =>
  numeric === undefined
    ? typeof value === 'string'
    : typeof value === 'number' &&
      value >= numeric.min &&
      value <= numeric.max &&
      (!numeric.integer || Number.isSafeInteger(value));

/** The keyset of a cursor encodeCursor made for `kind`; anything else is BAD_USER_INPUT at `argName`. */
function decodeCursor(
  cursor: string | undefined,
  kind: string,
  numeric: ListOrder['numeric'],
  argName: string,
): Keyset | undefined {
  if (cursor === undefined) return undefined;
  // No cursor this server makes is longer (a 200-character title of 4-byte characters is about 1.2 KB of it).
  const values =
    cursor.length <= MAX_CURSOR_LENGTH ? parsedJson(Buffer.from(cursor, 'base64url').toString('utf8')) : undefined;
  const isCursor = isCursorTriple(values);
  // A sort value of the other type (a number where this order sorts by text), or a number its column cannot hold, was
  // not made by this server.
  if (isCursor && values[0] === kind && sortValueFits(values[1], numeric)) return [values[1], values[2]];
  throw badInput([
    {
      path: [argName],
      type: 'value_error',
      message:
        isCursor && values[0] !== kind
        ? `a cursor of another list or order (${values[0].slice(0, 100)}), not of this one: pass a cursor this connection returned in the same orderBy`
        : 'not a cursor returned by this connection',
      input: cursor.length <= 100 ? cursor : `${cursor.slice(0, 100)}…`,
    },
  ]);
}

/**
 * The edge type options of a connection of a plain-fields type (src/graphql/schema/plain-fields.ts): each edge is shaped
 * with its node, so that neither the edge's `node` nor the node's columns cost a resolver call.
 */
export const PLAIN_EDGE = { plainFields: true, nodeField: { plain: true } } as const;
