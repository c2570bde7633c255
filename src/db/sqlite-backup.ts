import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  removeSideFiles,
  SIDE_FILES,
  SqliteFileError,
  type SqliteFileSummary,
  summariseFirmwatchDatabase,
  syncDirectoryOf,
  syncToDisk,
} from './sqlite-file.js';

export interface BackupOptions {
  /** Replace a file already at the destination. */
  force?: boolean;
}

/**
 * Pages per backup step: all of them. SQLite's backup API restarts a page-by-page copy whenever
 * another connection writes to the source between two steps, and a running service under
 * steady load writes every few milliseconds, so a stepwise copy may never finish. One step reads
 * the whole database inside one read transaction: on a WAL database that is one consistent
 * snapshot, and it never blocks the service's writer (the checkpointer only waits to reuse the
 * WAL frames this reader still sees).
 */
const ALL_PAGES = 0x7fffffff;

/** A name beside the destination, so the final rename stays on one filesystem (and so atomic). */
export function partialFileFor(destination: string): string {
  return join(
    dirname(destination),
    `.${basename(destination)}.${process.pid}-${randomBytes(4).toString('hex')}.partial`,
  );
}

function occupied(path: string): boolean {
  return existsSync(path) || SIDE_FILES.some((suffix) => existsSync(`${path}${suffix}`));
}

/**
 * Copies the firmwatch SQLite database at `sourcePath` to `destination` while the service may be
 * writing to it, through a connection of its own. The copy is made under a temporary name beside
 * the destination, turned into a single self-contained file (rollback journal, no WAL), checked,
 * flushed to disk and only then given its final name: a crash leaves at most a `.partial` file,
 * never a half backup under the name asked for.
 */
export async function backupSqliteDatabase(
  sourcePath: string,
  destinationPath: string,
  options: BackupOptions = {},
): Promise<SqliteFileSummary> {
  const source = resolve(sourcePath);
  const destination = resolve(destinationPath);
  if (destination === source) {
    throw new SqliteFileError('invalid_destination', '--to names the database itself');
  }
  if (!options.force && occupied(destination)) {
    throw new SqliteFileError(
      'backup_exists',
      `${destination} already exists; choose another --to, or add --force to replace it`,
    );
  }
  if (!existsSync(dirname(destination))) {
    throw new SqliteFileError(
      'invalid_destination',
      `--to: the folder ${dirname(destination)} does not exist`,
    );
  }
  if (!existsSync(source)) {
    throw new SqliteFileError(
      'database_not_found',
      `no firmwatch database at ${source}; check DATABASE_URL`,
    );
  }

  const partial = partialFileFor(destination);
  try {
    const connection = new SqliteDatabase(source, { fileMustExist: true });
    try {
      connection.pragma('busy_timeout = 5000');
      await connection.backup(partial, { progress: () => ALL_PAGES });
    } finally {
      connection.close();
    }
    const copy = new SqliteDatabase(partial, { fileMustExist: true });
    let summary: SqliteFileSummary;
    try {
      // The copied header says WAL; a backup is one file to move about, so it gets a rollback journal.
      copy.pragma('journal_mode = DELETE');
      summary = summariseFirmwatchDatabase(copy, partial, `the copy of ${source}`);
    } finally {
      copy.close();
    }
    // It holds what the database holds (key hashes, signing secrets): no wider access than it.
    chmodSync(partial, statSync(source).mode & 0o777);
    syncToDisk(partial);
    placeFile(partial, destination, options.force === true);
    return { ...summary, path: destination };
  } finally {
    rmSync(partial, { force: true });
    removeSideFiles(partial);
  }
}

/**
 * Gives `partial` the name `destination`. Without `force` by a hard link, which fails if the name
 * was taken since the first check (no overwrite, even in a race); with it by a rename over the
 * old file, after removing the old file's WAL and shared memory so they are not replayed into
 * the new one.
 */
function placeFile(partial: string, destination: string, force: boolean): void {
  if (force) {
    removeSideFiles(destination);
    renameSync(partial, destination);
  } else {
    try {
      linkSync(partial, destination);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new SqliteFileError(
          'backup_exists',
          `${destination} already exists; choose another --to, or add --force to replace it`,
        );
      }
      // A filesystem without hard links: the check before the copy is the guard left.
      if (occupied(destination)) throw error;
      renameSync(partial, destination);
    }
  }
  syncDirectoryOf(destination);
}
