// A request refused before it reaches a door, answered in that door's shape: FastAPI's `{"detail": …}` under
// /api/v3, a GraphQL `{"errors": [{message, extensions: {code}}]}` body elsewhere.
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
