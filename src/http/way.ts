// A request's way through the gateway (src/http/doors.ts): the stages it passes before a door, each owned by the room
// that knows its rule, and the contract every door keeps so that the stages need not know which door it is.
import type { RequestAuth } from '../authentication.js';

/** Who a request counts against (src/http/rate-limit.ts): its token's account, else its address. */
export interface Tenant {
  /** `account:<id>` or `address:<client address>`. */
  key: string;
  authenticated: boolean;
}

/** The metrics label of a door (gateway_http_request_duration_seconds{door}). */
export type DoorName = 'rest' | 'graphql' | 'subgraph' | 'mcp' | 'health' | 'metrics' | 'other';

export interface Way {
  /** The request as it came; `request` is the same, or its body buffered by the body limit. */
  readonly received: Request;
  request: Request;
  readonly url: URL;
  /** The request target as sent, before the URL normalised it (the node:http listener's; absent in process). */
  readonly target: string | undefined;
  readonly clientAddress: string;
  /** The door its path names. */
  readonly door: Door;
  /** Set by the authentication stage: the bearer token, read once (src/authentication.ts). */
  auth: RequestAuth | null;
  /** Set with `auth`: who the request counts against (src/http/rate-limit.ts). */
  tenant: Tenant | null;
  /** A provider callback with a signature: counted against its account once checked (src/http/rate-limit.ts). */
  signedCallback: boolean;
  /** False while the benchmark's ablation takes the rate and body budgets out. */
  readonly limiting: boolean;
  /** Set by the work budget's stage: charges the request's time and gives its place back once it is answered. */
  settle?: () => void;
}

/** A stage answers the request (a refusal, a health check) or lets it go on (undefined). */
export type Stage = (way: Way) => Response | undefined | Promise<Response | undefined>;

export interface Door {
  readonly name: DoorName;
  /** Its refusals are FastAPI's `{"detail": …}` (REST) rather than GraphQL's `{"errors": […]}`. */
  readonly rest: boolean;
  /** Passes the tenant's rate and body limits (all but the health checks). */
  readonly limited: boolean;
  /** A request this door answers before any limit though it is `limited` (/metrics with its METRICS_TOKEN). */
  exempt?(way: Way): boolean;
  /** Reads a request body (all but /metrics, which is answered before the body limit). */
  readonly readsBody: boolean;
  /** The audience a token must have been issued for to count here (an agent's OAuth token: /mcp only). */
  readonly audience: 'mcp' | null;
  /** The answer to a method no door serves (TRACE, WebDAV's, made-up ones), before anything reads the body. */
  unknownMethod(way: Way): Response | Promise<Response>;
  /** A refusal made before the door (rate, body limits), in the door's own shape. */
  refusal(response: Response, way: Way): Response | Promise<Response>;
  serve(way: Way): Response | Promise<Response>;
  /** What an error the door did not expect becomes; by default it goes on to the access line's handler. */
  unexpected?(error: unknown, way: Way): Response;
  /**
   * The door's last word on every answer past the health checks — a stage's refusal (once it was held), the door's own
   * answer, or what its failure meant: the subgraph answers a GraphQL client's errors 200 (src/http/subgraph-door.ts).
   */
  answered?(response: Response, way: Way): Response | Promise<Response>;
}

/** The caller of a request past the authentication stage (every door but the health checks is). */
export function authenticated(way: Way): RequestAuth {
  if (!way.auth) throw new Error(`the ${way.door.name} door was reached before the authentication stage`);
  return way.auth;
}
