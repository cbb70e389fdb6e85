// OpenAPI 3.1 for the REST door, derived from the route table and the very zod schemas the router validates with
// (zod's own JSON Schema output), so the description cannot drift from what the door accepts. Served at
// /api/v3/openapi.json, with Swagger UI (swagger-ui-dist, served from node_modules, no CDN) at /api/v3/docs.
import { z } from 'zod';
import type { RestRoute } from './route.js';

type JsonSchema = Record<string, unknown>;

const toSchema = (schema: z.ZodType): JsonSchema => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

const detail = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Detail' } } },
});

function parameters(route: RestRoute): JsonSchema[] {
  const fromPath = route.path
    .split('/')
    .filter((segment) => segment.startsWith('{'))
    .map((segment) => ({ name: segment.slice(1, -1), in: 'path', required: true, schema: { type: 'string' } }));
  if (!route.query) return fromPath;
  const query = toSchema(route.query);
  const properties = (query.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((query.required ?? []) as string[]);
  return [
    ...fromPath,
    ...Object.entries(properties).map(([name, schema]) => ({
      name,
      in: 'query',
      required: required.has(name),
      schema,
    })),
  ];
}

function requestBody(route: RestRoute): JsonSchema | undefined {
  if (!route.body) return undefined;
  if (route.rawBody) {
    return { required: true, content: { 'application/json': { schema: { type: 'object' } } } };
  }
  const schema = toSchema(route.body);
  return {
    required: true,
    content: {
      'application/json': { schema },
      ...(route.form ? { 'application/x-www-form-urlencoded': { schema } } : {}),
    },
  };
}

const WWW_AUTHENTICATE = {
  'WWW-Authenticate': { description: 'Always `Bearer`', schema: { type: 'string', const: 'Bearer' } },
};
const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
};
const withHeaders = (response: JsonSchema, headers: JsonSchema): JsonSchema => ({ ...response, headers });

function operation(route: RestRoute): JsonSchema {
  const body = requestBody(route);
  return {
    summary: route.summary,
    tags: [route.tag],
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    ...(route.auth ? { security: [{ OAuth2PasswordBearer: [] }] } : { security: [] }),
    parameters: parameters(route),
    ...(body ? { requestBody: body } : {}),
    responses: {
      200: route.plainText
        ? { description: 'Success', content: { 'text/plain': { schema: { type: 'string' } } } }
        : { description: 'Success', content: { 'application/json': { schema: {} } } },
      ...(route.auth
        ? { 401: withHeaders(detail('Missing, malformed, expired or unknown bearer token'), WWW_AUTHENTICATE) }
        : {}),
      ...Object.fromEntries(Object.entries(route.errors ?? {}).map(([status, when]) => [status, detail(when)])),
      404: detail('Not found (another account’s record is indistinguishable from a missing one)'),
      413: detail('Request body over 1 MiB'),
      422: {
        description: 'Validation error: every problem at once',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/HTTPValidationError' } } },
      },
      429: withHeaders(detail('Too many requests'), RETRY_AFTER),
      503: withHeaders(detail('The database is unreachable for now'), RETRY_AFTER),
    },
  };
}

export function buildOpenApi(routes: readonly RestRoute[]): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Campaign gateway — legacy REST interface',
      version: '3',
      description:
        'The /api/v3 interface of the legacy service, served by a compatibility router that runs the GraphQL ' +
        'schema’s resolvers (GraphQL at /graphql). Errors are FastAPI-shaped.',
    },
    servers: [{ url: '/api/v3' }],
    paths,
    components: {
      securitySchemes: {
        OAuth2PasswordBearer: { type: 'oauth2', flows: { password: { tokenUrl: 'login', scopes: {} } } },
      },
      schemas: {
        Detail: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] },
        ValidationError: {
          type: 'object',
          properties: {
            loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
            msg: { type: 'string' },
            type: { type: 'string' },
            input: {},
          },
          required: ['loc', 'msg', 'type'],
        },
        HTTPValidationError: {
          type: 'object',
          properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationError' } } },
        },
      },
    },
  };
}
