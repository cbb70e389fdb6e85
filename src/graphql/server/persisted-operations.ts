// Persisted operations (docs/graphql-api.md "Persisted operations"), by the yoga plugins, with our glue:
// - `apq` (default): Apollo's automatic persisted queries (@graphql-yoga/plugin-apq). The store is the database, so
//   every instance answers a hash another one registered, with a bounded in-process cache in front.
// - `only`: trusted documents (@graphql-yoga/plugin-persisted-operations). Only the documents of the manifest run,
//   named by their SHA-256 hash; a document sent as text runs when its hash is in the manifest (so GraphiQL's default
//   document works), anything else is refused.
// - `off`: neither.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { useAPQ } from '@graphql-yoga/plugin-apq';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Plugin } from 'graphql-yoga';
import { z } from 'zod';
import { byteBoundedCache, MB, stringBytes } from '../../core/byte-bounded-caches.js';
import { ConfigError } from '../../core/config.js';
import { getPersistedQuery, storePersistedQuery } from '../../domain/persisted-queries.js';
import type { Services } from '../../services.js';

/**
 * Hashes this gateway recently served, in process: hash → document never changes, so only the size needs a bound —
 * in bytes, since a document may be as long as a request body (1 MiB).
 */
export const APQ_CACHE_MB = 8;

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function automaticPersistedQueries(services: Services): Plugin[] {
  const cache = byteBoundedCache<string, string>({
    maxBytes: APQ_CACHE_MB * MB,
    sizeOf: (query, hash) => stringBytes(query) + stringBytes(hash),
  });
  return [
    useAPQ({
      hash: sha256,
      store: {
        async get(hash) {
          const cached = cache.get(hash);
          if (cached !== undefined) return cached;
          const stored = await getPersistedQuery(services.db, hash);
          if (stored !== null) cache.set(hash, stored);
          return stored;
        },
        async set(hash, query) {
          if (await storePersistedQuery(services.db, hash, query, services.config.APQ_MAX_QUERIES)) {
            cache.set(hash, query);
          }
        },
      },
    }),
  ];
}

const manifestSchema = z.record(z.string().regex(/^[0-9a-f]{64}$/), z.string().min(1));

/** The manifest of trusted documents: each key must be the SHA-256 of its document. */
export function readManifest(path: string): Map<string, string> {
  const problem = (what: string) => new ConfigError(`PERSISTED_OPERATIONS_MANIFEST=${JSON.stringify(path)} ${what}`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw problem(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw problem('is not JSON');
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) throw problem('is not an object of SHA-256 hash → document');
  for (const [hash, document] of Object.entries(parsed.data)) {
    if (sha256(document) !== hash) throw problem(`holds ${hash}, which is not the SHA-256 of its document`);
  }
  return new Map(Object.entries(parsed.data));
}

const refused = (message: string, code: string, status: number) => ({
  message,
  extensions: { code, http: { status } },
});

function trustedDocuments(manifest: Map<string, string>): Plugin[] {
  /** A trusted document sent as text is read as its hash; so GraphiQL's own document still runs. */
  const textToHash: Plugin = {
    onParams({ params, setParams }) {
      if (typeof params.query !== 'string') return;
      const hash = sha256(params.query);
      if (!manifest.has(hash)) return;
      const { query: _query, ...rest } = params;
      setParams({ ...rest, extensions: { ...rest.extensions, persistedQuery: { version: 1, sha256Hash: hash } } });
    },
  };
  return [
    textToHash,
    usePersistedOperations({
      getPersistedOperation: (hash) => manifest.get(hash) ?? null,
      allowArbitraryOperations: false,
      customErrors: {
        persistedQueryOnly: refused(
          'Only trusted documents run here (PERSISTED_OPERATIONS=only): send the hash of a document of the manifest',
          'PERSISTED_QUERY_ONLY',
          400,
        ),
        keyNotFound: refused(
          'Send extensions.persistedQuery.sha256Hash (PERSISTED_OPERATIONS=only)',
          'PERSISTED_QUERY_ID_REQUIRED',
          400,
        ),
        notFound: refused('PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND', 404),
      },
    }),
  ];
}

/** The plugins of the configured mode; they go before every plugin that reads the document. */
export function persistedOperationPlugins(services: Services): Plugin[] {
  switch (services.config.PERSISTED_OPERATIONS) {
    case 'apq':
      return automaticPersistedQueries(services);
    case 'only':
      return trustedDocuments(readManifest(services.config.PERSISTED_OPERATIONS_MANIFEST));
    case 'off':
      return [];
  }
}
