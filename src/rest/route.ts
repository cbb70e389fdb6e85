// What a legacy REST route is: a prepared GraphQL operation plus adapters between the legacy wire format and it.
// Routes hold no SQL and no business rules; the router executes `document` through yoga's pipeline.
import type { z } from 'zod';
import type { Loc } from './fastapi-errors.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface RouteInput<Body, Query> {
  body: Body;
  query: Query;
  path: Record<string, string>;
  headers: Headers;
  /** The URL as the caller addressed it: PUBLIC_BASE_URL + path + query string when that is set. */
  publicUrl: string;
}

export interface RestRoute<Body = unknown, Query = unknown, Data = unknown> {
  method: HttpMethod;
  /** Relative to /api/v3, `{name}` for path parameters. */
  path: string;
  summary: string;
  tag: string;
  /** Whether a bearer token is required (everything but sign-up, login and provider webhooks). */
  auth: boolean;
  /** One GraphQL operation, parsed and validated against the schema once, at start-up. */
  document: string;
  /** The FastAPI body model: validated with FastAPI-shaped 422s before the operation runs. */
  body?: z.ZodType<Body>;
  /** The query parameters, validated the same way (loc starts with "query"). */
  query?: z.ZodType<Query>;
  /** Accept `application/x-www-form-urlencoded` bodies (OAuth2 password flow) as well as JSON. */
  form?: boolean;
  /** Hand the body over as the exact text received (for signatures over the raw bytes); `body` then sees a string. */
  rawBody?: boolean;
  /** Answer `respond`'s string as text/plain instead of JSON. */
  plainText?: boolean;
  variables(input: RouteInput<Body, Query>): Record<string, unknown>;
  /** Where each GraphQL argument came from, so BAD_USER_INPUT issues get the legacy `loc`. */
  argLocs?: Record<string, Loc>;
  /** The operation's `data` (and the variables it ran with) → the legacy response body; null means "not found". */
  respond(data: Data, variables: Record<string, unknown>): unknown;
  /** The 404 detail when `respond` gives null. */
  missing?: string | ((data: Data) => string);
  /** Statuses this operation answers beyond the ones every operation may (OpenAPI): status → when. */
  errors?: Record<number, string>;
}

/** Typed constructor for a route: infers Body and Query from the schemas, and checks the adapters against them. */
export function defineRoute<Body = undefined, Query = undefined, Data = unknown>(
  route: RestRoute<Body, Query, Data>,
): RestRoute {
  return route as unknown as RestRoute;
}
