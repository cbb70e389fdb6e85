// What a legacy REST route is: a prepared GraphQL operation plus adapters between the legacy wire format and it.
// Routes hold no SQL and no business rules; the router executes `document` through yoga's pipeline.
import type { TadaDocumentNode } from 'gql.tada';
import { print } from 'graphql';
import type { z } from 'zod';
import type { Services } from '../services.js';
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
  /**
   * At most this many form fields, or object keys and list items in a JSON body (MAX_FORM_FIELDS, MAX_JSON_VALUES when
   * unset): counted before the body is parsed, and refused with a 422 that names the limit.
   */
  maxFields?: number;
  /**
   * What is checked before the body is read, at the cost of one indexed lookup at most (a provider callback's API key
   * and signature header): a refusal (`{"detail": …}` with its status), or null to go on.
   */
  precheck?(input: {
    path: Record<string, string>;
    headers: Headers;
    services: Pick<Services, 'callbackRefusedEarly'>;
  }): Promise<{ status: number; detail: string } | null>;
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
 * A route whose document is written with `graphql()` (src/rest/typed-documents.ts): its result and variables are
 * the document's own types, read by gql.tada from the internal graph, so `variables` must make what the document
 * declares and `respond` reads only what it selects. Body, query and response types are those of their zod schemas.
 */
export type TypedRoute<Body, Query, Result, Vars, Response extends z.ZodType> = Omit<
  RestRoute<Body, Query, Result, Response>,
  'document' | 'variables' | 'respond'
> & {
  document: TadaDocumentNode<Result, Vars>;
  /** The document's variables, typed from the document alone (a missing or mistyped one does not compile). */
  variables(input: RouteInput<Body, Query>): NoInfer<Vars>;
  respond(data: Result, variables: NoInfer<Vars>): z.output<Response> | null;
};

export function defineRoute<
  Body = undefined,
  Query = undefined,
  Result = never,
  Vars = never,
  Response extends z.ZodType = z.ZodType,
>(route: TypedRoute<Body, Query, Result, Vars, Response>): RestRoute {
  return { ...route, document: print(route.document) } as unknown as RestRoute;
}

/**
 * A route whose document is built from declarations (a campaign's model fields, an integration kind's fields), which
 * gql.tada cannot read: the result type comes from the same declarations, and every type argument is required, so
 * `respond` is still checked. Prefer `defineRoute` wherever the document can be written out.
 */
export function defineDeclaredRoute<Body, Query, Data, Response extends z.ZodType>(
  route: RestRoute<Body, Query, Data, Response>,
): RestRoute {
  return route as unknown as RestRoute;
}
