import { Migrator } from 'kysely';
import type { DatabaseHandle } from './database.js';
import { migrations } from './migrations/index.js';

export interface MigrationOutcome {
  applied: string[];
  current: string | null;
}

export class MigrationError extends Error {
  constructor(
    readonly migration: string | undefined,
    cause: unknown,
  ) {
    super(
      `migration ${migration ?? '(unknown)'} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = 'MigrationError';
  }
}

/**
 * Applies every pending migration. Safe to run from several processes at once: Kysely holds a lock
 * (an advisory lock on PostgreSQL) while it migrates.
 */
export async function migrateToLatest(
  database: Pick<DatabaseHandle, 'db' | 'schema'>,
): Promise<MigrationOutcome> {
  const { error, results = [] } = await migratorOf(database).migrateToLatest();
  if (error) {
    const failed = results.find((r) => r.status === 'Error');
    throw new MigrationError(failed?.migrationName, error);
  }
  const names = Object.keys(migrations).sort();
  return {
    applied: results.filter((r) => r.status === 'Success').map((r) => r.migrationName),
    current: names.at(-1) ?? null,
  };
}

/**
 * How many migrations this database has had applied; 0 for one firmwatch has never used (an
 * empty SQLite file, a PostgreSQL database or schema without its tables). Creates nothing.
 */
export async function appliedMigrationCount(
  database: Pick<DatabaseHandle, 'db' | 'schema'>,
): Promise<number> {
  const known = await migratorOf(database).getMigrations();
  return known.filter((migration) => migration.executedAt !== undefined).length;
}

function migratorOf(database: Pick<DatabaseHandle, 'db' | 'schema'>): Migrator {
  return new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
    // Named explicitly: left unset, Kysely looks for its bookkeeping tables in every schema, and a
    // second deployment (or test) in another schema of the same database makes it skip creating them.
    ...(database.schema ? { migrationTableSchema: database.schema } : {}),
  });
}
