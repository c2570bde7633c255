import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import type { DatabaseHandle } from '../src/db/database.js';

/**
 * Statements and rows written by the servers of this process, counted in the database drivers
 * (better-sqlite3's statements, pg's client), so the figures hold whatever the service's code
 * looks like. Counting costs a function call per statement, well under a microsecond per check.
 */
const counted = { statements: 0, pgRows: 0 };
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  const probe = new SqliteDatabase(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  probe.close();
  for (const name of ['run', 'get', 'all', 'iterate']) {
    const original = statement[name] as (...args: unknown[]) => unknown;
    statement[name] = function (this: unknown, ...args: unknown[]) {
      counted.statements += 1;
      return original.apply(this, args);
    };
  }
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = client.query;
  client.query = function (this: unknown, ...args: unknown[]) {
    counted.statements += 1;
    const result = query.apply(this, args);
    // Kysely's driver uses the promise form; rowCount is the rows an INSERT, UPDATE or DELETE
    // changed, RETURNING or not.
    if (result instanceof Promise) {
      return result.then((r: { command?: string; rowCount?: number | null }) => {
        if (r && /^(INSERT|UPDATE|DELETE|MERGE)$/.test(r.command ?? '')) {
          counted.pgRows += r.rowCount ?? 0;
        } else if (r && 'rows' in r) {
          // A unit's deferred writes sent as one statement answer how many rows they wrote.
          const written = (r.rows as Array<{ written?: number }> | undefined)?.[0]?.written;
          if (typeof written === 'number') counted.pgRows += written;
        }
        return r;
      });
    }
    return result;
  };
}

export interface DatabaseWork {
  statements: number;
  rowsWritten: number;
}

/** What `database` has done so far; subtract two readings to get what happened in between. */
export type DatabaseWorkMeter = () => Promise<DatabaseWork>;

/**
 * A meter of statements and rows written. SQLite's rows come from `total_changes()` of the
 * server's one connection (rows inserted, updated or deleted, triggers included); PostgreSQL's
 * from each result's row count. The reading itself is not counted. The drivers are instrumented
 * on the first call, statements already prepared included (the methods are the prototype's).
 */
export function databaseWorkMeter(database: DatabaseHandle): DatabaseWorkMeter {
  install();
  return async () => {
    const statements = counted.statements;
    if (database.dialect === 'postgres') return { statements, rowsWritten: counted.pgRows };
    const { rows } = await sql<{ n: number }>`select total_changes() as n`.execute(database.db);
    counted.statements -= 1;
    return { statements, rowsWritten: Number(rows[0]?.n ?? 0) };
  };
}

/** Per request between two readings. */
export function perRequest(before: DatabaseWork, after: DatabaseWork, requests: number) {
  const n = Math.max(1, requests);
  return {
    statements: (after.statements - before.statements) / n,
    rowsWritten: (after.rowsWritten - before.rowsWritten) / n,
  };
}
