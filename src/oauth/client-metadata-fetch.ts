// How the authorisation server fetches a client ID metadata document (docs/mcp-oauth.md "Client ID metadata
// documents"): https only, through the webhook targets' SSRF guard (the URL, and every address its name resolves to,
// must be public unless OAUTH_ALLOW_PRIVATE_CLIENT_METADATA is set), no redirects, a time limit and a size limit.
// oidc-provider calls it with a fetch-like signature and caches what it parses (bounded, for at most an hour).
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { guardedLookup } from '../events/http-post.js';
import { Response } from '../core/fetch-api.js';
import { refusedTarget } from '../security/webhook-targets.js';

/** The CIMD draft's limit on a document (oidc-provider enforces it again while reading). */
export const MAX_CLIENT_METADATA_BYTES = 5 * 1024;
/** How long fetching one document may take. */
export const CLIENT_METADATA_TIMEOUT_MS = 2500;

export interface ClientMetadataFetchOptions {
  allowPrivate: boolean;
  /** PEM file of extra trusted CA certificates (tests). */
  caFile?: string;
}

export class ClientMetadataRefused extends Error {}

/** The headers passed on to the provider (it reads the caching ones and the length). */
const KEPT_HEADERS = ['content-type', 'content-length', 'cache-control', 'expires'];

export type ClientMetadataFetch = (url: string | URL, init?: { signal?: AbortSignal | null }) => Promise<Response>;

export function clientMetadataFetch(options: ClientMetadataFetchOptions): ClientMetadataFetch {
  const ca = options.caFile ? [...rootCertificates, readFileSync(options.caFile, 'utf8')] : undefined;
  return (input, init) => {
    const url = new URL(input);
    if (url.protocol !== 'https:') return Promise.reject(new ClientMetadataRefused('not an https URL'));
    if (!options.allowPrivate) {
      const reason = refusedTarget(url.href);
      if (reason) return Promise.reject(new ClientMetadataRefused(reason));
    }
    const timeout = AbortSignal.timeout(CLIENT_METADATA_TIMEOUT_MS);
    const signal = init?.signal ? AbortSignal.any([timeout, init.signal]) : timeout;
    return new Promise<Response>((resolve, reject) => {
      const request = https.request(
        url,
        {
          method: 'GET',
          headers: { accept: 'application/json' },
          lookup: options.allowPrivate ? undefined : guardedLookup,
          ...(ca ? { ca } : {}),
          signal,
        },
        (response) => {
          const chunks: Buffer[] = [];
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            // One byte past the limit is enough for the provider to refuse it as too large.
            if (read > MAX_CLIENT_METADATA_BYTES + 1) {
              response.destroy();
              return;
            }
            chunks.push(chunk);
          });
          const done = () => {
            const headers = new Headers();
            for (const name of KEPT_HEADERS) {
              const value = response.headers[name];
              if (typeof value === 'string' && name !== 'content-length') headers.set(name, value);
            }
            const status = response.statusCode ?? 502;
            // Only a 200's body is read by the provider; other statuses (204, 304, 1xx) may carry none.
            const body = status === 200 ? new Uint8Array(Buffer.concat(chunks)) : null;
            resolve(new Response(body, { status: status >= 200 && status <= 599 ? status : 502, headers }));
          };
          response.on('end', done);
          response.on('close', done);
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end();
    });
  };
}
