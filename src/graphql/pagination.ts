// Relay connection helpers: page-size cap and opaque keyset cursors.
import { parseCursorConnectionArgs } from '@pothos/core';
import type { Keyset, KeysetPage } from '../db/keyset.js';
import { z } from 'zod';
import { ablated } from '../core/ablation.js';
import { badInput } from '../core/errors.js';

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
const DEFAULT_PAGE_SIZE = 20;

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
 * A Relay connection over a keyset-paged list: `keyOf` gives a node's (sort value, id), `load` fetches one page.
 * Page sizes above MAX_PAGE_SIZE and cursors this connection did not make are BAD_USER_INPUT.
 */
export function keysetConnection<T>(
  args: ConnectionArgs,
  keyOf: (node: T) => Keyset,
  load: (page: KeysetPage) => Promise<T[]>,
) {
  checkPageSize(args);
  const toKey = (cursor: string | undefined, name: string): Keyset | undefined => {
    const parts = decodeCursor(cursor, 2, name);
    return parts ? [parts[0] ?? '', parts[1] ?? ''] : undefined;
  };
  const { before, after, limit, inverted, expectedSize, hasPreviousPage, hasNextPage } = parseCursorConnectionArgs({
    args,
    defaultSize: DEFAULT_PAGE_SIZE,
    maxSize: MAX_PAGE_SIZE,
  });
  return load({ after: toKey(after, 'after'), before: toKey(before, 'before'), limit, inverted }).then((nodes) => {
    const page = nodes.slice(0, expectedSize);
    if (inverted) page.reverse();
    // As Pothos's resolveCursorConnection answers, but each cursor is encoded only if the query asks for it.
    const edges = page.map((node) => new Edge(node, keyOf));
    const fallback = args.after ?? args.before ?? '';
    return {
      edges,
      pageInfo: {
        get startCursor() {
          return edges[0]?.cursor ?? fallback;
        },
        get endCursor() {
          return edges.at(-1)?.cursor ?? fallback;
        },
        hasPreviousPage: hasPreviousPage(nodes.length),
        hasNextPage: hasNextPage(nodes.length),
      },
    };
  });
}

/** An edge whose cursor is made when read (most queries of a list ask for nodes only). */
class Edge<T> {
  #cursor: string | undefined;
  constructor(
    readonly node: T,
    private readonly keyOf: (node: T) => Keyset,
  ) {}
  get cursor(): string {
    return (this.#cursor ??= encodeCursor(this.keyOf(this.node)));
  }
}

function encodeCursor(values: readonly string[]): string {
  if (ablated.has('cursors')) return values[1] ?? '';
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/** Decodes a cursor made by encodeCursor with `size` parts; anything else is BAD_USER_INPUT at `argName`. */
function decodeCursor(cursor: string | undefined, size: number, argName: string): string[] | undefined {
  if (cursor === undefined) return undefined;
  try {
    const values: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(values) && values.length === size && values.every((v) => typeof v === 'string')) return values;
  } catch {
    // fall through to the error below
  }
  throw badInput([
    {
      path: [argName],
      type: 'value_error',
      message: 'not a cursor returned by this connection',
      input: cursor,
    },
  ]);
}
