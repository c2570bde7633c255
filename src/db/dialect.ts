import { type Kysely, PostgresAdapter } from 'kysely';

/** Whether a handle (or a transaction) talks to PostgreSQL: row locks exist only there. */
// biome-ignore lint/suspicious/noExplicitAny: any database type; only the adapter is read.
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
