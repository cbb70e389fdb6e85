import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
import { viewerOf } from './builder.js';
import type { Context } from './context.js';

// Keys of the global ids of account-scoped objects (docs/graphql.md, "Global ids"). Campaign ids, call ids and the
// like are chosen per account, so the key of such a node is `<accountId>:<its key>`: unique across all accounts. Account
// ids never hold a ':'. A key without one is read as the caller's own (what fields pass to the loaders, and the
// campaign ids issued before global ids, which `node` still accepts for one release).

/** The node key of an object of `accountId` whose own key is `local`. */
export const scopedKey = (accountId: string, local: string): string => `${accountId}:${local}`;

/**
 * The object's own key when `key` names an object of `viewerId` (or is an unscoped key, read as the viewer's); null
 * when it names another account's object, which is then indistinguishable from a missing one.
 */
export function ownKey(viewerId: string, key: string): string | null {
  const colon = key.indexOf(':');
  if (colon < 0) return key;
  return key.slice(0, colon) === viewerId ? key.slice(colon + 1) : null;
}

/**
 * Loads the objects `keys` name, for a loadable node: each key resolved to the viewer's own key (others' keys give
 * null), fetched at once, and answered in the order of `keys`.
 */
export async function loadScoped<T>(
  viewerId: string,
  keys: readonly string[],
  fetch: (ownKeys: string[]) => Promise<T[]>,
  keyOf: (item: T) => string,
): Promise<(T | null)[]> {
  const own = keys.map((key) => ownKey(viewerId, key));
  const wanted = [...new Set(own.filter((key): key is string => key !== null))];
  const found = new Map((wanted.length > 0 ? await fetch(wanted) : []).map((item) => [keyOf(item), item]));
  return own.map((key) => (key === null ? null : (found.get(key) ?? null)));
}

/**
 * The `id` and `load` options of a loadable node keyed per account: `keyOf` gives an object's own key, `fetch` the
 * account's objects with these own keys (in any order).
 */
export function scopedNode<T>(
  keyOf: (item: T) => string,
  fetch: (db: Kysely<Database>, accountId: string, ownKeys: string[]) => Promise<T[]>,
  /**
   * The id is a plain field (src/graphql/schema/plain-fields.ts): computed whenever an object is shaped, so only for a type
   * never made without a signed-in viewer (a call log is: a call-status callback has none).
   */
  options: { plainId?: boolean } = {},
) {
  return {
    id: {
      resolve: (item: T, _args: unknown, context: Context) => scopedKey(viewerOf(context).id, keyOf(item)),
      ...(options.plainId ? { plain: true } : {}),
    },
    load: (keys: string[], context: Context) => {
      const viewerId = viewerOf(context).id;
      return loadScoped(viewerId, keys, (own) => fetch(context.db, viewerId, own), keyOf);
    },
  };
}
