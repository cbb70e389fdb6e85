// Tells when a write has become visible to other connections: after the commit of a transaction that wrote, or
// after a write run outside any transaction. A Kysely dialect wrapper, so every write of the process is seen
// whichever code makes it; the response cache's generation is bumped here (src/graphql/server/response-cache.ts), and live
// queries are invalidated by what was written (src/db/written-rows.ts, src/graphql/live/live-keys.ts).
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import { MAX_ROWS_PER_STATEMENT, type WrittenRows, writtenRows } from './written-rows.js';

const WRITE = /^\s*(insert|update|delete|replace|with\b[\s\S]*\b(insert|update|delete)\b)/i;

/** A transaction keeps what its statements wrote up to this many entries; past it, each table is summed up. */
const MAX_WRITES_PER_TRANSACTION = MAX_ROWS_PER_STATEMENT;

/** Many writes, summed up by table, kind and account (the column `account_id`). */
function summedWrites(writes: WrittenRows[]): WrittenRows[] {
  const groups = new Map<string, { table: string | null; kind: WrittenRows['kind']; accounts: Set<unknown> }>();
  for (const { table, kind, rows } of writes) {
    const id = `${table}|${kind}`;
    const group = groups.get(id) ?? { table, kind, accounts: new Set<unknown>() };
    groups.set(id, group);
    for (const row of rows) group.accounts.add(row.account_id);
  }
  return [...groups.values()].map(({ table, kind, accounts }) => ({
    table,
    kind,
    rows: [...accounts].map((account) => (account === undefined ? {} : { account_id: account })),
  }));
}

export function notifyCommittedWrites(
  dialect: Dialect,
  onWrite: (writes: WrittenRows[]) => Promise<void> | void,
): Dialect {
  const inTransaction = new WeakMap<DatabaseConnection, { wrote: boolean; writes: WrittenRows[] }>();
  const watched = new WeakMap<DatabaseConnection, DatabaseConnection>();

  function watch(connection: DatabaseConnection): DatabaseConnection {
    const known = watched.get(connection);
    if (known) return known;
    const wrapper: DatabaseConnection = {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        const result = await connection.executeQuery<R>(query);
        if (WRITE.test(query.sql)) {
          const written = writtenRows(query.query, result.rows);
          const transaction = inTransaction.get(wrapper);
          if (transaction) {
            transaction.wrote = true;
            transaction.writes.push(written);
            if (transaction.writes.length > MAX_WRITES_PER_TRANSACTION) {
              transaction.writes = summedWrites(transaction.writes);
            }
          } else await onWrite([written]);
        }
        return result;
      },
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    };
    watched.set(connection, wrapper);
    return wrapper;
  }

  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver(): Driver {
      const driver = dialect.createDriver();
      // The wrapper is what Kysely holds; the driver gets the connection it made.
      const inner = new WeakMap<DatabaseConnection, DatabaseConnection>();
      return {
        init: () => driver.init(),
        async acquireConnection() {
          const connection = await driver.acquireConnection();
          const wrapper = watch(connection);
          inner.set(wrapper, connection);
          return wrapper;
        },
        async beginTransaction(wrapper: DatabaseConnection, settings: TransactionSettings) {
          await driver.beginTransaction(inner.get(wrapper) ?? wrapper, settings);
          inTransaction.set(wrapper, { wrote: false, writes: [] });
        },
        async commitTransaction(wrapper: DatabaseConnection) {
          await driver.commitTransaction(inner.get(wrapper) ?? wrapper);
          const transaction = inTransaction.get(wrapper);
          inTransaction.delete(wrapper);
          if (transaction?.wrote) await onWrite(transaction.writes);
        },
        async rollbackTransaction(wrapper: DatabaseConnection) {
          inTransaction.delete(wrapper);
          await driver.rollbackTransaction(inner.get(wrapper) ?? wrapper);
        },
        releaseConnection: (wrapper: DatabaseConnection) => driver.releaseConnection(inner.get(wrapper) ?? wrapper),
        destroy: () => driver.destroy(),
        ...(driver.savepoint
          ? { savepoint: (c, name, compile) => driver.savepoint!(inner.get(c) ?? c, name, compile) }
          : {}),
        ...(driver.rollbackToSavepoint
          ? { rollbackToSavepoint: (c, name, compile) => driver.rollbackToSavepoint!(inner.get(c) ?? c, name, compile) }
          : {}),
        ...(driver.releaseSavepoint
          ? { releaseSavepoint: (c, name, compile) => driver.releaseSavepoint!(inner.get(c) ?? c, name, compile) }
          : {}),
      } satisfies Driver;
    },
  };
}
