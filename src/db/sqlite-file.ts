import { closeSync, existsSync, fsyncSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { migrations } from './migrations/index.js';

/** A backup or restore that cannot go ahead; `code` is what the CLI reports. */
export class SqliteFileError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SqliteFileError';
  }
}

/** The tables whose row counts a backup or restore prints, so a person sees what it holds. */
const COUNTED_TABLES = [
  'workspaces',
  'api_keys',
  'checks',
  'monitors',
  'monitor_events',
  'webhook_deliveries',
  'users',
] as const;

export interface SqliteFileSummary {
  path: string;
  bytes: number;
  /** The last migration applied to it. */
  migration: string;
  /** This code's migrations it has not had yet; the service applies them when it starts on it. */
  pending_migrations: string[];
  counts: Record<(typeof COUNTED_TABLES)[number], number>;
}

/** The files SQLite keeps beside a database: a stale one next to a replaced file would be replayed into it. */
export const SIDE_FILES = ['-wal', '-shm', '-journal'] as const;

export function removeSideFiles(path: string): void {
  for (const suffix of SIDE_FILES) rmSync(`${path}${suffix}`, { force: true });
}

/** Flushes a file, or a directory's entries after a rename, to disk before we claim success. */
export function syncToDisk(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function syncDirectoryOf(path: string): void {
  syncToDisk(dirname(path));
}

/**
 * Checks that an open SQLite connection is a whole firmwatch database this code can run on, and
 * summarises it: integrity_check passes, the migrations table is there, and every migration it
 * has had is one this code knows (a database from a newer release would be run by code that does
 * not know its schema).
 */
export function summariseFirmwatchDatabase(
  sqlite: SqliteDatabase.Database,
  path: string,
  /** How errors name the database, when `path` is a temporary copy of it. */
  name = path,
): SqliteFileSummary {
  let problems: string[];
  try {
    problems = sqlite.prepare('PRAGMA integrity_check').pluck().all() as string[];
  } catch (error) {
    throw new SqliteFileError(
      'not_a_firmwatch_database',
      `${name} is not a SQLite database (${error instanceof Error ? error.message : error})`,
    );
  }
  if (problems.length !== 1 || problems[0] !== 'ok') {
    throw new SqliteFileError(
      'integrity_check_failed',
      `${name} fails PRAGMA integrity_check: ${problems.slice(0, 5).join('; ')}`,
    );
  }
  const hasMigrations = sqlite
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'")
    .get();
  const applied = hasMigrations
    ? (sqlite.prepare('SELECT name FROM kysely_migration ORDER BY name').pluck().all() as string[])
    : [];
  if (applied.length === 0) {
    throw new SqliteFileError(
      'not_a_firmwatch_database',
      `${name} is a SQLite database but not a firmwatch one (no migrations applied)`,
    );
  }
  const known = Object.keys(migrations).sort();
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new SqliteFileError(
      'database_too_new',
      `${name} has migrations this version of firmwatch does not know (${unknown.join(', ')}): use the release that made it`,
    );
  }
  const counts = Object.fromEntries(
    COUNTED_TABLES.map((table) => [
      table,
      sqlite.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number,
    ]),
  ) as SqliteFileSummary['counts'];
  return {
    path,
    bytes: existsSync(path) ? statSync(path).size : 0,
    migration: applied.at(-1) as string,
    pending_migrations: known.filter((name) => !applied.includes(name)),
    counts,
  };
}
