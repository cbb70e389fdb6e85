// Request bodies are at most 1 MiB on every door (docs/decisions.md §11): a larger Content-Length is refused before anything
// is read, and a body without one (chunked) is read only up to the limit.
import { ablated } from '../core/ablation.js';
import { Response } from '../core/fetch-api.js';
import { MAX_BODY_BYTES } from '../core/request-context.js';
import type { Services } from '../services.js';
import { discardBody } from './light-request.js';
import { bodyBudgetResponse } from './rate-limit.js';
import { refuse } from './refusal.js';
import type { Stage } from './way.js';

const tooLarge = (rest: boolean) =>
  refuse(rest, {
    status: 413,
    message: 'Request body too large',
    graphqlMessage: 'Request body too large (the limit is 1 MiB)',
    code: 'PAYLOAD_TOO_LARGE',
  });

/** The request itself when its body is within the limit (buffered when its size was not declared), or a 413. */
export async function limitBody(request: Request, rest: boolean): Promise<Request | Response> {
  if (!request.body) return request;
  const declared = request.headers.get('content-length');
  if (declared !== null) return Number(declared) > MAX_BODY_BYTES ? tooLarge(rest) : request;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return tooLarge(rest);
    }
    chunks.push(value);
  }
  const body = Buffer.concat(chunks);
  // Its size is known now: later checks (the large-body budget) read it as for any other body.
  const headers = new Headers(request.headers);
  headers.set('content-length', String(body.byteLength));
  return new Request(request.url, { method: request.method, headers, body, signal: request.signal });
}

/**
 * The stage of the body: at most 1 MiB (413), then counted against the tenant's budget of large bodies (429, read but
 * not parsed first, so that the client sees the answer instead of a cut connection).
 */
export function bodyLimitStage(services: Services): Stage {
  return async (way) => {
    const request = ablated.has('body-limit') ? way.received : await limitBody(way.received, way.door.rest);
    if (request instanceof Response) return way.door.refusal(request, way);
    way.request = request;
    if (!way.limiting || !way.tenant) return undefined;
    const bytes = Number(request.headers.get('content-length') ?? 0);
    const overBudget = await bodyBudgetResponse(services, way.tenant, bytes, way.door.rest);
    if (!overBudget) return undefined;
    // Read to its end (kept nowhere), so that the client reads the answer rather than a cut connection.
    await discardBody(request);
    return way.door.refusal(overBudget, way);
  };
}
