import {
  type Compilable,
  type CompiledQuery,
  type DialectAdapter,
  type Kysely,
  CompiledQuery as Query,
  type QueryResult,
  SqliteAdapter,
} from 'kysely';
import { deferrableQuery, type Refusal, wasQueued, writtenTable } from './deferred-writes.js';
import { isPostgres } from './dialect.js';
import { preparedQuery } from './fixed-statements.js';
import type { Database } from './schema.js';
import { inlineSqliteConstants } from './sqlite-literals.js';

/** The part of better-sqlite3 (behind the statement cache) a direct run needs. */
export interface SqliteStatements {
  prepare(sql: string): {
    reader: boolean;
    all(parameters: readonly unknown[]): unknown[];
    run(parameters: readonly unknown[]): { changes: number; lastInsertRowid: number | bigint };
  };
}

/**
 * Connections that a unit of work holds on SQLite (group-commit.ts registers each for the length of
 * its transaction). While it is held, nothing else can run on it, so a statement run straight on
 * better-sqlite3 is part of that transaction; skipping Kysely's executor there saves its promise
 * chain, which costs more than SQLite's own work for these statements.
 */
export const heldSqliteConnections = new WeakMap<Kysely<Database>, SqliteStatements>();

/** A SQLite connection's statements, and whether a transaction is open on it right now. */
export interface SqliteConnection extends SqliteStatements {
  readonly inTransaction: boolean;
}

/**
 * The one connection behind each SQLite database's Kysely instance (database.ts registers it). A
 * read on it while no transaction is open sees committed rows only, and better-sqlite3 runs it to
 * the end before anything else can start, so it may skip Kysely's executor and connection mutex:
 * it reads exactly what it would have read through them. While a transaction is open (a unit of
 * work, or a Kysely transaction between its statements), reads queue through Kysely as before.
 */
export const sqliteConnections = new WeakMap<Kysely<Database>, SqliteConnection>();

function runDirect<R>(
  statements: SqliteStatements,
  sql: string,
  parameters: readonly unknown[],
): QueryResult<R> {
  const statement = statements.prepare(sql);
  if (statement.reader) return { rows: statement.all(parameters) as R[] };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
}

/** Stands for a named parameter while a query is built; replaced by the value on every run. */
class Placeholder {
  constructor(readonly name: string) {}
}

/**
 * A placeholder stands for exactly one bound value. A list (`in p.ids`) would compile to `in ?`,
 * and an undefined value would be bound as NULL where Kysely leaves the column out: refuse both.
 */
function boundValue(values: object, name: string): unknown {
  const value = (values as Record<string, unknown>)[name];
  if (value === undefined || (typeof value === 'object' && value !== null)) {
    throw new TypeError(`prepared query parameter ${name} must be a single value, not ${value}`);
  }
  return value;
}

/** A query compiled once per dialect, its placeholders bound to new values on each run. */
function compileOnce<P extends object, R>(
  build: (db: Kysely<Database>, p: P) => Compilable<R>,
): (db: Kysely<Database>, values: P) => CompiledQuery<R> {
  const placeholders = new Proxy({} as P, { get: (_, name) => new Placeholder(String(name)) });
  const compiled = new WeakMap<DialectAdapter, CompiledQuery<R>>();
  return (db, values) => {
    const adapter = db.getExecutor().adapter;
    let query = compiled.get(adapter);
    if (!query) {
      query = build(db, placeholders).compile();
      if (adapter instanceof SqliteAdapter) {
        const { sql, parameters } = inlineSqliteConstants(
          query.sql,
          query.parameters,
          (parameter) => !(parameter instanceof Placeholder),
        );
        query = { ...query, sql, parameters };
      }
      compiled.set(adapter, query);
    }
    const parameters = query.parameters.map((parameter) =>
      parameter instanceof Placeholder ? boundValue(values, parameter.name) : parameter,
    );
    return Query.raw(query.sql, parameters) as CompiledQuery<R>;
  };
}

/**
 * Runs a bound query: on SQLite straight on the connection when that reads or writes exactly what
 * Kysely's executor would (see heldSqliteConnections and sqliteConnections), else through Kysely.
 */
function run<R>(db: Kysely<Database>, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  const held = heldSqliteConnections.get(db);
  if (held) return Promise.resolve(runDirect<R>(held, query.sql, query.parameters));
  const connection = sqliteConnections.get(db);
  if (connection && !connection.inTransaction) {
    const statement = connection.prepare(query.sql);
    if (statement.reader) return Promise.resolve({ rows: statement.all(query.parameters) as R[] });
  }
  return db.executeQuery(preparedQuery(query));
}

/**
 * A query built and compiled once per dialect, then run with new parameter values. Building and
 * compiling with Kysely costs 10 to 30 µs per statement, more than SQLite's own work for the small
 * statements of the request path, which runs several per request. The query is written with the
 * ordinary query builder, `p.name` standing for each value (typed as the value for the builder's
 * sake), so one definition serves SQLite and PostgreSQL alike.
 */
export function prepared<P extends object, R>(
  build: (db: Kysely<Database>, p: P) => Compilable<R>,
): (db: Kysely<Database>, values: P) => Promise<QueryResult<R>> {
  const bind = compileOnce(build);
  return async (db, values) => run(db, bind(db, values));
}

let deferrableCount = 0;

/**
 * A prepared write whose result the caller never reads: in a PostgreSQL unit of work it is queued
 * and sent with the unit's other deferred writes as one statement (deferred-writes.ts says what a
 * unit using them must keep to); anywhere else it runs at once. Given a `refusal`, it is a gate:
 * it must change exactly one row, or the unit fails with that error (built after the rollback on
 * PostgreSQL; at once, inside the transaction, where the write ran at once).
 */
export function deferrable<P extends object>(
  build: (db: Kysely<Database>, p: P) => Compilable<unknown>,
): (db: Kysely<Database>, values: P, refusal?: Refusal) => Promise<void> {
  const bind = compileOnce(build);
  const id = deferrableCount++;
  // The table, from the PostgreSQL statement's text (the same on every run).
  let table: { sql: string; name: string } | undefined;
  const tableOf = (sql: string) => {
    if (table?.sql !== sql) table = { sql, name: writtenTable(sql) };
    return table.name;
  };
  return async (db, values, refusal) => {
    const query = bind(db, values);
    const result = await run(
      db,
      isPostgres(db)
        ? deferrableQuery(query, { id, table: tableOf(query.sql), ...(refusal && { refusal }) })
        : query,
    );
    if (refusal && !wasQueued(result) && Number(result.numAffectedRows ?? 0) !== 1) {
      throw await refusal(db);
    }
  };
}
