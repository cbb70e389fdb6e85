// Tells whether an account may have changed since a moment, cheaply and for every writer: this process, another
// instance, the CLI (docs/decisions.md §14). The account cache (src/domain/account-cache.ts) keeps an account with the
// version it was read at and trusts it only while the version is the same.
//   - this process's writes: a counter bumped after every committed write, whatever it wrote;
//   - SQLite: `PRAGMA data_version`, which changes when any other connection (another process) commits, read at most
//     once per turn of the event loop and 1 ms apart;
//   - PostgreSQL: no version (every request reads its account, or checks it in its first statement: src/authentication.ts).
import type SQLite from 'better-sqlite3';

export interface AccountChanges {
  /** A value that differs from any earlier one whenever an account may have changed; null when that cannot be told. */
  version(): string | null;
  /** Called by the database module after each committed write of this process. */
  localWrite(): void;
}

/** How long a read of `PRAGMA data_version` is reused within one turn of the event loop. */
export const DATA_VERSION_REUSE_MS = 1;

/**
 * SQLite's version: this process's write counter (exact) and `PRAGMA data_version`, read at most once per turn of the
 * event loop and at most 1 ms apart (issue 55): requests answered in one turn share a read, and another process's
 * commit is seen within a millisecond, or on the next turn. `now` is for tests.
 */
export function sqliteAccountChanges(
  sqlite: Pick<SQLite.Database, 'prepare'>,
  now: () => number = performance.now.bind(performance),
): AccountChanges {
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  let writes = 0;
  let read: unknown;
  let readAt = 0;
  let forgetScheduled = false;
  const forget = () => {
    read = undefined;
    forgetScheduled = false;
  };
  const current = (): unknown => {
    const at = now();
    if (read === undefined || at - readAt >= DATA_VERSION_REUSE_MS) {
      read = dataVersion.get();
      readAt = at;
      if (!forgetScheduled) {
        forgetScheduled = true;
        setImmediate(forget);
      }
    }
    return read;
  };
  return {
    version: () => `${writes}:${String(current())}`,
    localWrite: () => void (writes += 1),
  };
}

/**
 * PostgreSQL: several instances and the CLI write through connections of their own, and no notification reaches an
 * instance before a request that follows the change could (LISTEN/NOTIFY arrives soon, not first: a test under load
 * showed a revoked token served once). The version is never known there, so every request reads its account or
 * checks it in the statement of its first hot read (src/db/credential-check.ts).
 */
export function unknownAccountChanges(): AccountChanges {
  return { version: () => null, localWrite: () => undefined };
}
