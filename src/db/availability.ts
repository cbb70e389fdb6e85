// Whether the database answers, as the requests find it: while it does not, both doors answer 503 with Retry-After
// (docs/limits.md "When the database is down"), and the log says so once when it goes and once when it is back, instead of
// an error with a stack per request.
import type { Logger } from '../core/logger.js';
import { isDatabaseUnavailable } from './errors.js';

/** Seconds a client is told to wait (Retry-After) while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const WRITE = /^\s*(insert|update|delete)\b/i;

export interface DatabaseAvailability {
  readonly down: boolean;
  /** If `error` says the database is unreachable: records it (logging the change) and returns true. */
  failed(error: unknown): boolean;
  /**
   * A query succeeded: if the database was down, it is back (logged once). Only a query sent after the outage was
   * noticed counts (one still in flight from before says nothing: counting it made the log flap). While SQLite's file
   * is locked by another process reads (and BEGIN) still succeed, so then only a write tells that it is back.
   * `startedAt` is on performance.now()'s clock.
   */
  answered(sql: string, startedAt?: number): void;
}

export function createDatabaseAvailability(logger: Logger): DatabaseAvailability {
  let down = false;
  let downSince = 0;
  let writesOnly = false;
  return {
    get down() {
      return down;
    },
    failed(error) {
      if (!isDatabaseUnavailable(error)) return false;
      if (!down) {
        down = true;
        downSince = performance.now();
        const { code, message } = error as Error & { code?: string };
        writesOnly = /^SQLITE_(BUSY|LOCKED)/.test(String(code));
        logger.warn({ code, reason: message }, 'database unreachable: answering 503 until it is back');
      }
      return true;
    },
    answered(sql, startedAt = performance.now()) {
      if (!down || startedAt < downSince || (writesOnly && !WRITE.test(sql))) return;
      down = false;
      logger.info('database reachable again');
    },
  };
}
