// OpenAPI 3.1 for the REST door, derived from the route table and the very zod schemas the router validates with
// (zod's own JSON Schema output), so the description cannot drift from what the door accepts; success bodies come
// from each route's declared `response` (the type its `respond` is checked against), error bodies from FastAPI's
// shapes (src/rest/responses/errors.ts). test/helpers/app.ts validates every REST answer of the test suite against
// it. Served at /api/v3/openapi.json, with Swagger UI (swagger-ui-dist, served from node_modules, no CDN) at
// /api/v3/docs.
import { MAX_JSON_DEPTH } from '../validation/json-limits.js';
import { detailBody, httpValidationErrorSchema } from './responses/errors.js';
import { type JsonSchema, type SchemaCollector, schemaCollector } from './openapi-schemas.js';
import { detail, HEADERS, headers, RESPONSES, responseRef } from './openapi-responses.js';
import type { RestRoute } from './route.js';

const PATH_PARAMETERS: Record<string, string> = {
  apiKey: 'The account’s API key (shown once, by signup)',
  campId: 'The campaign’s campId',
};

const pathParameters = (route: RestRoute) =>
  route.path
    .split('/')
    .filter((segment) => segment.startsWith('{'))
    .map((segment) => segment.slice(1, -1))
    .map((name) => ({
      name,
      in: 'path',
      required: true,
      ...(PATH_PARAMETERS[name] ? { description: PATH_PARAMETERS[name] } : {}),
      schema: { type: 'string', minLength: 1 },
    }));

function parameters(route: RestRoute, schemas: SchemaCollector): JsonSchema[] {
  if (!route.query) return pathParameters(route);
  const query = schemas.toSchema(route.query, 'input');
  const properties = (query.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((query.required ?? []) as string[]);
  return [
    ...pathParameters(route),
    ...Object.entries(properties).map(([name, { description, deprecated, ...schema }]) => ({
      name,
      in: 'query',
      required: required.has(name),
      ...(deprecated === true ? { deprecated } : {}),
      ...(typeof description === 'string' ? { description } : {}),
      schema,
    })),
  ];
}

function requestBody(route: RestRoute, schemas: SchemaCollector): JsonSchema | undefined {
  if (!route.body) return undefined;
  const documented = route.documentedBody ?? (route.rawBody ? undefined : route.body);
  const schema = documented ? schemas.toSchema(documented, 'input') : {};
  return {
    required: true,
    ...(route.documentedBody
      ? {
          description: route.form
            ? 'Form-encoded, as providers send it (a JSON object of the same fields, every value a string, is ' +
              'accepted too); checked after the signature'
            : 'Passed on as received, since the signature covers the exact bytes; checked after the signature',
        }
      : {}),
    content: {
      'application/json': { schema },
      ...(route.form ? { 'application/x-www-form-urlencoded': { schema } } : {}),
    },
  };
}

function success(route: RestRoute, schemas: SchemaCollector): JsonSchema {
  const schema = schemas.toSchema(route.response, 'output');
  return {
    description: 'Success',
    headers: headers(),
    content: { [route.plainText ? 'text/plain' : 'application/json']: { schema } },
  };
}

/** Whether anything of the request is validated: a route without inputs can never answer 422. */
const hasInput = (route: RestRoute) => Boolean(route.body ?? route.query) || route.path.includes('{');

/** Whether the route runs a mutation: a read-only access token gets 403 there (src/graphql/server/read-only-tokens.ts). */
const isWrite = (route: RestRoute) => /^\s*mutation\b/.test(route.document);

function responses(route: RestRoute, schemas: SchemaCollector): JsonSchema {
  // The statuses a route declares itself, with what they mean there; every 401 carries WWW-Authenticate.
  const own = Object.fromEntries(
    Object.entries(route.errors ?? {}).map(([status, when]) => [
      status,
      status === '401' ? detail(when, 'WWW-Authenticate') : detail(when),
    ]),
  );
  return {
    200: success(route, schemas),
    ...(route.auth ? { 401: responseRef('Unauthorized') } : {}),
    ...(route.auth && isWrite(route) ? { 403: responseRef('ReadOnlyToken') } : {}),
    404: responseRef('NotFound'),
    // The path answers 405 to the methods it does not serve (HEAD and OPTIONS among them; validators that read a
    // HEAD as a GET look for it here).
    405: responseRef('MethodNotAllowed'),
    413: responseRef('PayloadTooLarge'),
    ...(hasInput(route) ? { 422: responseRef('ValidationFailed') } : {}),
    429: responseRef('TooManyRequests'),
    500: responseRef('InternalServerError'),
    503: responseRef('ServiceUnavailable'),
    ...own,
  };
}

// The legacy service declared the OAuth2 password flow (token URL `login`), kept as it was: Swagger UI's Authorize
// dialog signs in with it from an e-mail and a password (the docs page hides the OAuth2 client fields, which this
// service does not use). HTTPBearer is the alternative for a token one already has (a named access token `cgat_…`, or a
// login's from curl), which the password flow cannot take. Either one is enough: both send `Authorization: Bearer`.
const SECURITY_SCHEMES = {
  OAuth2PasswordBearer: {
    type: 'oauth2',
    description:
      'Sign in with an account: `username` is its e-mail, `password` its password (the demo account of ' +
      '`npm run seed:demo` is demo@example.com / demo-password). Swagger UI sends them to POST /login and then the ' +
      'token it gets with every call. No OAuth2 client id or secret is needed.',
    flows: { password: { tokenUrl: 'login', scopes: {} } },
  },
  HTTPBearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Or paste a token you already have, without the word Bearer: the `access_token` of POST /login, or a named ' +
      'access token (`cgat_…`, GraphQL `accessTokenCreate` or `npm run cli -- token:create`).',
  },
} as const;

