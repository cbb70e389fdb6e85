// The error kinds every door understands (docs/decisions.md §10). GraphQL exposes `code` as extensions.code;
// the REST router maps it to an HTTP status.
export type ErrorCode =
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  // A document over its cost limit, an answer over its text budget (src/graphql/server/document-cost.ts).
  | 'COST_LIMIT_EXCEEDED'
  | 'RESPONSE_TOO_LARGE';

/** One problem with one input value; `type` and `message` follow pydantic v2's wording where one exists. */
export interface InputIssue {
  path: Array<string | number>;
  type: string;
  message: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/**
 * A refusal the client can act on (its input, its token, its rate): answered with its code and message, logged at
 * info without a stack. It captures no stack either: a refusal is a hot path under attack (a slowed-down login
 * refused thousands of times a second), and formatting the stack — which graphql-js reads from every error a resolver
 * throws, through the source maps `npm start` enables — cost about a fifth of each refused request.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly issues?: InputIssue[];
  /** For RATE_LIMITED: seconds before trying again (REST sends it as Retry-After). */
  readonly retryAfter?: number;

  constructor(code: ErrorCode, message: string, issues?: InputIssue[], retryAfter?: number) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'DomainError';
    this.code = code;
    if (issues !== undefined) this.issues = issues;
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }
}

/**
 * Makes an error (a GraphQLError that reports a client's mistake, say) without capturing a stack: nobody reads it,
 * and capturing and formatting one is most of what such an error costs (see DomainError).
 */
export function withoutStack<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

export const notFound = (message: string) => new DomainError('NOT_FOUND', message);
export const conflict = (message: string) => new DomainError('CONFLICT', message);
export const forbidden = (message: string) => new DomainError('FORBIDDEN', message);
export const unauthenticated = (message: string) => new DomainError('UNAUTHENTICATED', message);
export const rateLimited = (message: string, retryAfter: number) =>
  new DomainError('RATE_LIMITED', message, undefined, retryAfter);
/** The database cannot be reached: try again in `retryAfter` seconds (503 on REST). */
export const serviceUnavailable = (retryAfter: number) =>
  new DomainError(
    'SERVICE_UNAVAILABLE',
    'The service is temporarily unavailable; try again shortly',
    undefined,
    retryAfter,
  );
export const badInput = (issues: InputIssue[]) =>
  new DomainError(
    'BAD_USER_INPUT',
    issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '),
    issues,
  );
