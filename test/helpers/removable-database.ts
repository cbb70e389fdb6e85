// A database a test can take away and give back, for an app it starts itself (startApp or loopbackGateways): on
// PostgreSQL a TCP proxy stands between the app and the server and stops; on SQLite another connection holds the file's
// write lock, so that writes fail (reads still succeed there: a test that wants the outage seen makes a write).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { DIALECT, type StartOptions } from './app.js';
import { startTcpProxy } from './tcp-proxy.js';

export interface RemovableDatabase {
  /** Settings for the app: its database and a short timeout (an outage is noticed within it). */
  env: Record<string, string>;
  options: StartOptions;
  outage(): Promise<void>;
  recover(): Promise<void>;
  /** After the app is closed. */
  close(): Promise<void>;
}

export async function removableDatabase(): Promise<RemovableDatabase> {
  if (DIALECT === 'postgres') {
    const proxy = await startTcpProxy('127.0.0.1', 5432);
    return {
      env: { DATABASE_TIMEOUT_SECONDS: '0.5' },
      options: {
        rewriteDatabaseUrl: (url) => {
          const parsed = new URL(url);
          parsed.port = String(proxy.port);
          return parsed.toString();
        },
      },
      outage: () => proxy.stop(),
      recover: () => proxy.start(),
      close: () => proxy.close(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'removable-'));
  const file = join(dir, 'db.sqlite');
  let locker: SQLite.Database | null = null;
  const release = () => {
    if (locker?.inTransaction) locker.exec('rollback');
    locker?.close();
    locker = null;
  };
  return {
    env: { DATABASE_URL: `sqlite:${file}`, DATABASE_TIMEOUT_SECONDS: '0.05' },
    options: {},
    outage: async () => {
      locker = new SQLite(file);
      locker.exec('begin exclusive');
    },
    recover: async () => release(),
    close: async () => {
      release();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
