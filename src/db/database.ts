// Opens Kysely on better-sqlite3 or PostgreSQL, chosen by DATABASE_URL (docs/architecture.md).
import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { type Dialect as KyselyDialect, Kysely, type LogEvent, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { type AccountChanges, sqliteAccountChanges, unknownAccountChanges } from './account-changes.js';
import { notifyCommittedWrites } from './committed-writes.js';
import type { WrittenRows } from './written-rows.js';
import type { Database } from './types.js';
import { traceQuery } from '../core/tracing.js';
import { currentWorkPiece, type OwnWork, timedFor, timedWork } from '../core/request-context.js';

export type Dialect = 'sqlite' | 'postgres';

/** The default database's folder (docs/configuration.md), created when missing; any other folder must exist. */
export const DEFAULT_DATA_DIRECTORY = './data';

/** A missing folder in a `sqlite:` path is a typo, not a request for a new empty database. */
export class MissingDirectoryError extends Error {
  constructor(readonly directory: string) {
    super(`the folder ${directory} does not exist`);
  }
}

function ensureDirectoryOf(path: string): void {
  const directory = dirname(path);
  if (existsSync(directory)) return;
  if (resolve(directory) !== resolve(DEFAULT_DATA_DIRECTORY)) throw new MissingDirectoryError(directory);
  mkdirSync(directory, { recursive: true });
}

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Whether an account may have changed (the account cache's invalidation, src/db/account-changes.ts). */
  accountChanges: AccountChanges;
  /** PostgreSQL's connection pool now (docs/observability.md "Metrics"): SQLite has none. */
  pool?(): { open: number; idle: number; waiting: number };
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Called after every query, with its parameters; tests count queries and read their plans with it. */
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  /** Called after every query that succeeded (the database availability tracker listens). */
  onAnswer?: (sql: string, startedAt: number) => void;
  /** PostgreSQL's connect and pool-wait timeout, SQLite's busy timeout (default 3 s). */
  timeoutMs?: number;
  /** A span per SQL query within traced work (docs/observability.md "Traces"); only when tracing is on (Kysely's log hook costs). */
  traceQueries?: boolean;
  /** Told (and awaited) each time a write has become visible: the response cache's invalidation. */
  onCommittedWrite?: (writes: WrittenRows[]) => Promise<void> | void;
  /**
   * SQLite only: 'unknown' gives up its account-change version and works as on PostgreSQL (every credential read or
   * confirmed in the database: src/authentication.ts), so that tests on SQLite cover that path too.
   */
  accountChanges?: 'tracked' | 'unknown';
}

/** What Kysely's SQLite driver uses of a statement. */
type DriverStatement = Pick<SQLite.Statement, 'reader' | 'all' | 'run' | 'iterate'>;

/**
 * A reading statement that fetches rows as arrays (better-sqlite3's `raw` mode) and turns them into objects with a
 * mapper compiled for its columns: building each row object in C++ costs far more than one object literal of a
 * fixed shape in JS. The rows are the same objects, key for key (a repeated column name keeps its last value, as
 * better-sqlite3 does).
 */
function rowsAsArrays(statement: SQLite.Statement): DriverStatement {
  const columns = statement.columns().map((column) => column.name);
  const body = columns.map((name, index) => `${JSON.stringify(name)}: row[${index}]`).join(', ');
  const toObject = new Function('row', `return { ${body} };`) as (row: unknown[]) => Record<string, unknown>;
  statement.raw(true);
  return {
    reader: true,
    all: (...parameters: unknown[]) => timedWork(() => (statement.all(...parameters) as unknown[][]).map(toObject)),
    run: (...parameters: unknown[]) => timedWork(() => statement.run(...parameters)),
    *iterate(...parameters: unknown[]) {
      for (const row of statement.iterate(...parameters) as Iterable<unknown[]>) yield toObject(row);
    },
  } as DriverStatement;
}

/** A writing statement whose runs are timed as the running request's own work (better-sqlite3 is synchronous). */
function timedWrites(statement: SQLite.Statement): DriverStatement {
  return {
    reader: false,
    all: (...parameters: unknown[]) => timedWork(() => statement.all(...parameters)),
    run: (...parameters: unknown[]) => timedWork(() => statement.run(...parameters)),
    iterate: (...parameters: unknown[]) => statement.iterate(...parameters),
  } as DriverStatement;
}

/**
 * better-sqlite3 compiles a statement on every `prepare`; Kysely prepares each query it runs. Our queries come from a
 * small set of shapes (values are bound parameters), so compiled statements (with their row mappers) are kept and
 * reused, up to a bound.
 */
function withStatementCache(sqlite: SQLite.Database): SQLite.Database {
  const cache = new Map<string, DriverStatement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, property, receiver) {
      if (property !== 'prepare') return Reflect.get(target, property, receiver) as unknown;
      return (source: string) => {
        let statement = cache.get(source);
        if (!statement) {
          if (cache.size >= 500) cache.clear();
          const prepared = prepare(source);
          statement = prepared.reader ? rowsAsArrays(prepared) : timedWrites(prepared);
          cache.set(source, statement);
        }
        return statement;
      };
    },
  });
}

/** Statements named so far (a query's name is its text's hash); past the bound, queries go unnamed. */
const statementNames = new Map<string, string>();
const MAX_NAMED_STATEMENTS = 300;
/** Shapes with long `in (…)` lists would each be a statement of their own: those stay unnamed. */
const MAX_NAMED_PARAMETERS = 32;
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;

