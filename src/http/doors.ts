// The doors behind one fetch handler, and a request's way to them. Around it, the access line (request id, span, the
// one log line and the request metrics: src/http/access-line.ts). On the way, a list of stages, each owned by the room
// that knows its rule; a stage answers (a refusal, a health check) or lets the request go on. At the end, the door its
// path names: the health checks, /metrics, the REST door under /api/v3 (src/rest/door.ts), the MCP door at /mcp
// (src/mcp/), GraphQL at /graphql (src/http/graphql-door.ts), the federation subgraph at /subgraph
// (src/http/subgraph-door.ts), or a 404. A door may have the last word on every answer it gets (`answered`).
import { ablated } from '../core/ablation.js';
import { isClientAbort } from '../core/client-abort.js';
import type { Services } from '../services.js';
import type { DocsHandler } from '../rest/docs.js';
import { createRestDoor } from '../rest/door.js';
import { detailResponse } from '../rest/fastapi-errors.js';
import { type RestHandler, REST_PREFIX } from '../rest/router.js';
import type { McpDoor } from '../mcp/door.js';
import { MCP_PATH, mcpRefusals } from '../mcp/refusals.js';
import type { Yoga } from '../graphql/server/yoga.js';
import type { PreparedLane } from '../graphql/lane/prepared-lane.js';
import { type FetchHandler, observed } from './access-line.js';
import { bodyLimitStage } from './body-limit.js';
import { graphqlDoor } from './graphql-door.js';
import { HEALTH_PATHS, healthDoor } from './health.js';
import { METRICS_PATH, type Metrics, metricsDoor } from './metrics.js';
import { pathVariants } from './path-variants.js';
import { authenticationStage, rateLimitStage } from './rate-limit.js';
import { clientClosed, databaseUnavailable } from './refusal.js';
import { subgraphDoor } from './subgraph-door.js';
import { authenticated, type Door, type DoorName, type Stage, type Way } from './way.js';
import { workBudgetStage } from './work-budget.js';

export interface DoorParts {
  services: Services;
  /** Whether requests get spans (docs/observability.md "Traces"). */
  tracing: boolean;
  health(pathname: string): Promise<Response>;
  docs: DocsHandler;
  rest: RestHandler;
  yoga: Yoga;
  /** The prepared lane in front of yoga (src/graphql/lane/prepared-lane.ts), when it is on. */
  lane: PreparedLane | null;
  /** GRAPHQL_PREPARED_LANE=shadow: each lane answer is compared with yoga's (src/http/lane-shadow.ts). */
  shadow: boolean;
  /** The MCP door at /mcp (src/mcp/door.ts). */
  mcp: McpDoor;
  metrics: Metrics;
  /**
   * The federation subgraph's server, at SUBGRAPH_PATH (src/graphql/schema/federation.ts, src/http/subgraph-door.ts):
   * made on its first request.
   */
  subgraph: () => Yoga | Promise<Yoga>;
}

/** Where a federation gateway reaches the subgraph: a path of its own, so that /graphql's schema stays as it is. */
export const SUBGRAPH_PATH = '/subgraph';

/** The methods any door serves; any other (TRACE, CONNECT, WebDAV's, made-up ones) is answered at once. */
const STANDARD_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The statuses of the stages' refusals that are held before they are answered (see createDoors). */
const HELD_REFUSALS = new Set([413, 429]);

