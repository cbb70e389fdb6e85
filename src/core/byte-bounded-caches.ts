// Every in-process cache that holds what clients send (documents, their errors, results) is bounded in bytes, not in
// entries (issue 41: 2 000 distinct 16 KB documents took the heap to 1.35 GB under a bound of 1 000 entries). One
// place for the estimates, so that each cache charges the same for the same thing; lru-cache does the bounding.
//
// The estimates are conservative, measured with `node --expose-gc` (heap used before and after keeping 100–300
// documents of each shape of bench/expensive-documents.ts): a parsed document with its locations costs 70–100 bytes per
// character of its text, graphql-jit's compiled query another 30–50, validation errors (cached beside the document
// while it lives) up to ~260 for documents full of conflicts. A document is charged 160 bytes per character plus 16 KB.
import { LRUCache } from 'lru-cache';

export const MB = 1024 * 1024;

/** What a parsed document costs while it is kept: its AST, its compiled queries, its validation result. */
export const documentBytes = (text: string): number => 160 * text.length + 16 * 1024;

/** What a string costs (UTF-16 at worst) with the object around it. */
export const stringBytes = (text: string): number => 2 * text.length + 256;

/** What a parse error costs: the error, its locations and the source it points into. */
export const parseErrorBytes = (text: string): number => 2 * text.length + 4 * 1024;

/** What a JSON-shaped value costs as objects in the heap, from the length of its JSON text. */
export const jsonBytes = (jsonLength: number): number => 4 * jsonLength + 1024;

/**
 * A least-recently-used cache holding at most `maxBytes` by `sizeOf`'s estimate (an entry larger than that on its own
 * is not kept), and at most `maxEntries` entries when given. `ttlMs` (optional) makes entries older than that miss.
 */
export function byteBoundedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(options: {
  maxBytes: number;
  sizeOf: (value: V, key: K) => number;
  /** At most this many entries as well. */
  maxEntries?: number;
  ttlMs?: number;
}): LRUCache<K, V> {
  return new LRUCache<K, V>({
    maxSize: options.maxBytes,
    ...(options.maxEntries ? { max: options.maxEntries } : {}),
    sizeCalculation: (value, key) => Math.max(1, Math.ceil(options.sizeOf(value, key))),
    ...(options.ttlMs ? { ttl: options.ttlMs, ttlAutopurge: false, updateAgeOnGet: false } : {}),
  });
}
