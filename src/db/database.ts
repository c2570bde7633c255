import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import {
  type DatabaseConfig,
  DEFAULT_POSTGRES_TIMEOUTS,
  type SqliteSynchronous,
} from './database-config.js';
import { groupCommit, type Transact, transactionPerWork } from './group-commit.js';
import { unitCapableDriver } from './postgres-driver.js';
import { sqliteConnections } from './prepared.js';
import type { Database } from './schema.js';
import { FALLBACK_AUTOCHECKPOINT_PAGES, startCheckpointer } from './sqlite-checkpointer.js';

export type Dialect = DatabaseConfig['dialect'];

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Runs a unit of writes atomically; request-path writes go through it (group commit on SQLite). */
  transact: Transact;
  /** PostgreSQL only: the schema the tables live in. */
  schema?: string;
  destroy(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL only: the schema every connection works in (isolated test schemas use this). */
  searchPath?: string;
  /** PostgreSQL only: pool size per process. */
  maxConnections?: number;
  /**
   * SQLite files only: checkpoint the WAL from a worker thread instead of inside commits (the
   * server does; short-lived CLI commands and tests need not).
   */
  checkpointInBackground?: { onError(error: Error): void };
  /**
   * PostgreSQL only: a connection that failed outside a query (PostgreSQL closed it: a timeout, a
   * restart). The next query on it fails and the pool replaces it; this only reports it.
   */
  onConnectionError?(error: Error): void;
}

// int8 (COUNT, SUM, bigint columns) arrives as a string from pg by default; the values this service
// stores stay far below 2^53, and a number keeps the stores identical on both dialects.
const INT8_OID = 20;
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * Kysely's SQLite driver prepares every statement anew; preparing took about 5 % of the CPU of a
 * sandbox POST /checks in profiles. The service issues a small, fixed set of statements, so the
 * prepared ones are kept (bounded, oldest dropped first).
 */
function withStatementCache(sqlite: SqliteDatabase.Database, max = 500) {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    get inTransaction() {
      return sqlite.inTransaction;
    },
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        statement = sqlite.prepare(sql);
        statements.set(sql, statement);
        if (statements.size > max) statements.delete(statements.keys().next().value as string);
      }
      return statement;
    },
  };
}

function openSqlite(path: string, synchronous: SqliteSynchronous): SqliteDatabase.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SqliteDatabase(path);
  // WAL lets readers proceed during a write. NORMAL (the default) survives a process crash; FULL
  // also an OS crash, at one fsync per commit (with group commit, per batch of requests).
  // busy_timeout waits out another process's write lock instead of failing with SQLITE_BUSY.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  return sqlite;
}

export function createDatabase(
  config: DatabaseConfig,
  options: DatabaseOptions = {},
): DatabaseHandle {
  if (config.dialect === 'sqlite') {
    const sqlite = openSqlite(config.path, config.synchronous ?? 'normal');
    const checkpointer =
      options.checkpointInBackground && config.path !== ':memory:'
        ? startCheckpointer(config.path, { onError: options.checkpointInBackground.onError })
        : undefined;
    if (checkpointer) sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    const statements = withStatementCache(sqlite);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
    sqliteConnections.set(db, statements);
    return {
      db,
      dialect: 'sqlite',
      transact: groupCommit(db, { statements }),
      async destroy() {
        // The checkpointer's connection closes first, so the writer's close is the last one and
        // folds the WAL into the database file.
        try {
          await checkpointer?.stop();
        } finally {
          await db.destroy();
        }
      },
    };
  }
  const timeouts = config.timeouts ?? DEFAULT_POSTGRES_TIMEOUTS;
  const pool = new pg.Pool({
    connectionString: config.url,
    max: options.maxConnections ?? 10,
    types: pgTypes,
    options: options.searchPath ? `-c search_path=${options.searchPath}` : undefined,
    // Sent when each connection starts, so they hold for every statement of the session.
    statement_timeout: timeouts.statementTimeoutMs,
    lock_timeout: timeouts.lockTimeoutMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
  });
  // Without a listener, an 'error' event is thrown: a process that resumes after PostgreSQL closed
  // its idle-in-transaction session would crash instead of failing that one unit of work.
  const onConnectionError = (error: Error) => options.onConnectionError?.(error);
  pool.on('error', onConnectionError);
  pool.on('connect', (client) => client.on('error', onConnectionError));
  const postgres = new PostgresDialect({ pool });
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => postgres.createAdapter(),
      createDriver: () => unitCapableDriver(pool),
      createIntrospector: (kysely) => postgres.createIntrospector(kysely),
      createQueryCompiler: () => postgres.createQueryCompiler(),
    },
  });
  return {
    db,
    dialect: 'postgres',
    transact: transactionPerWork(db),
    schema: options.searchPath ?? 'public',
    destroy: () => db.destroy(),
  };
}
