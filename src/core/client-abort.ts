// A client that went away before its request was read: node:http rejects the body's read with `Error('aborted')`
// (code ECONNRESET), fetch-API bodies with an AbortError. Not a failure of ours and not the database's (ECONNRESET
// is also what a dropped database connection says): the request is logged as 499 at info, nothing else.

/** Whether an error (or what it wraps) is a client's abort of its own request. */
export function isClientAbort(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 4) return false;
  const code = 'code' in error ? (error as { code?: unknown }).code : undefined;
  if (error.message === 'aborted' && code === 'ECONNRESET') return true;
  if (error.name === 'AbortError' || code === 'ABORT_ERR') return true;
  const inner = 'originalError' in error ? (error as { originalError?: unknown }).originalError : error.cause;
  return inner !== undefined && isClientAbort(inner, depth + 1);
}
