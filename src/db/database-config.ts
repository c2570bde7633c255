// The database's own settings: config.ts reads them from the environment (DATABASE_URL,
// SQLITE_SYNCHRONOUS, the PG_*_TIMEOUT_MS variables) and composes them, so the database layer
// never imports config.ts.

export type DatabaseConfig =
  | { dialect: 'sqlite'; url: string; path: string; synchronous?: SqliteSynchronous }
  | { dialect: 'postgres'; url: string; timeouts?: PostgresTimeouts };

/**
 * `full` syncs the WAL on every commit, so a commit survives an operating-system crash or power
 * loss; `normal` survives a crash of the process only (SQLITE_SYNCHRONOUS, default `normal`: `full`
 * cost 16 to 18 % of check throughput in `npm run bench`).
 */
export type SqliteSynchronous = 'full' | 'normal';

/**
 * Per-connection PostgreSQL timeouts (docs/monitoring.md). A process that stops mid-transaction
 * (a paused VM, a network cut) holds its locks until PostgreSQL ends the transaction; these bound
 * that, below the monitor lease, so other workers wait seconds rather than until it resumes.
 */
export interface PostgresTimeouts {
  statementTimeoutMs: number;
  lockTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
}

export const DEFAULT_POSTGRES_TIMEOUTS: PostgresTimeouts = {
  statementTimeoutMs: 30_000,
  lockTimeoutMs: 5_000,
  idleInTransactionTimeoutMs: 10_000,
};
