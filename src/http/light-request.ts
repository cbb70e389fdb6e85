// GraphQL requests the prepared lane may answer, taken from node:http straight to the doors and back to the socket
// (docs/graphql-internals.md "Prepared lane"): no fetch-API Request built by the server adapter, no web stream for the body,
// no AbortController per request. The body (at most 1 MiB, of a declared length) is read into one Buffer when a door
// first asks for it (after the rate and body checks); the doors see a LightRequest, which offers what they read of a
// request (method, url, headers, the body as text). Whatever the lane leaves to yoga is turned into a real Request
// first (`realRequest`, its signal tied to the socket), so yoga sees what it always sees.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeBody } from '../core/body-text.js';
import { MAX_BODY_BYTES } from '../core/request-context.js';

/** The request's headers as node:http read them (names in lower case, repeated ones joined), read-only. */
class LightHeaders {
  constructor(private readonly raw: IncomingMessage['headers']) {}
  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }
  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.raw)) {
      const value = this.get(name);
      if (value !== null) yield [name, value];
    }
  }
  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }
  forEach(callback: (value: string, name: string) => void): void {
    for (const [name, value] of this.entries()) callback(value, name);
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/** What the doors read of a request, for one taken from node:http (`isLightRequest` tells it from a real one). */
class LightRequest {
  readonly headers: LightHeaders;
  readonly bodyUsed = false;
  private buffered: Promise<Buffer> | null = null;
  constructor(
    readonly method: string,
    readonly url: string,
    raw: IncomingMessage['headers'],
    /** Reads the body, of its declared length, the first time it is asked for; null for a request without one. */
    private readonly read: (() => Promise<Buffer>) | null,
    private readonly gone: () => boolean,
    /** Reads the body to its end, keeping nothing. */
    private readonly drain: () => Promise<void>,
    /** A real AbortSignal that aborts when the client goes away (made only when yoga is to answer: realRequest). */
    readonly abortSignal: () => AbortSignal,
  ) {
    this.headers = new LightHeaders(raw);
  }
  /**
   * Non-null when there is a body (the body limit reads only its declared length from the headers). The body itself
   * is read only when a door asks for it: after the rate limit and the body checks (issue 41: read first, 100 slow
   * clients held 65 MB before any check).
   */
  get body(): object | null {
    return this.read ? this : null;
  }
  private content(): Promise<Buffer> {
    if (!this.read) return Promise.resolve(Buffer.alloc(0));
    this.buffered ??= this.read();
    return this.buffered;
  }
  /** Read by the door at the end: whether the client went away before its answer. */
  get signal(): { aborted: boolean } {
    return { aborted: this.gone() };
  }
  async text(): Promise<string> {
    return decodeBody(await this.content());
  }
  /** The body's bytes, not copied (fetch's `bytes()`: the doors count a body's keys on its bytes, then decode it). */
  bytes(): Promise<Uint8Array> {
    return this.content();
  }
  /** Reads the body to its end and keeps none of it (discardBody); at once when it was read already. */
  discard(): Promise<void> {
    if (!this.read || this.buffered) return Promise.resolve();
    this.buffered = Promise.resolve(Buffer.alloc(0));
    return this.drain();
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.content();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }
}

/**
 * Reads a body to its end without keeping it: a refusal made before the body is read (the large-body budget) is then
 * answered on a connection the client can read it from, without a megabyte joined into one buffer first.
 */
export async function discardBody(request: Request): Promise<void> {
  if (isLightRequest(request)) return (request as unknown as LightRequest).discard();
  if (!request.body || request.bodyUsed) return;
  const reader = request.body.getReader();
  while (!(await reader.read()).done);
}

export const isLightRequest = (request: Request): boolean => (request as unknown) instanceof LightRequest;

/** A real fetch Request with the same method, URL, headers and body, for yoga. */
export async function realRequest(request: Request): Promise<Request> {
  if (!isLightRequest(request)) return request;
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
  // Its signal aborts when the client goes away, as the adapter's would: a stream (SSE, a @live query) ends then, and
  // gives back its slot, instead of when a keep-alive write fails seconds later (issue 41).
  const signal = (request as unknown as LightRequest).abortSignal();
  return new Request(request.url, { method: request.method, headers: [...request.headers], body, signal });
}

/**
 * Whether a request goes this way: GET or POST to exactly /graphql, a POST with a declared length within the body
 * limit (a chunked or larger one is the adapter's, which refuses or buffers it).
 */
/**
 * The request's abort signal, a real one: a light request's `signal` is only `{ aborted }` (read at the end), so a
 * stage that must hear the client leave while it waits (the work budget's queue) asks for this.
 */
export function abortSignalOf(request: Request): AbortSignal {
  return isLightRequest(request) ? (request as unknown as LightRequest).abortSignal() : request.signal;
}

export function takesLight(req: IncomingMessage): boolean {
  const url = req.url ?? '';
  if (url !== '/graphql' && !url.startsWith('/graphql?')) return false;
  if (req.headers.host === undefined) return false;
  if (req.method === 'GET') return req.headers['content-length'] === undefined;
  if (req.method !== 'POST' || req.headers['transfer-encoding'] !== undefined) return false;
  const length = Number(req.headers['content-length']);
  return Number.isInteger(length) && length >= 0 && length <= MAX_BODY_BYTES;
}

/** The request as a LightRequest, typed as the doors take it; its body is read when a door first asks for it. */
export function lightRequest(req: IncomingMessage, res: ServerResponse): Request {
  // The client went away before its answer was written: its connection closed first.
  let closed = false;
  let controller: AbortController | null = null;
  res.once('close', () => {
    if (res.writableFinished) return;
    closed = true;
    controller?.abort();
  });
  const gone = () => closed || req.socket.destroyed;
  const abortSignal = () => {
    if (!controller) {
      controller = new AbortController();
      if (gone()) controller.abort();
    }
    return controller.signal;
  };
  const read =
    req.method === 'GET'
      ? null
      : () =>
          new Promise<Buffer>((resolve, reject) => {
            const chunks: Buffer[] = [];
            req.on('data', (chunk: Buffer) => chunks.push(chunk));
            req.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
            req.once('error', reject);
            // Gone before the end: node:http emits 'aborted' and 'close' (and 'error' only when a listener is there).
            req.once('close', () => {
              if (!req.complete) reject(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
            });
          });
  const drain = () =>
    new Promise<void>((resolve) => {
      if (req.complete) return resolve();
      req.once('end', () => resolve());
      req.once('close', () => resolve());
      req.resume();
    });
  return new LightRequest(
    req.method ?? 'GET',
    `http://${req.headers.host}${req.url}`,
    req.headers,
    read,
    gone,
    drain,
    abortSignal,
  ) as unknown as Request;
}

/** Writes a fetch Response to the socket: a body of known length in one write, any other streamed as it comes. */
export async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    const key = name.toLowerCase();
    const before = headers[key];
    headers[key] = before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
  });
  res.writeHead(response.status, response.statusText, headers);
  if (!response.body) {
    res.end();
    return;
  }
  if (response.headers.has('content-length')) {
    res.end(Buffer.from(await response.arrayBuffer()));
    return;
  }
  const reader = response.body.getReader();
  // A stream (SSE) ends as soon as its client goes away, not at its next write.
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) {
        cancel();
        return;
      }
      res.write(value);
    }
    res.end();
  } finally {
    res.off('close', cancel);
  }
}
