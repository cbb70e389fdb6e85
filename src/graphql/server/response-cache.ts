// The optional response cache (docs/graphql-api.md "HTTP caching", RESPONSE_CACHE=true): query results of a signed-in account,
// kept in process (at most RESPONSE_CACHE_MAX_ENTRIES and RESPONSE_CACHE_MAX_MB by estimate, each ≤ 256 KiB of JSON,
// at most RESPONSE_CACHE_TTL_SECONDS old).
//
// Invalidation is by generation: a counter bumped after every write becomes visible (src/db/committed-writes.ts sees
// every write of every code path: mutations of both doors, provider callbacks, the delivery worker), kept in Redis when
// REDIS_URL is set so that every instance sees every other's writes. A result is stored with the generation read
// before it was computed and served only while that is still the generation, so a write is visible to the next read
// on every instance. (Coarse on purpose: one write invalidates every entry. Correct first; hit rate second.)
import { createHash } from 'node:crypto';
import { getDocumentString } from '@envelop/core';
import { type ExecutionResult, print } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { byteBoundedCache, jsonBytes } from '../../core/byte-bounded-caches.js';
import type { RedisLink } from '../../core/redis.js';
import type { Context } from '../schema/context.js';
import { isWholeQuery } from './incremental-delivery.js';

const MAX_RESULT_BYTES = 256 * 1024;
const GENERATION_KEY = 'campaign-gateway:response-cache:generation';

export interface Generation {
  /** The current generation; null while it cannot be known (Redis away): nothing is then served or kept. */
  current(): Promise<string | null>;
  /** A write has become visible (awaited by the write, so the next read anywhere sees the new generation). */
  bump(): Promise<void>;
}

/**
 * The generation in Redis (shared by every instance), or in process (one instance: SQLite). While Redis is away the
 * cache is bypassed and writes cannot bump; when it is back the generation is bumped once, so that nothing kept
 * before the outage is served after it (docs/decisions.md §15).
 */
export function createGeneration(redis: RedisLink | null): Generation {
  if (!redis) {
    let value = 0;
    return {
      current: async () => String(value),
      bump: async () => {
        value += 1;
      },
    };
  }
  const bump = async () => {
    if (!redis.available) return;
    await redis.command.incr(GENERATION_KEY).catch(() => undefined);
  };
  let outage = false;
  redis.onChange((available) => {
    if (!available) outage = true;
    else void bump().then(() => (outage = false));
  });
  return {
    current: async () => {
      if (outage || !redis.available) return null;
      return redis.command.get(GENERATION_KEY).then(
        (value) => value ?? '0',
        () => null,
      );
    },
    bump,
  };
}

interface Entry {
  generation: string;
  result: ExecutionResult;
  storedAt: number;
}

export interface ResponseCacheOptions {
  generation: Generation;
  maxEntries: number;
  /** Bytes the kept results may hold (src/core/byte-bounded-caches.ts's estimate). */
  maxBytes: number;
  ttlSeconds: number;
}

export function responseCache({ generation, maxEntries, maxBytes, ttlSeconds }: ResponseCacheOptions): Plugin {
  const entries = byteBoundedCache<string, Entry & { bytes: number }>({
    maxBytes,
    maxEntries,
    sizeOf: (entry) => entry.bytes,
  });

  // A read-only token sees some fields masked (Webhook.secret): its answers are kept apart from the account's others.
  const keyOf = (
    viewerId: string,
    tokenVersion: number,
    readOnly: boolean,
    args: Parameters<NonNullable<Plugin['onExecute']>>[0]['args'],
  ) =>
    createHash('sha256')
      .update(
        JSON.stringify([
          viewerId,
          tokenVersion,
          readOnly,
          getDocumentString(args.document) ?? print(args.document),
          args.operationName ?? null,
          args.variableValues ?? null,
        ]),
      )
      .digest('base64url');

  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const viewer = viewerIn(args.contextValue);
      if (!viewer) return undefined;
      // Queries answered in one piece only: not @defer/@stream (parts), not @live (a stream kept current).
      if (!isWholeQuery(args.document, args.operationName)) return undefined;
      const readOnly = (args.contextValue as { readOnly?: boolean }).readOnly === true;
      const key = keyOf(viewer.id, viewer.tokenVersion, readOnly, args);
      const before = await generation.current();
      if (before === null) return undefined;
      const cached = entries.get(key);
      if (cached) {
        if (cached.generation === before && Date.now() - cached.storedAt < ttlSeconds * 1000) {
          setResultAndStopExecution(cached.result);
          return undefined;
        }
        entries.delete(key);
      }
      return {
        onExecuteDone({ result }) {
          // Incremental (@defer/@stream) results and results with errors are not kept.
          if (Symbol.asyncIterator in result || result.errors?.length) return;
          const length = JSON.stringify(result.data ?? null).length;
          if (length > MAX_RESULT_BYTES) return;
          entries.set(key, { generation: before, result, storedAt: Date.now(), bytes: jsonBytes(length) });
        },
      };
    },
  };
}

/** The signed-in account of an execution's context (null when anonymous: nothing is cached then). */
function viewerIn(contextValue: object): Context['viewer'] {
  return 'viewer' in contextValue ? (contextValue.viewer as Context['viewer']) : null;
}
