// Paths that name a route only once normalised (issue 41): the legacy service (FastAPI on Starlette) routes the path as
// sent, so `/api/v3//get_campaigns`, `/api/v3/./get_campaigns` and `/api/v3/meetings/../get_campaigns` are 404
// there, and a trailing slash (`/api/v3/get_campaigns/`) is redirected (307) to the path without it. The URL parser
// resolves dot segments before the doors see a path, so the node:http listener passes the target as sent.

import { detailResponse } from '../rest/fastapi-errors.js';
import type { Stage } from './way.js';

/**
 * Whether a request target's path has an empty segment (but a trailing slash, which the REST router redirects), or a
 * dot segment (`.`, `..`, or either percent-encoded).
 */
export function hasPathVariant(target: string): boolean {
  const end = target.search(/[?#]/);
  const path = end === -1 ? target : target.slice(0, end);
  const segments = path.split('/').slice(1);
  return segments.some(
    (segment, index) => (segment === '' && index < segments.length - 1) || /^(?:\.|%2e){1,2}$/i.test(segment),
  );
}

/** The first stage: a path that names a route only once normalised is not that route (404, whatever the method). */
export const pathVariants: Stage = (way) =>
  way.target !== undefined && hasPathVariant(way.target) ? detailResponse(404, 'Not Found') : undefined;
