import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import type { DatabaseConfig } from '../db/database-config.js';
import { backupSqliteDatabase } from '../db/sqlite-backup.js';
import type { SqliteFileSummary } from '../db/sqlite-file.js';
import { restoreSqliteDatabase } from '../db/sqlite-restore.js';
import { CliError, jsonOption, printResult, type RunCommand } from './output.js';

/**
 * The SQLite file DATABASE_URL names. Refused before any connection for PostgreSQL, whose own
 * tools do this better (and a backup command that connected first would fail on a bad URL with
 * a less useful message).
 */
function sqlitePath(database: DatabaseConfig, command: 'backup' | 'restore'): string {
  if (database.dialect === 'postgres') {
    throw new CliError(
      'unsupported_dialect',
      `db ${command} works on a SQLite DATABASE_URL only; for PostgreSQL use ${command === 'backup' ? 'pg_dump -Fc' : 'pg_restore'} (docs/operations.md, "Backups")`,
    );
  }
  if (database.path === ':memory:') {
    throw new CliError(
      'unsupported_dialect',
      `db ${command}: DATABASE_URL is an in-memory database, which no other process can reach`,
    );
  }
  return database.path;
}

function describeContents(summary: SqliteFileSummary): string {
  const counts = Object.entries(summary.counts)
    .map(([table, count]) => `${count} ${table}`)
    .join(', ');
  return `${summary.bytes} bytes, migration ${summary.migration}; ${counts}`;
}

export function addDbCommands(program: Command, run: RunCommand): void {
  const db = program
    .command('db')
    .description('Back up and restore a SQLite database (see docs/operations.md, "Backups").');

  db.command('backup')
    .description(
      "Copy DATABASE_URL's SQLite database to a file, consistently, while the service runs. The file holds API key hashes and webhook signing secrets: protect it like the database.",
    )
    .requiredOption('--to <file>', 'the backup file to write (its folder must exist)')
    .option('--force', 'replace --to if it already exists')
    .addOption(jsonOption())
    .action(async (options: { to: string; force?: boolean; json?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const source = sqlitePath(loadConfig().database, 'backup');
        const summary = await backupSqliteDatabase(source, options.to, {
          force: options.force === true,
        });
        printResult(
          output,
          { status: 'backed_up', source, backup: summary },
          `backed up ${source} to ${summary.path} (${describeContents(summary)})`,
        );
      });
    });

  db.command('restore')
    .description(
      "Replace DATABASE_URL's SQLite database with a backup, after checking that the backup is a whole firmwatch database this version can run. Stop every serve and worker process on the database first: a database in use is refused.",
    )
    .requiredOption('--from <file>', 'the backup file, as written by `db backup`')
    .option('--force', 'replace a database that already exists at DATABASE_URL')
    .addOption(jsonOption())
    .action(async (options: { from: string; force?: boolean; json?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const target = sqlitePath(loadConfig().database, 'restore');
        const restored = restoreSqliteDatabase(options.from, target, {
          force: options.force === true,
        });
        const pending = restored.backup.pending_migrations;
        printResult(
          output,
          { status: 'restored', ...restored },
          [
            `restored ${restored.backup.path} to ${restored.target}${restored.replaced ? ' (replacing the database there)' : ''} (${describeContents(restored.backup)})`,
            pending.length > 0
              ? `the service applies ${pending.length} newer migration(s) when it next starts`
              : '',
          ]
            .filter(Boolean)
            .join('\n'),
        );
      });
    });
}
