import { loadConfig } from '../config.js';
import { createDatabase, type DatabaseHandle } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { systemClock } from '../lib/clock.js';
import { createIdGenerator } from '../lib/ids.js';
import type { AccountsDeps } from '../modules/accounts/accounts.service.js';

/**
 * Runs a command against DATABASE_URL: migrates first (a no-op when up to date), so a command on a
 * fresh database works, and always closes the connection.
 */
export async function withDatabase<T>(
  body: (database: DatabaseHandle, deps: AccountsDeps) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  const database = createDatabase(config.database);
  try {
    await migrateToLatest(database);
    return await body(database, { clock: systemClock, newId: createIdGenerator(systemClock) });
  } finally {
    await database.destroy();
  }
}
