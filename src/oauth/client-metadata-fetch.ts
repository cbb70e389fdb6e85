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
import { settleClientMetadata } from './client-rules.js';

/** The CIMD draft's limit on a document (oidc-provider enforces it again while reading). */
export const MAX_CLIENT_METADATA_BYTES = 5 * 1024;
/** How long fetching one document may take. */
export const CLIENT_METADATA_TIMEOUT_MS = 2500;

export interface ClientMetadataFetchOptions {
  allowPrivate: boolean;
  /** PEM file of extra trusted CA certificates (tests). */
  caFile?: string;
  /** CLIENT_METADATA_TIMEOUT_MS unless given (tests). */
  timeoutMs?: number;
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
    const timeoutMs = options.timeoutMs ?? CLIENT_METADATA_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([timeout, init.signal]) : timeout;
    const tooLarge = () =>
      new ClientMetadataRefused(`the client metadata document is larger than ${MAX_CLIENT_METADATA_BYTES} bytes`);
    // What the time limit, an abort or a reset is reported as (never a partial document).
    const cutShort = (cause?: unknown) =>
      new ClientMetadataRefused(
        timeout.aborted
          ? `the client metadata document did not arrive within ${timeoutMs} ms`
          : 'fetching the client metadata document was cut short',
        { cause },
      );
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
          const status = response.statusCode ?? 502;
          // Only a 200's body is read by the provider; other statuses (204, 304, 1xx) may carry none.
          if (status !== 200) {
            // Not read at all: a refusal's body could be endless.
            response.destroy();
            return resolve(new Response(null, { status: status >= 200 && status <= 599 ? status : 502 }));
          }
          const declared = Number(response.headers['content-length']);
          if (declared > MAX_CLIENT_METADATA_BYTES) {
            response.destroy();
            return reject(tooLarge());
          }
          const chunks: Buffer[] = [];
          let read = 0;
          // Settled once: a document past the limit, or cut short (the time limit, an abort, a reset), is refused —
          // never handed on as the part of it that arrived.
          let settled = false;
          const fail = (error: Error) => {
            if (settled) return;
            settled = true;
            response.destroy();
            reject(error);
          };
          response.on('data', (chunk: Buffer) => {
            if (settled) return;
            read += chunk.length;
            if (read > MAX_CLIENT_METADATA_BYTES) return fail(tooLarge());
            chunks.push(chunk);
          });
          response.on('end', () => {
            if (settled) return;
            settled = true;
            const headers = new Headers();
            for (const name of KEPT_HEADERS) {
              const value = response.headers[name];
              if (typeof value === 'string' && name !== 'content-length') headers.set(name, value);
            }
            resolve(new Response(new Uint8Array(settledDocument(Buffer.concat(chunks))), { status, headers }));
          });
          response.on('error', (error) => fail(cutShort(error)));
          response.on('close', () => fail(cutShort()));
        },
      );
      request.on('error', (error) => reject(error instanceof ClientMetadataRefused ? error : cutShort(error)));
      request.end();
    });
  };
}

/**
 * A document as this server honours it (settleClientMetadata: grant and response types it does not serve left out,
 * as for a registration); anything that is not a JSON object is passed on for the provider to refuse.
 */
function settledDocument(body: Buffer): Buffer {
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch {
    return body;
  }
  if (!document || typeof document !== 'object' || Array.isArray(document)) return body;
  settleClientMetadata(document as Record<string, unknown>);
  return Buffer.from(JSON.stringify(document));
}

/** A client ID metadata document that could not be fetched (or was no valid document) is not fetched again for so long. */
export const FAILED_FETCH_SECONDS = 60;
/** At most this many failed client IDs are remembered (the oldest is forgotten first). */
export const MAX_FAILED_FETCHES = 1000;

/**
 * The client IDs whose documents failed lately, per instance: a bounded LRU of when each may be tried again, so that
 * repeated authorisation requests naming a failing document do not make the gateway fetch it again and again.
 */
export class FailedFetches {
  private readonly until = new Map<string, number>();
  private readonly reasons = new Map<string, string>();

  constructor(
    private readonly seconds = FAILED_FETCH_SECONDS,
    private readonly max = MAX_FAILED_FETCHES,
    private readonly now: () => number = Date.now,
  ) {}

  /** `reason`: why it failed, when known (metadataFetchFailure), said again while it is not fetched. */
  add(clientId: string, reason?: string): void {
    this.until.delete(clientId);
    this.until.set(clientId, this.now() + this.seconds * 1000);
    this.reasons.delete(clientId);
    if (reason) this.reasons.set(clientId, reason);
    while (this.until.size > this.max) {
      const oldest = this.until.keys().next().value ?? '';
      this.until.delete(oldest);
      this.reasons.delete(oldest);
    }
  }

  reasonOf(clientId: string): string | undefined {
    return this.until.has(clientId) ? this.reasons.get(clientId) : undefined;
  }

  /** The seconds before the document of this client ID may be fetched again, or null when it may be now. */
  retryAfter(clientId: string): number | null {
    const until = this.until.get(clientId);
    if (until === undefined) return null;
    const left = until - this.now();
    if (left <= 0) {
      this.until.delete(clientId);
      this.reasons.delete(clientId);
      return null;
    }
    return Math.ceil(left / 1000);
  }
}

/** oidc-provider's description of every failed fetch of a metadata document, whatever the reason. */
export const METADATA_FETCH_FAILED = 'client_id metadata document fetch failed';

/**
 * Why a client ID metadata document was not taken, from the provider's error (issue 53: the client and the log were
 * told only "fetch failed"): its detail (a status), or its cause — this server's refusal (not https, a private address,
 * too large, too slow), a connection that failed, a document that is not JSON. Null for any other error.
 */
export function metadataFetchFailure(error: unknown): string | null {
  const described = error as { error_description?: unknown; error_detail?: unknown; cause?: unknown } | null;
  if (described?.error_description !== METADATA_FETCH_FAILED) return null;
  const status = /^unexpected response status (\d+)$/.exec(String(described.error_detail ?? ''))?.[1];
  if (status) return `the document's server answered HTTP ${status}`;
  const cause = described.cause;
  if (cause instanceof SyntaxError) return 'the document is not JSON';
  if (!(cause instanceof Error)) return 'the document could not be fetched';
  // What cut a fetch short (a refused connection, a name that resolves to a private address): its code, or its words.
  const inner = (cause as { cause?: unknown }).cause as { code?: unknown; message?: unknown } | undefined;
  const why = typeof inner?.code === 'string' ? inner.code : typeof inner?.message === 'string' ? inner.message : '';
  const said = cause instanceof ClientMetadataRefused ? cause.message : 'the document could not be fetched';
  return why ? `${said} (${why.slice(0, 120)})` : said;
}
