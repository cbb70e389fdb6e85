// The accounts of recent requests, kept so that an authenticated read request costs no account query
// (docs/decisions.md §14). An entry is trusted only while the database's account-change version is the one it was
// read at (src/db/account-changes.ts): any write of this process or commit of another connection (SQLite), and the
// cache starts over. On PostgreSQL the version is never known, so find() always reads; what it read last is kept only
// as a provisional answer (recent()), which a request must confirm in the database before it answers
// (src/authentication.ts). A rotated API key, a changed password or a CLI change is therefore seen by the very next
// request. Bounded: past MAX_CACHED_ACCOUNTS the oldest entry goes.
import type { AccountChanges } from '../db/account-changes.js';
import type { Account } from './accounts.js';

export const MAX_CACHED_ACCOUNTS = 10_000;

/** Also keeps named access tokens with their accounts, by token id (the same rules: src/domain/access-tokens.ts). */
export interface AccountCache<T = Account> {
  /** The account with this id, as the database has it now (null when there is none). */
  find(id: string): Promise<T | null>;
  /**
   * While find() cannot vouch for what it keeps (PostgreSQL): what it read last for this id, to be confirmed by the
   * caller in the database before anything is answered on it. Undefined otherwise.
   */
  recent(id: string): T | undefined;
  /** How many accounts are kept (tests). */
  readonly size: number;
}

export function createAccountCache<T = Account>(
  /** Reads an account from the database (findAccountById). */
  read: (id: string) => Promise<T | null>,
  changes: Pick<AccountChanges, 'version'>,
  maxEntries = MAX_CACHED_ACCOUNTS,
): AccountCache<T> {
  let entries = new Map<string, T>();
  /** The version every kept entry was read at; null: entries are only what was read last (`recent`), or none yet. */
  let keptAt: string | null = null;
  const keep = (id: string, value: T) => {
    entries.delete(id);
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
    entries.set(id, value);
  };
  return {
    get size() {
      return entries.size;
    },
    recent: (id) => (keptAt === null && changes.version() === null ? entries.get(id) : undefined),
    async find(id) {
      const before = changes.version();
      if (before === null) {
        // Nothing kept under a version may be trusted again, even should the same version come back.
        if (keptAt !== null) entries = new Map();
        keptAt = null;
        const account = await read(id);
        if (account) keep(id, account);
        else entries.delete(id);
        return account;
      }
      if (before !== keptAt) {
        entries = new Map();
        keptAt = before;
      } else {
        const known = entries.get(id);
        if (known) return known;
      }
      const account = await read(id);
      // Kept only if nothing changed while it was read (else the next request reads it again).
      if (account && changes.version() === before && keptAt === before) keep(id, account);
      return account;
    },
  };
}