/** A bearer route's security: either scheme (both are `Authorization: Bearer <token>`). */
const BEARER = [{ OAuth2PasswordBearer: [] }, { HTTPBearer: [] }];

function operation(route: RestRoute, schemas: SchemaCollector): JsonSchema {
  const body = requestBody(route, schemas);
  return {
    summary: route.summary,
    tags: [route.tag],
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    ...(route.auth ? { security: BEARER } : { security: [] }),
    parameters: parameters(route, schemas),
    ...(body ? { requestBody: body } : {}),
    responses: responses(route, schemas),
  };
}

const DESCRIPTION = `The /api/v3 interface of the legacy service. It runs the same resolvers as the GraphQL API at \
/graphql. Errors have FastAPI's shapes.

**Try it:** press **Authorize** and sign in with an account's e-mail (as \`username\`) and password. A token you already \
have goes in the **HTTPBearer** field instead.

**Answers.** Every operation lists every status it can answer, with its body and headers. The test suite checks each \
answer it receives against this description. A path not described here answers 404 (NotFound). A described path \
called with a method it does not serve (HEAD and OPTIONS included) answers 405 (MethodNotAllowed, with Allow); this \
is listed on each of its operations.

**Requests.** The request schemas (bodies, query and path parameters) accept exactly what the server accepts, as a \
client sends it:

- integers and numbers as JSON numbers or as numeric strings ("5", " +05 ");
- booleans as true/false, 0/1, or words such as "yes" and "Off", as the legacy service read them;
- strings with surrounding whitespace, which the server trims (their lengths are counted once trimmed);
- e-mails and URLs by the server's own patterns (no JSON Schema format is asserted);
- the defaults the server applies.

Some rules cannot be written in JSON Schema: a voice of the catalogue, a time zone or language tag the server knows, \
a URL the URL parser takes. There the schema is looser, never stricter, and the field's description says what is left.

One exception is stricter. Older clients may name the campaign by an alias: campaignId or camp_id for campId, and \
campId or camp_id for campaignId at add_webhook_campaingn. The main name is required and the aliases are \
deprecated. OpenAPI cannot say "one of these parameters", and a generated client must not compile a call the server \
refuses.

**Limits.** Lengths count characters (code points) on both sides: an emoji is one. Every request body is at most \
1 MiB (413). JSON may be nested at most ${MAX_JSON_DEPTH} levels deep (422, json_invalid). Unknown body fields and \
query parameters are ignored.`;

export function buildOpenApi(routes: readonly RestRoute[]): JsonSchema {
  const schemas = schemaCollector();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, schemas);
  // The error bodies are named schemas as well, referenced by the shared responses.
  schemas.toSchema(detailBody, 'output');
  schemas.toSchema(httpValidationErrorSchema, 'output');
  return {
    openapi: '3.1.0',
    info: { title: 'Campaign gateway — legacy REST interface', version: '3', description: DESCRIPTION },
    servers: [{ url: '/api/v3' }],
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: schemas.components(),
      responses: RESPONSES,
      headers: HEADERS,
    },
  };
}
