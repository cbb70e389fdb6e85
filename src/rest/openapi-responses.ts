// The answers the REST door may give any operation, for the OpenAPI description (components/responses and
// components/headers): they come from the HTTP layer (src/http/doors.ts: rate limits, body limit, database outage,
// unexpected errors) and from the router (src/rest/router.ts: bearer token, 404, 405, 422), not from a route.
import { READ_ONLY_MESSAGE } from '../graphql/server/read-only-tokens.js';
import { COMPONENT_SCHEMAS, type JsonSchema } from './openapi-schemas.js';

export const HEADERS: Record<string, JsonSchema> = {
  'X-Request-Id': {
    description: 'The request’s id, on its log lines too: the X-Request-Id the client sent when usable, else a UUID',
    required: true,
    schema: { type: 'string', minLength: 1 },
  },
  'WWW-Authenticate': {
    description: 'As OAuth2PasswordBearer sends it',
    required: true,
    schema: { type: 'string', const: 'Bearer' },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  Allow: {
    description: 'The methods the path answers, comma-separated',
    required: true,
    schema: { type: 'string', pattern: '^[A-Z]+(, [A-Z]+)*$' },
  },
};

/** The headers of a response: X-Request-Id on every one, and those named. */
export const headers = (...names: string[]): JsonSchema =>
  Object.fromEntries(['X-Request-Id', ...names].map((name) => [name, { $ref: `#/components/headers/${name}` }]));

const json = (schema: string) => ({ 'application/json': { schema: { $ref: `${COMPONENT_SCHEMAS}${schema}` } } });

/** `{"detail": "<sentence>"}` with `description`, and the headers named. */
export const detail = (description: string, ...names: string[]): JsonSchema => ({
  description,
  headers: headers(...names),
  content: json('Detail'),
});

export const RESPONSES = {
  Unauthorized: detail(
    'The bearer token is missing, malformed, expired or revoked, or its account is gone',
    'WWW-Authenticate',
  ),
  ReadOnlyToken: detail(
    `The bearer token is a read-only access token and this operation writes: ${JSON.stringify({ detail: READ_ONLY_MESSAGE })}`,
  ),
  NotFound: detail(
    'What the request names does not exist (another account’s record is indistinguishable from a missing one); ' +
      'also the answer to any path not described here: {"detail": "Not Found"}',
  ),
  MethodNotAllowed: detail(
    'A described path called with a method it does not answer: {"detail": "Method Not Allowed"}, and Allow',
    'Allow',
  ),
  PayloadTooLarge: detail('The request body is over 1 MiB: {"detail": "Request body too large"}'),
  ValidationFailed: {
    description: 'The request does not validate: every problem at once, in pydantic’s words',
    headers: headers(),
    content: json('HTTPValidationError'),
  },
  TooManyRequests: detail(
    'Over a rate limit (requests per account or per address, failed logins, large bodies)',
    'Retry-After',
  ),
  InternalServerError: detail('An unexpected error: {"detail": "Internal Server Error"} (it is logged)'),
  ServiceUnavailable: detail('The database is unreachable for now', 'Retry-After'),
} satisfies Record<string, JsonSchema>;

export const responseRef = (name: keyof typeof RESPONSES) => ({ $ref: `#/components/responses/${name}` });
