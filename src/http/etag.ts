// HTTP caching of GraphQL GET queries (docs/graphql-api.md "HTTP caching"): each JSON answer to a GET carries an ETag (a hash of
// the body), and a request whose If-None-Match holds it gets 304 with no body. Answers are per account, so they are
// `Cache-Control: private, no-cache` (a browser revalidates each time; a shared cache stores nothing) and vary by
// Authorization. Nothing is kept on the server: the answer is computed, then compared.
import { Response } from '../core/fetch-api.js';
import { createHash } from 'node:crypto';

const JSON_TYPES = /^application\/(graphql-response\+)?json/;

/** `If-None-Match` matches `etag` (a list, weak or not, or `*`). */
function matches(ifNoneMatch: string, etag: string): boolean {
  const wanted = etag.replace(/^W\//, '');
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag.replace(/^W\//, '') === wanted);
}

/** The answer to a GET with an ETag, or 304 when the client has it already; other answers pass unchanged. */
export async function withETag(request: Request, response: Response): Promise<Response> {
  if (request.method !== 'GET' || response.status !== 200) return response;
  if (!JSON_TYPES.test(response.headers.get('content-type') ?? '')) return response;
  const body = await response.text();
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const headers = new Headers(response.headers);
  headers.set('etag', etag);
  headers.set('cache-control', 'private, no-cache');
  headers.append('vary', 'Authorization');
  const ifNoneMatch = request.headers.get('if-none-match');
  if (ifNoneMatch && matches(ifNoneMatch, etag)) {
    headers.delete('content-length');
    headers.delete('content-type');
    return new Response(null, { status: 304, headers });
  }
  return new Response(body, { status: 200, headers });
}
