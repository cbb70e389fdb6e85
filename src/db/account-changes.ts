// Tells whether an account may have changed since a moment, cheaply and for every writer: this process, another
// instance, the CLI (docs/decisions.md §14). The account cache (src/domain/account-cache.ts) keeps an account with the
// version it was read at and trusts it only while the version is the same.
//   - this process's writes: a counter bumped after every committed write, whatever it wrote;
//   - SQLite: `PRAGMA data_version`, which changes when any other connection (another process) commits;
//   - PostgreSQL: a trigger on accounts (migration 0013) sends NOTIFY gateway_accounts; a connection of ours LISTENs.
//     While it is not listening (at start, or after losing its connection) there is no version: nothing is trusted.
import type SQLite from 'better-sqlite3';
import pg from 'pg';

export const ACCOUNT_CHANGES_CHANNEL = 'gateway_accounts';

export interface AccountChanges {
  /** A value that differs from any earlier one whenever an account may have changed; null when that cannot be told. */
  version(): string | null;
  /**
   * Lets what has arrived be read before `version()` is asked: on PostgreSQL one turn of the event loop, so that a
   * notification already on the listening socket is counted before a request that came after it is answered.
   */
  settle?(): Promise<void>;
  /** Called by the database module after each committed write of this process. */
  localWrite(): void;
  close(): Promise<void>;
}

export function sqliteAccountChanges(sqlite: SQLite.Database): AccountChanges {
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  let writes = 0;
  return {
    version: () => `${writes}:${String(dataVersion.get())}`,
    localWrite: () => void (writes += 1),
    close: async () => undefined,
  };
}

/** How long to wait before listening again after the connection was lost (doubling up to the maximum). */
const RETRY_MS = { first: 500, max: 15_000 };

export function postgresAccountChanges(url: string, connectTimeoutMs: number): AccountChanges {
  let writes = 0;
  let notifications = 0;
  /** Bumped each time listening starts again: whatever changed while it was down is unknown. */
  let epoch = 0;
  let listening = false;
  let closed = false;
  let client: pg.Client | null = null;
  let retry = RETRY_MS.first;
  let timer: NodeJS.Timeout | null = null;

  const lost = () => {
    listening = false;
    const old = client;
    client = null;
    old?.removeAllListeners();
    old?.on('error', () => undefined);
    void old?.end().catch(() => undefined);
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void listen();
    }, retry).unref();
    retry = Math.min(retry * 2, RETRY_MS.max);
  };

  async function listen(): Promise<void> {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
    client = next;
    next.on('error', lost);
    next.on('end', () => {
      if (client === next) lost();
    });
    next.on('notification', () => void (notifications += 1));
    try {
      await next.connect();
      await next.query(`listen ${ACCOUNT_CHANGES_CHANNEL}`);
      if (closed || client !== next) return;
      epoch += 1;
      listening = true;
      retry = RETRY_MS.first;
    } catch {
      if (client === next) lost();
    }
  }
  void listen();

  return {
    version: () => (listening ? `${writes}:${epoch}:${notifications}` : null),
    settle: () => new Promise((resolve) => setImmediate(resolve)),
    localWrite: () => void (writes += 1),
    async close() {
      closed = true;
      listening = false;
      if (timer) clearTimeout(timer);
      const old = client;
      client = null;
      await old?.end().catch(() => undefined);
    },
  };
}