function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `k${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * A pg client that sends Kysely's queries as named statements: PostgreSQL parses and plans each shape once per
 * connection instead of on every query. Only plain reads and writes with few parameters are named, at most
 * MAX_NAMED_STATEMENTS shapes, so the statements kept per connection stay bounded.
 */
class PreparingClient extends pg.Client {
  /**
   * The pieces of work (src/security/work-budget.ts) of Kysely's queries sent on this connection, in order: pg runs a
   * connection's queries one at a time, so the first is the one whose answer is arriving. Its rows are parsed in the
   * socket's handler, outside the request's context: that time is timed as the request's own.
   */
  private readonly waiting: Array<OwnWork | undefined> = [];

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    const connection = (this as unknown as { connection: { attachListeners(stream: EventEmitter): void } }).connection;
    const attach = connection.attachListeners.bind(connection);
    // Called with the socket, or the TLS stream over it: either way the stream whose 'data' the answers arrive in.
    connection.attachListeners = (stream) => {
      const emit = stream.emit.bind(stream) as (event: string | symbol, ...rest: unknown[]) => boolean;
      stream.emit = (event: string | symbol, ...rest: unknown[]) => {
        const piece = event === 'data' ? this.waiting[0] : undefined;
        return piece ? timedFor(piece, () => emit(event, ...rest)) : emit(event, ...rest);
      };
      attach(stream);
    };
  }

  override query(...args: unknown[]): never {
    const base = super.query as unknown as (...rest: unknown[]) => never;
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values)) {
      const name = values.length <= MAX_NAMED_PARAMETERS && PREPARABLE.test(text) ? statementName(text) : undefined;
      const piece = currentWorkPiece();
      this.waiting.push(piece);
      // Until its answer arrives the piece waits for the database, not for the event loop: it takes no share of what
      // the loop spends meanwhile on others (src/security/work-budget.ts), as SQLite's statements are its own alone.
      const back = piece?.away?.();
      // Kysely's form (text, values) answers a promise; pg makes that one by assigning a new closure to the query's
      // `callback` after constructing it, which V8 records in an old-generation map: each result's rows then
      // survived every young collection (docs/decisions.md §18). The callback given at construction does not.
      return new Promise((resolve, reject) => {
        base.call(this, name ? { name, text, values } : { text, values }, (error: Error | null, result: unknown) => {
          this.waiting.shift();
          back?.();
          if (error) reject(error);
          else resolve(result);
        });
      }) as never;
    }
    return base.apply(this, args);
  }
}

/** Closing twice (a shutdown racing a test's teardown, say) closes once. */
function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= close());
}

export function openDatabase(url: string, options: OpenOptions = {}): DatabaseHandle {
  const { onQuery, onAnswer, timeoutMs = 3000, traceQueries = false, onCommittedWrite } = options;
  // Every committed write is told to the account changes (set below) and to the caller (the response cache).
  let changes: AccountChanges | null = null;
  const watched = (dialect: KyselyDialect) =>
    notifyCommittedWrites(dialect, (writes) => {
      changes?.localWrite();
      return onCommittedWrite?.(writes);
    });
  const system = url.startsWith('sqlite:') ? 'sqlite' : 'postgresql';
  const log =
    onQuery || onAnswer || traceQueries
      ? (event: LogEvent) => {
          onQuery?.(event.query.sql, event.query.parameters);
          if (event.level === 'query') onAnswer?.(event.query.sql, performance.now() - event.queryDurationMillis);
          if (traceQueries) traceQuery(system, event.query.sql, event.queryDurationMillis, event.level === 'error');
        }
      : undefined;
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path !== ':memory:') ensureDirectoryOf(path);
    const sqlite = new SQLite(path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`busy_timeout = ${Math.round(timeoutMs)}`);
    // SQLite's built-in lower() folds A–Z only; searches must fold 'É' as PostgreSQL does.
    sqlite.function('lower', { deterministic: true }, (value: unknown) =>
      typeof value === 'string' ? value.toLowerCase() : value,
    );
    const db = new Kysely<Database>({
      dialect: watched(new SqliteDialect({ database: withStatementCache(sqlite) })),
      log,
    });
    changes = options.accountChanges === 'unknown' ? unknownAccountChanges() : sqliteAccountChanges(sqlite);
    return { db, dialect: 'sqlite', accountChanges: changes, close: once(() => db.destroy()) };
  }
  // int8 (COUNT, SUM of integers) arrives as a string by default; our counts fit in a double.
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: timeoutMs,
    Client: PreparingClient,
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries in flight still report their own errors.
  });
  pool.on('connect', (client) => {
    // A client that loses its connection while checked out (between two queries of a transaction, say) emits
    // 'error' with no listener of the pool's attached: that would be an uncaught exception, ending the process.
    // Its queries fail on their own, and the pool discards it when it is released.
    client.on('error', () => undefined);
  });
  const db = new Kysely<Database>({ dialect: watched(new PostgresDialect({ pool })), log });
  return {
    db,
    dialect: 'postgres',
    accountChanges: unknownAccountChanges(),
    pool: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: once(() => db.destroy()),
  };
}

/** Whether the database answers a trivial query (for /readyz). */
export async function databaseReachable(db: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
