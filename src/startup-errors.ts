// Start-up failures an operator can fix (docs/configuration.md), each told in one line that names the setting, its
// value (passwords masked) and what to do, instead of a stack trace. Anything else is a bug and keeps its stack.
import { ConfigError, maskUrl } from './core/config.js';
import { plainTextOn, processLine } from './core/logger.js';
import { MissingDirectoryError } from './db/database.js';
import { isDatabaseUnavailable } from './db/errors.js';

interface SystemError extends Error {
  code?: string;
  syscall?: string;
  path?: string;
}

const codeOf = (error: unknown): string =>
  error instanceof Error && 'code' in error ? String((error as SystemError).code) : '';

/** Where the server was to listen and which database it was to open. */
export interface StartupSettings {
  DATABASE_URL?: string;
  PORT?: number;
  HOST?: string;
}

/** One line for a failure the operator can fix, or null for anything else (a bug: print it with its stack). */
export function describeStartupFailure(error: unknown, settings: StartupSettings = {}): string | null {
  if (error instanceof ConfigError) return error.message;
  if (!(error instanceof Error)) return null;
  if (error instanceof MissingDirectoryError) {
    const database = settings.DATABASE_URL ? `DATABASE_URL=${maskUrl(settings.DATABASE_URL)}` : 'DATABASE_URL';
    return `Cannot use the SQLite database ${database}: ${error.message}; create it, or fix the path (only the default ./data is created for you).`;
  }
  const code = codeOf(error);
  const { syscall, path } = error as SystemError;
  const database = settings.DATABASE_URL ? `DATABASE_URL=${maskUrl(settings.DATABASE_URL)}` : 'DATABASE_URL';
  const address = `${settings.HOST ?? '127.0.0.1'}:${settings.PORT ?? ''}`;

  if (syscall === 'listen') {
    if (code === 'EADDRINUSE') {
      return `Port ${settings.PORT} is already in use on ${settings.HOST} (PORT=${settings.PORT}): stop the other server or set PORT to a free port.`;
    }
    if (code === 'EACCES') {
      return `Not allowed to listen on ${address} (PORT=${settings.PORT}): ports below 1024 need privileges; set PORT to 1024 or above.`;
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      return `Cannot listen on HOST=${settings.HOST}: it is not an address of this machine; set HOST (127.0.0.1, or 0.0.0.0 for every interface).`;
    }
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_NOTADB' || code === 'SQLITE_READONLY') {
    return `Cannot use the SQLite database ${database} (${error.message}): choose a path to a database file in a writable directory.`;
  }
  // PostgreSQL's "invalid authorization specification" class (28…) and "database does not exist" (3D000).
  if (code.startsWith('28')) {
    return `PostgreSQL refused the credentials in ${database} (${error.message}): check the user and password in DATABASE_URL.`;
  }
  if (code === '3D000') {
    return `The database named in ${database} does not exist (${error.message}): create it (createdb) or fix DATABASE_URL.`;
  }
  // What the database layer itself counts as "unreachable" (src/db/errors.ts), SQLite's cannot-open cases aside above.
  if (isDatabaseUnavailable(error)) {
    const reason = error instanceof AggregateError ? (error.errors[0] as Error | undefined)?.message : error.message;
    return `Cannot reach the database at ${database} (${reason}): check that it is running and that DATABASE_URL points at it.`;
  }
  if (path !== undefined && ['EEXIST', 'ENOTDIR', 'EACCES', 'EROFS', 'EPERM', 'ENOENT', 'EISDIR'].includes(code)) {
    return `Cannot create or open ${path} (${code}): it is needed for ${database} or the secrets file (SECRETS_FILE); choose a path in a writable directory.`;
  }
  return null;
}

/** Prints the failure (one line, or the stack of an unexpected one) and exits with code 1. */
export function exitOnStartupFailure(error: unknown, settings: StartupSettings = {}): never {
  const line = describeStartupFailure(error, settings);
  if (line) processLine('error', line);
  else if (plainTextOn(process.stderr)) console.error(error);
  else processLine('error', 'start-up failed', { err: error });
  process.exit(1);
}
