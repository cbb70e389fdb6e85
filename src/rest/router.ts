// The REST compatibility router: matches a legacy path, validates the request into FastAPI-shaped 422s,
// then runs the route's prepared GraphQL operation through yoga's enveloped pipeline (as the SOFA plugin does) on the
// internal graph (the public one plus the REST door's own fields),
// so both doors share auth, validation, resolvers, dataloaders and error masking.
import { Response } from '../core/fetch-api.js';
import { type DocumentNode, type ExecutionResult, type GraphQLError, parse, validate } from 'graphql';
import type { ErrorCode, InputIssue } from '../core/errors.js';
import type { Services } from '../services.js';
import { AUTH_FAILURE_MESSAGES, type Authentication, type RequestAuth, requestAuth } from '../authentication.js';
import type { Yoga } from '../graphql/server/yoga.js';
import { internalSchema } from '../graphql/schema/schema.js';
import { isWholeQuery } from '../graphql/server/incremental-delivery.js';
import { issuesFromZod } from '../validation/issues.js';
import {
  detailResponse,
  type FastApiValidationError,
  jsonInvalid,
  jsonResponse,
  jsonTextResponse,
  jsonTooDeep,
  type Loc,
  tooManyFields,
  STATUS_BY_CODE,
  toValidationErrors,
  validationResponse,
} from './fastapi-errors.js';
import type { RestRoute } from './route.js';
import { answerTextNoted, MAX_BODY_BYTES, noteRoute, timedWork, UNKNOWN_CLIENT } from '../core/request-context.js';
import { LONG_ANSWER_TEXT, stringifyInPieces } from '../graphql/server/long-answers.js';
import { readFormFields } from '../validation/form-fields.js';
import { decodeBody } from '../core/body-text.js';
import { jsonTooDeepAt, jsonValuesOverAt, MAX_JSON_VALUES } from '../validation/json-limits.js';

export const REST_PREFIX = '/api/v3';

interface PreparedRoute {
  route: RestRoute;
  segments: string[];
  document: DocumentNode;
  /** Its document is a query in one piece (isWholeQuery): a GET of it may be answered on a provisional credential. */
  reads: boolean;
}

function prepare(routes: readonly RestRoute[]): PreparedRoute[] {
  return routes.map((route) => {
    const document = parse(route.document);
    const errors = validate(internalSchema, document);
    if (errors.length > 0)
      throw new Error(`REST route ${route.method} ${route.path}: ${errors.map((e) => e.message).join('; ')}`);
    const reads = isWholeQuery(document);
    return { route, segments: route.path.split('/').filter(Boolean), document, reads };
  });
}

