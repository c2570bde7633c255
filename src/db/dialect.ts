import { type Kysely, PostgresAdapter } from 'kysely';

/** Whether a handle (or a transaction) talks to PostgreSQL: row locks exist only there. */
// biome-ignore lint/suspicious/noExplicitAny: any database type; only the adapter is read.
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * PostgreSQL's codes for a statement that gave way to another transaction: a lock or statement
 * timeout (`lock_not_available`, `query_canceled`), a deadlock, a serialization failure. Worth
 * another try soon; SQLite waits out its one writer instead (busy_timeout).
 */
const GAVE_WAY = new Set(['55P03', '57014', '40P01', '40001']);

export function gaveWayToAnotherTransaction(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : null;
  return typeof code === 'string' && GAVE_WAY.has(code);
}
