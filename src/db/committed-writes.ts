// Tells when a write has become visible to other connections: after the commit of a transaction that wrote, or
// after a write run outside any transaction. A Kysely dialect wrapper, so every write of the process is seen
// whichever code makes it; the response cache's generation is bumped here (src/graphql/response-cache.ts).
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';

const WRITE = /^\s*(insert|update|delete|replace|with\b[\s\S]*\b(insert|update|delete)\b)/i;

export function notifyCommittedWrites(dialect: Dialect, onWrite: () => Promise<void> | void): Dialect {
  const inTransaction = new WeakMap<DatabaseConnection, { wrote: boolean }>();
  const watched = new WeakMap<DatabaseConnection, DatabaseConnection>();

  function watch(connection: DatabaseConnection): DatabaseConnection {
    const known = watched.get(connection);
    if (known) return known;
    const wrapper: DatabaseConnection = {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        const result = await connection.executeQuery<R>(query);
        if (WRITE.test(query.sql)) {
          const transaction = inTransaction.get(wrapper);
          if (transaction) transaction.wrote = true;
          else await onWrite();
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
          inTransaction.set(wrapper, { wrote: false });
        },
        async commitTransaction(wrapper: DatabaseConnection) {
          await driver.commitTransaction(inner.get(wrapper) ?? wrapper);
          const transaction = inTransaction.get(wrapper);
          inTransaction.delete(wrapper);
          if (transaction?.wrote) await onWrite();
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