/** A path segment decoded; a malformed escape (`%zz`) is kept as sent, and will match nothing it names. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function match(prepared: PreparedRoute, segments: string[]): Record<string, string> | null {
  if (prepared.segments.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (const [index, pattern] of prepared.segments.entries()) {
    const segment = segments[index] ?? '';
    if (pattern.startsWith('{') && pattern.endsWith('}')) params[pattern.slice(1, -1)] = decodeSegment(segment);
    else if (pattern !== segment) return null;
  }
  return params;
}

type Parsed<T> = { ok: true; value: T; form?: boolean } | { ok: false; errors: FastApiValidationError[] };

async function readBody(request: Request, route: RestRoute): Promise<Parsed<unknown> | Response> {
  const length = Number(request.headers.get('content-length') ?? 0);
  if (length > MAX_BODY_BYTES) return detailResponse(413, 'Request body too large');
  const bytes = await request.bytes();
  if (bytes.byteLength > MAX_BODY_BYTES) return detailResponse(413, 'Request body too large');
  if (route.rawBody) return { ok: true, value: decodeBody(bytes) };
  // Synchronous from here: the request's own time (src/security/work-budget.ts).
  return timedWork(() => parseBody(request, route, bytes));
}

function parseBody(request: Request, route: RestRoute, bytes: Uint8Array): Parsed<unknown> {
  const type = request.headers.get('content-type') ?? '';
  // Fields and keys are counted on the bytes, before the body is decoded or anything is built of it (docs/limits.md):
  // a refusal costs a scan that stops at the limit.
  if (route.form && type.includes('application/x-www-form-urlencoded')) {
    const form = readFormFields(bytes, route.maxFields);
    if (!form.ok) return { ok: false, errors: [tooManyFields(form.limit, 'form')] };
    return { ok: true, value: Object.fromEntries(form.fields), form: true };
  }
  const tooDeepAt = jsonTooDeepAt(bytes);
  // The offset FastAPI names is a character's, not a byte's.
  if (tooDeepAt >= 0) return { ok: false, errors: [jsonTooDeep(decodeBody(bytes.subarray(0, tooDeepAt)).length)] };
  const maxValues = route.maxFields ?? MAX_JSON_VALUES;
  if (jsonValuesOverAt(bytes, maxValues) >= 0) return { ok: false, errors: [tooManyFields(maxValues, 'json')] };
  const text = decodeBody(bytes);
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, errors: [jsonInvalid(text)] };
  }
}

function validateInput(
  route: RestRoute,
  body: { value: unknown; form?: boolean },
  query: Record<string, string>,
): Parsed<{ body: unknown; query: unknown }> {
  const errors: FastApiValidationError[] = [];
  const check = (schema: RestRoute['body'], value: unknown, source: 'body' | 'query') => {
    if (!schema) return undefined;
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    const perField = source === 'query' || body.form === true;
    errors.push(
      ...toValidationErrors(issuesFromZod(result.error.issues, value), (path) => [source, ...path], perField),
    );
    return undefined;
  };
  const parsedQuery = check(route.query, query, 'query');
  const parsedBody = check(route.body, body.value, 'body');
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: { body: parsedBody, query: parsedQuery } };
}

/** The value at `path` in the operation's variables: GraphQL issues do not echo inputs, FastAPI's 422s do. */
function variableAt(variables: Record<string, unknown>, path: InputIssue['path']): unknown {
  let value: unknown = variables;
  for (const key of path)
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

function errorResponse(
  route: RestRoute,
  errors: readonly GraphQLError[],
  variables: Record<string, unknown>,
  logger: Services['logger'],
): Response {
  const first = errors[0];
  const code = first?.extensions?.code as ErrorCode | undefined;
  if (code === 'BAD_USER_INPUT') {
    const issues = errors
      .flatMap((error) => (error.extensions?.issues as InputIssue[] | undefined) ?? [])
      .map((issue) => ({ ...issue, input: issue.type === 'missing' ? undefined : variableAt(variables, issue.path) }));
    // The longest `argLocs` key that begins the issue's path (`input.campId` before `input`) says where it came from.
    const locate = (path: InputIssue['path']): Loc => {
      for (let length = path.length; length > 0; length--) {
        const prefix = route.argLocs?.[path.slice(0, length).join('.')];
        if (prefix) return [...prefix, ...path.slice(length)];
      }
      return ['body', ...path];
    };
    return validationResponse(toValidationErrors(issues, locate));
  }
  const retryAfter = first?.extensions?.retryAfter;
  if (code && code in STATUS_BY_CODE) {
    return detailResponse(
      STATUS_BY_CODE[code],
      first?.message ?? 'Error',
      typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {},
    );
  }
  // Masked errors were logged where they were masked; an error without any code is a fault nobody has reported yet.
  if (!code) logger.error({ err: first }, 'unexpected error without a code on a REST route');
  return detailResponse(500, 'Internal Server Error');
}

/** `url` is the request's URL, when the caller has parsed it already; `clientAddress` where it comes from. */
export type RestHandler = (
  request: Request,
  url?: URL,
  clientAddress?: string,
  auth?: RequestAuth,
) => Promise<Response>;

/** A request matched to its route. */
interface RestCall extends PreparedRoute {
  params: Record<string, string>;
  request: Request;
  url: URL;
  clientAddress: string;
}

export function createRestRouter(yoga: Yoga, services: Services, routes: readonly RestRoute[]): RestHandler {
  const prepared = prepare(routes);

  return async (request, url = new URL(request.url), clientAddress = UNKNOWN_CLIENT, given?: RequestAuth) => {
    // Routed as sent, as Starlette routes (src/http/path-variants.ts): an empty segment names no route, and a trailing
    // slash on a path that names one is redirected to it.
    const segments = url.pathname.slice(REST_PREFIX.length).split('/').slice(1);
    const trailingSlash = segments.length > 1 && segments[segments.length - 1] === '';
    if (trailingSlash) segments.pop();
    if (segments.includes('')) return detailResponse(404, 'Not Found');
    const candidates = prepared.flatMap((p) => {
      const params = match(p, segments);
      return params ? [{ ...p, params }] : [];
    });
    if (candidates.length === 0) return detailResponse(404, 'Not Found');
    if (trailingSlash) {
      return new Response(null, {
        status: 307,
        headers: { location: `${url.pathname.replace(/\/$/, '')}${url.search}` },
      });
    }
    const found = candidates.find((c) => c.route.method === request.method);
    if (!found) {
      const allow = [...new Set(candidates.map((c) => c.route.method))].join(', ');
      return detailResponse(405, 'Method Not Allowed', { allow });
    }
    noteRoute(`${REST_PREFIX}${found.route.path}`);

    // As FastAPI resolves the security dependency first, a missing or bad token wins over a bad body. A GET of a
    // query is answered on the credential as last read (on PostgreSQL; src/authentication.ts) and confirmed before
    // it leaves: if it did not stand, it is answered again with the caller as the database has it now.
    const call: RestCall = { ...found, request, url, clientAddress };
    if (!found.route.auth) return answer(call, { viewer: null, authFailure: null });
    const auth = given ?? requestAuth(services, request.headers.get('authorization'));
    if (request.method !== 'GET' || !found.reads) return answer(call, await auth.authentication());
    const response = await answer(call, await auth.provisional());
    const now = await auth.confirm();
    return now ? answer(call, now) : response;
  };

  async function answer(
    { route, document, params, request, url, clientAddress }: RestCall,
    auth: Authentication,
  ): Promise<Response> {
    if (route.auth && auth.authFailure) return detailResponse(401, AUTH_FAILURE_MESSAGES[auth.authFailure]);
    const refused = await route.precheck?.({ path: params, headers: request.headers, services });
    if (refused) return detailResponse(refused.status, refused.detail);
    const body = route.body ? await readBody(request, route) : { ok: true as const, value: undefined };
    if (body instanceof Response) return body;
    if (!body.ok) return validationResponse(body.errors);
    const query = Object.fromEntries(url.searchParams);
    const input = validateInput(route, body, query);
    if (!input.ok) return validationResponse(input.errors);

    const base = services.config.PUBLIC_BASE_URL?.replace(/\/$/, '');
    const variableValues = route.variables({
      body: input.value.body,
      query: input.value.query,
      path: params,
      headers: request.headers,
      publicUrl: base ? `${base}${url.pathname}${url.search}` : request.url,
    });
    // yoga's enveloped pipeline (its plugins, context and masking) on the internal graph (docs/graphql.md#two-graphs).
    // One answer per call, whatever the request accepts (`once`: src/graphql/schema/context.ts).
    const { contextFactory, execute } = yoga.getEnveloped({ request, clientAddress, transport: 'once', ...auth });
    const contextValue = await contextFactory();
    const result = (await execute({
      schema: internalSchema,
      document,
      contextValue,
      variableValues,
    })) as ExecutionResult;
    if (result.errors && result.errors.length > 0)
      return errorResponse(route, result.errors, variableValues, services.logger);
    const legacyBody = timedWork(() => route.respond(result.data, variableValues));
    if (legacyBody === null && route.missing) {
      return detailResponse(404, typeof route.missing === 'string' ? route.missing : route.missing(result.data));
    }
    if (route.plainText) {
      return new Response(String(legacyBody), {
        headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
      });
    }
    // An answer holding much long text is serialised in pieces, the loop free between them (as /graphql's).
    if (answerTextNoted() >= LONG_ANSWER_TEXT) {
      return jsonTextResponse(200, await stringifyInPieces(legacyBody));
    }
    return timedWork(() => jsonResponse(200, legacyBody));
  }
}
