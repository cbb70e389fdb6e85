// GET /healthz: the process is up. GET /readyz: it can serve — the database answers and it is not shutting down
// (a load balancer stops sending it traffic as soon as a SIGTERM arrives).
import { type DatabaseHandle, databaseReachable } from '../db/database.js';
import { jsonResponse } from '../rest/fastapi-errors.js';
import { methodNotAllowed } from './refusal.js';
import type { Door } from './way.js';

const json = (status: number, body: unknown) => jsonResponse(status, body, { 'cache-control': 'no-store' });

export const HEALTH_PATHS = new Set(['/healthz', '/readyz']);

/**
 * `degraded` names the optional parts that are away (`redis`): the instance still serves, without them (docs/limits.md,
 * "When Redis is down").
 */
export async function health(
  pathname: string,
  database: DatabaseHandle,
  draining: boolean,
  degraded: string[] = [],
): Promise<Response> {
  if (pathname === '/healthz') return json(200, { status: 'ok' });
  if (draining) return json(503, { status: 'draining' });
  if (!(await databaseReachable(database.db)))
    return json(503, { status: 'unavailable', detail: 'The database does not answer' });
  return json(200, degraded.length > 0 ? { status: 'ready', degraded } : { status: 'ready' });
}

/** The health checks as a door: answered before any limit (a load balancer must reach them), GET and HEAD only. */
export function healthDoor(answer: (pathname: string) => Promise<Response>): Door {
  const wrongMethod = () => methodNotAllowed(true, 'GET, HEAD');
  return {
    name: 'health',
    rest: true,
    limited: false,
    readsBody: false,
    audience: null,
    unknownMethod: wrongMethod,
    refusal: (response) => response,
    serve: ({ received, url }) =>
      received.method === 'GET' || received.method === 'HEAD' ? answer(url.pathname) : wrongMethod(),
  };
}