export function createDoors(parts: DoorParts): FetchHandler {
  const { services } = parts;
  const doors = doorTable(parts);
  const doorFor = (pathname: string): Door => {
    if (pathname === REST_PREFIX || pathname.startsWith(`${REST_PREFIX}/`)) return doors.rest;
    if (pathname === '/graphql') return doors.graphql;
    if (pathname === SUBGRAPH_PATH) return doors.subgraph;
    if (pathname === MCP_PATH) return doors.mcp;
    if (HEALTH_PATHS.has(pathname)) return doors.health;
    if (pathname === METRICS_PATH) return doors.metrics;
    return doors.other;
  };

  /** The way, in order. */
  const stages: Stage[] = [
    // A path that names a route only once normalised is not that route (src/http/path-variants.ts).
    pathVariants,
    // The health checks, before any limit: a load balancer must always reach them; so must a scrape of /metrics with
    // its METRICS_TOKEN (it would otherwise count against its address's anonymous budget).
    (way) => (way.door.limited && !way.door.exempt?.(way) ? undefined : way.door.serve(way)),
    // A method no door serves, answered by the door in its own shape before anything reads the body.
    (way) => (STANDARD_METHODS.has(way.received.method) ? undefined : way.door.unknownMethod(way)),
    // Who is calling, read once for every later step (src/authentication.ts), and the tenant it counts against.
    authenticationStage(services),
    // The tenant's request rate (src/http/rate-limit.ts).
    rateLimitStage(services),
    // /metrics reads no body: served before the body limit.
    (way) => (way.door.readsBody ? undefined : way.door.serve(way)),
    // The tenant's share of the server's time and its requests at once; its time is charged once answered
    // (src/http/work-budget.ts).
    workBudgetStage(services),
    // At most 1 MiB, and the tenant's budget of large bodies (src/http/body-limit.ts).
    bodyLimitStage(services),
  ];

  /** The door's own answer, or what its failure means to the client. */
  const throughTheDoor = async (way: Way): Promise<Response> => {
    try {
      return await way.door.serve(way);
    } catch (error) {
      if (isClientAbort(error) || way.received.signal.aborted) return clientClosed();
      if (services.availability.failed(error)) return databaseUnavailable(way.door.rest);
      if (way.door.unexpected) return way.door.unexpected(error, way);
      throw error;
    }
  };

  return observed(parts, doorFor, async (received, url, door, clientAddress, target) => {
    const way: Way = {
      received,
      request: received,
      url,
      target,
      clientAddress,
      door,
      auth: null,
      tenant: null,
      signedCallback: false,
      limiting: !ablated.has('rate-limit'),
    };
    try {
      for (const stage of stages) {
        const answered = stage(way);
        // Most stages answer synchronously; only those that are waited on cost a turn.
        const response = answered instanceof Promise ? await answered : answered;
        if (response) {
          // A refusal of the limits — 429 (the rate, the work budget, the large-body budget), 413 (a body over the
          // limit) — is answered after REFUSAL_DELAY_MS: a client that sends its next request as soon as the last is
          // answered gets a few answers a second, not as many as the loop can refuse (src/security/rate-limits.ts).
          if (HELD_REFUSALS.has(response.status)) await services.limits.holdRefusal();
          return way.door.answered ? await way.door.answered(response, way) : response;
        }
      }
      const response = await throughTheDoor(way);
      return way.door.answered ? await way.door.answered(response, way) : response;
    } finally {
      way.settle?.();
    }
  });
}

/** Each door, from the room that owns it. */
function doorTable(parts: DoorParts): Record<DoorName, Door> {
  const { services } = parts;
  const rest = createRestDoor(parts.rest, parts.docs, services);
  const mcp = mcpRefusals(services.config);
  return {
    health: healthDoor(parts.health),
    metrics: metricsDoor(parts.metrics),
    rest: {
      name: 'rest',
      rest: true,
      limited: true,
      readsBody: true,
      audience: null,
      unknownMethod: ({ received, url, clientAddress }) => rest.unknownMethod(received, url, clientAddress),
      refusal: (response) => response,
      serve: ({ request, url, clientAddress, auth, signedCallback, limiting }) =>
        rest.serve(request, url, clientAddress, auth, { signedCallback, limiting }),
      unexpected: (error, { request }) => rest.unexpected(error, request.method),
    },
    mcp: {
      name: 'mcp',
      rest: false,
      limited: true,
      readsBody: true,
      // A token issued to an agent for /mcp is a credential there only (docs/mcp-oauth.md).
      audience: 'mcp',
      unknownMethod: ({ received }) => mcp.unknownMethod(received),
      refusal: (response, { received }) => mcp.refusal(response, received),
      serve: (way) => parts.mcp(way.request, way.clientAddress, authenticated(way)),
    },
    graphql: graphqlDoor({ ...parts, yoga: () => parts.yoga }),
    subgraph: subgraphDoor({ ...parts, yoga: parts.subgraph }),
    other: {
      name: 'other',
      rest: true,
      limited: true,
      readsBody: true,
      audience: null,
      unknownMethod: () => detailResponse(404, 'Not Found'),
      refusal: (response) => response,
      serve: () => detailResponse(404, 'Not Found'),
    },
  };
}
