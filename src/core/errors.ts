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

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: InputIssue[],
    /** For RATE_LIMITED: seconds before trying again (REST sends it as Retry-After). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'DomainError';
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
