// The accounts of recent requests, kept so that an authenticated read request costs no account query
// (docs/decisions.md §14). An entry is trusted only while the database's account-change version is the one it was
// read at (src/db/account-changes.ts): any write of this process or commit of another connection (SQLite), and the
// cache starts over. On PostgreSQL the version is never known, so nothing is kept. A rotated API key, a changed password or a CLI
// change is therefore seen by the very next request. Bounded: past MAX_ENTRIES the oldest entry goes.
import type { AccountChanges } from '../db/account-changes.js';
import type { Account } from './accounts.js';

export const MAX_CACHED_ACCOUNTS = 10_000;

/** Also keeps named access tokens with their accounts, by token id (the same rules: src/domain/access-tokens.ts). */
export interface AccountCache<T = Account> {
  /** The account with this id, as the database has it now (null when there is none). */
  find(id: string): Promise<T | null>;
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
  /** The version every kept entry was read at. */
  let keptAt: string | null = null;
  return {
    get size() {
      return entries.size;
    },
    async find(id) {
      const before = changes.version();
      if (before === null) {
        // Nothing kept before may be trusted again, even should the same version come back.
        if (entries.size > 0) entries = new Map();
        keptAt = null;
        return read(id);
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
      if (account && changes.version() === before && keptAt === before) {
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
        entries.set(id, account);
      }
      return account;
    },
  };
}
