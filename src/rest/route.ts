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

export interface RestRoute<Body = unknown, Query = unknown, Data = unknown, Response extends z.ZodType = z.ZodType> {
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
  /**
   * What the operation itself requires of a body the router checks only loosely (a provider's callback, checked by
   * its resolver): documented in OpenAPI instead of `body`, so that the description is as strict as the server.
   */
  documentedBody?: z.ZodType;
  /** Accept `application/x-www-form-urlencoded` bodies (OAuth2 password flow) as well as JSON. */
  form?: boolean;
  /** Hand the body over as the exact text received (for signatures over the raw bytes); `body` then sees a string. */
  rawBody?: boolean;
  /** Answer `respond`'s string as text/plain instead of JSON. */
  plainText?: boolean;
  variables(input: RouteInput<Body, Query>): Record<string, unknown>;
  /**
   * Where each GraphQL argument (or a field of one, dotted: `input.campId`) came from, so BAD_USER_INPUT issues get
   * the legacy `loc`; the longest key that begins an issue's path wins.
   */
  argLocs?: Record<string, Loc>;
  /**
   * The success body (200), as the legacy service sent it: the OpenAPI description's 200 schema, and the type
   * `respond` must return. Never parsed at run time (src/rest/responses/).
   */
  response: Response;
  /** The operation's `data` (and the variables it ran with) → the legacy response body; null means "not found". */
  respond(data: Data, variables: Record<string, unknown>): z.output<Response> | null;
  /** The 404 detail when `respond` gives null. */
  missing?: string | ((data: Data) => string);
  /** Statuses this operation answers beyond the ones every operation may (OpenAPI): status → when. */
  errors?: Record<number, string>;
}

/**
 * Typed constructor for a route: checks the adapters against the request's types, the GraphQL data and the declared
 * response (`typeof` its schema). Every type argument is required, so no route can leave `respond` unchecked.
 */
export function defineRoute<Body, Query, Data, Response extends z.ZodType>(
  route: RestRoute<Body, Query, Data, Response>,
): RestRoute {
  return route as unknown as RestRoute;
}
