// Relay connection helpers: page-size cap and opaque keyset cursors.
import { badInput } from '../domain/errors.js';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

interface ConnectionArgs {
  first?: number | null | undefined;
  last?: number | null | undefined;
}

/** A page larger than MAX_PAGE_SIZE (or negative) is refused rather than silently cut. */
export function checkPageSize(args: ConnectionArgs): void {
  for (const name of ['first', 'last'] as const) {
    const value = args[name];
    if (value != null && (value < 0 || value > MAX_PAGE_SIZE)) {
      throw badInput([
        {
          path: [name],
          type: value < 0 ? 'greater_than_equal' : 'less_than_equal',
          message:
            value < 0
              ? 'Input should be greater than or equal to 0'
              : `Input should be less than or equal to ${MAX_PAGE_SIZE}`,
          input: value,
        },
      ]);
    }
  }
}

export function encodeCursor(values: readonly string[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/** Decodes a cursor made by encodeCursor with `size` parts; anything else is BAD_USER_INPUT at `argName`. */
export function decodeCursor(cursor: string | undefined, size: number, argName: string): string[] | undefined {
  if (cursor === undefined) return undefined;
  try {
    const values: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(values) && values.length === size && values.every((v) => typeof v === 'string')) return values;
  } catch {
    // fall through to the error below
  }
  throw badInput([
    {
      path: [argName],
      type: 'value_error',
      message: 'not a cursor returned by this connection',
      input: cursor,
    },
  ]);
}
