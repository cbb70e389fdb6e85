// A request refused before it reaches a door, answered in that door's shape: FastAPI's `{"detail": …}` under
// /api/v3, a GraphQL `{"errors": [{message, extensions: {code}}]}` body elsewhere.
import { Response } from '../core/fetch-api.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../db/availability.js';
import { detailResponse, jsonResponse } from '../rest/fastapi-errors.js';

export interface Refusal {
  status: number;
  message: string;
  /** The GraphQL error code. */
  code: string;
  /** The GraphQL message, when it says more than the REST detail. */
  graphqlMessage?: string;
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export function refuse(rest: boolean, refusal: Refusal): Response {
  const { status, message, code, graphqlMessage = message, extensions = {}, headers = {} } = refusal;
  if (rest) return detailResponse(status, message, headers);
  return jsonResponse(status, { errors: [{ message: graphqlMessage, extensions: { code, ...extensions } }] }, headers);
}

export const methodNotAllowed = (rest: boolean, allow: string): Response =>
  refuse(rest, { status: 405, message: 'Method Not Allowed', code: 'METHOD_NOT_ALLOWED', headers: { allow } });

/** The status logged and counted for a request whose client closed the connection before the answer (nginx's). */
export const CLIENT_CLOSED_REQUEST = 499;

/** The answer to a request whose client went away before it was read (nobody receives it; logged as 499). */
export const clientClosed = (): Response => new Response(null, { status: CLIENT_CLOSED_REQUEST });

export const databaseUnavailable = (rest: boolean): Response =>
  refuse(rest, {
    status: 503,
    message: 'The service is temporarily unavailable; try again shortly',
    code: 'SERVICE_UNAVAILABLE',
    extensions: { retryAfter: DATABASE_RETRY_AFTER_SECONDS },
    headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
  });

/** yoga answers a few refusals (415, 405) with an empty body; clients get a JSON error like everywhere else. */
export async function withErrorBody(response: Response): Promise<Response> {
  if (response.status < 400 || response.headers.get('content-type')) return response;
  await response.body?.cancel();
  const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== 'content-length'));
  const message = response.statusText || `HTTP ${response.status}`;
  return refuse(false, { status: response.status, message, code: 'BAD_REQUEST', headers });
}
