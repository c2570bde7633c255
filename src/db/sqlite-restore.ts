import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { partialFileFor } from './sqlite-backup.js';
import {
  removeSideFiles,
  SqliteFileError,
  type SqliteFileSummary,
  summariseFirmwatchDatabase,
  syncDirectoryOf,
  syncToDisk,
} from './sqlite-file.js';

export interface RestoreOptions {
  /** Replace a database already at the target path. */
  force?: boolean;
}

/** Checks that `backupPath` is a whole firmwatch database this code can run on, and summarises it. */
export function verifySqliteBackup(backupPath: string): SqliteFileSummary {
  const path = resolve(backupPath);
  if (!existsSync(path))
    throw new SqliteFileError('backup_not_found', `--from: no file at ${path}`);
  // Copying the file alone would leave behind whatever its WAL still holds.
  if (existsSync(`${path}-wal`)) {
    throw new SqliteFileError(
      'backup_has_wal',
      `${path}-wal exists beside the backup, so the file alone is not the whole database; restore a file made by \`firmwatch db backup\``,
    );
  }
  let connection: SqliteDatabase.Database;
  try {
    connection = new SqliteDatabase(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new SqliteFileError(
      'not_a_firmwatch_database',
      `${path} cannot be opened as a SQLite database (${error instanceof Error ? error.message : error})`,
    );
  }
  try {
    return summariseFirmwatchDatabase(connection, path);
  } finally {
    connection.close();
  }
}

/**
 * Refuses when any other connection has the database open. Leaving WAL mode needs every other
 * connection gone: a running service (its writer and its checkpointer thread each keep one open,
 * idle or not) makes it fail at once with SQLITE_BUSY. A plain write-lock attempt would not do:
 * an idle service holds no write lock, yet would go on writing to the file it has open, which the
 * restore replaces under it.
 */
function assertNotInUse(target: string): void {
  const connection = new SqliteDatabase(target, { fileMustExist: true });
  try {
    connection.pragma('busy_timeout = 0');
    const mode = connection.pragma('journal_mode = DELETE', { simple: true });
    if (mode !== 'delete') throw new Error(`journal mode stayed ${mode}`);
  } catch (error) {
    throw new SqliteFileError(
      'database_in_use',
      `${target} is in use (${error instanceof Error ? error.message : error}); stop every firmwatch serve and worker process on it, then restore`,
    );
  } finally {
    connection.close();
  }
}

/**
 * Puts a verified backup in place of the database at `targetPath`, which no process may have
 * open. The copy is made under a temporary name beside the target and renamed over it, so the
 * target is at every moment either the old database or the whole backup; the target's WAL and
 * shared memory go first, so they are not replayed into the restored file.
 */
export function restoreSqliteDatabase(
  backupPath: string,
  targetPath: string,
  options: RestoreOptions = {},
): { backup: SqliteFileSummary; target: string; replaced: boolean } {
  const backup = verifySqliteBackup(backupPath);
  const target = resolve(targetPath);
  if (target === backup.path) {
    throw new SqliteFileError('invalid_target', '--from names the database DATABASE_URL points to');
  }
  const replaced = existsSync(target);
  if (replaced) {
    if (!options.force) {
      throw new SqliteFileError(
        'database_exists',
        `a database already exists at ${target}; back it up (\`firmwatch db backup\`), stop the service, and add --force to replace it`,
      );
    }
    assertNotInUse(target);
  }
  mkdirSync(dirname(target), { recursive: true });
  const partial = partialFileFor(target);
  try {
    copyFileSync(backup.path, partial);
    syncToDisk(partial);
    removeSideFiles(target);
    renameSync(partial, target);
    syncDirectoryOf(target);
  } finally {
    rmSync(partial, { force: true });
  }
  return { backup, target, replaced };
}
