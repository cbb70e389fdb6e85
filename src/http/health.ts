// GET /healthz: the process is up. GET /readyz: it can serve — the database answers and it is not shutting down
// (a load balancer stops sending it traffic as soon as a SIGTERM arrives).
import { type DatabaseHandle, databaseReachable } from '../db/database.js';
import { jsonResponse } from '../rest/fastapi-errors.js';

const json = (status: number, body: unknown) => jsonResponse(status, body, { 'cache-control': 'no-store' });

export const HEALTH_PATHS = new Set(['/healthz', '/readyz']);

export async function health(pathname: string, database: DatabaseHandle, draining: boolean): Promise<Response> {
  if (pathname === '/healthz') return json(200, { status: 'ok' });
  if (draining) return json(503, { status: 'draining' });
  return (await databaseReachable(database.db))
    ? json(200, { status: 'ready' })
    : json(503, { status: 'unavailable', detail: 'The database does not answer' });
}
