import { existsSync } from 'node:fs';
import { Option } from 'commander';
import { describeDatabase, loadConfig } from '../config.js';
import { createDatabase, type DatabaseHandle } from '../db/database.js';
import type { DatabaseConfig } from '../db/database-config.js';
import { appliedMigrationCount, migrateToLatest } from '../db/migrate.js';
import { systemClock } from '../lib/clock.js';
import { createIdGenerator } from '../lib/ids.js';
import type { AccountsDeps } from '../modules/accounts/accounts.service.js';
import { CliError } from './output.js';

export interface DatabaseCommandOptions {
  /** Create (and migrate) the database when there is none yet, instead of refusing. */
  create?: boolean;
}

export const createOption = () =>
  new Option(
    '--create',
    'create the database if it does not exist yet (without it, a missing database is an error)',
  );

/**
 * A database that is not there yet, named so that a person sees which one was looked for: a
 * mistyped DATABASE_URL, or a command run against the wrong one, must not quietly make a new,
 * empty database that nothing else reads (docs/decisions.md, "Data").
 */
function missingDatabase(config: DatabaseConfig): CliError {
  const where =
    config.dialect === 'sqlite'
      ? `no firmwatch database at ${describeDatabase(config)}`
      : `the PostgreSQL database ${describeDatabase(config)} has no firmwatch tables (no migrations applied)`;
  return new CliError(
    'database_not_found',
    `${where}; check DATABASE_URL, or run \`npx firmwatch migrate\` or add --create to create it`,
  );
}

/**
 * Runs a command against DATABASE_URL and always closes the connection. The database must exist
 * (a SQLite file, or a PostgreSQL database with at least one migration applied) unless
 * `--create` was given; pending migrations are then applied (a no-op when up to date).
 */
export async function withDatabase<T>(
  options: DatabaseCommandOptions,
  body: (database: DatabaseHandle, deps: AccountsDeps) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  // Checked before opening: opening a SQLite file that is not there creates it.
  if (
    !options.create &&
    config.database.dialect === 'sqlite' &&
    (config.database.path === ':memory:' || !existsSync(config.database.path))
  ) {
    throw missingDatabase(config.database);
  }
  const database = createDatabase(config.database);
  try {
    if (!options.create && (await appliedMigrationCount(database)) === 0) {
      throw missingDatabase(config.database);
    }
    await migrateToLatest(database);
    return await body(database, { clock: systemClock, newId: createIdGenerator(systemClock) });
  } finally {
    await database.destroy();
  }
}
