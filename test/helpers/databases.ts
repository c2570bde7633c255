import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { parseDatabaseUrl } from '../../src/config.js';
import { createDatabase, type DatabaseHandle, type Dialect } from '../../src/db/database.js';
import type { PostgresTimeouts } from '../../src/db/database-config.js';
import { migrateToLatest } from '../../src/db/migrate.js';

/** Every data-layer test runs once per dialect: SQLite always, PostgreSQL when configured. */
export const DIALECTS: Dialect[] = process.env.TEST_DATABASE_URL
  ? ['sqlite', 'postgres']
  : ['sqlite'];

export interface TestDatabase extends DatabaseHandle {
  /** A DATABASE_URL-style description, for spawning the CLI against the same database. */
  url: string;
  cleanup(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  return url;
}

/** One statement on its own connection to TEST_DATABASE_URL (DDL for isolated test databases). */
async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * An isolated, empty database: a fresh SQLite file, or a fresh PostgreSQL schema that is dropped
 * afterwards. Migrations are applied unless `migrate: false`.
 */
export async function createTestDatabase(
  dialect: Dialect,
  {
    migrate = true,
    timeouts,
  }: {
    migrate?: boolean;
    /** PostgreSQL only: the session timeouts (default: the service's defaults). */
    timeouts?: PostgresTimeouts;
  } = {},
): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'firmwatch-test-'));
    const url = `sqlite:${join(dir, 'test.db')}`;
    const handle = createDatabase(parseDatabaseUrl(url));
    if (migrate) await migrateToLatest(handle);
    return {
      ...handle,
      url,
      async cleanup() {
        await handle.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  const url = adminUrl();
  const schema = `test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create schema ${schema}`);
  const handle = createDatabase(
    { dialect: 'postgres', url, timeouts },
    { searchPath: schema, maxConnections: 5 },
  );
  if (migrate) await migrateToLatest(handle);
  return {
    ...handle,
    url,
    schema,
    async cleanup() {
      await handle.destroy();
      await adminQuery(`drop schema if exists ${schema} cascade`);
    },
  };
}

/**
 * A fresh PostgreSQL database (not just a schema) for tests that start server processes, which
 * connect with a plain DATABASE_URL. Dropped by the returned cleanup.
 */
export async function createScratchPostgresDatabase(): Promise<{
  url: string;
  drop(): Promise<void>;
}> {
  const name = `firmwatch_t_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => adminQuery(`drop database if exists ${name} with (force)`),
  };
}

/**
 * A migrated database that CLI processes can reach by DATABASE_URL: a fresh PostgreSQL database,
 * or the SQLite file at `sqlitePath` (a schema of the shared test database would not do).
 */
export async function createScratchDatabase(
  dialect: Dialect,
  sqlitePath: string,
): Promise<{ url: string; database: DatabaseHandle; cleanup(): Promise<void> }> {
  const scratch =
    dialect === 'postgres'
      ? await createScratchPostgresDatabase()
      : { url: `sqlite:${sqlitePath}`, drop: async () => {} };
  const database = createDatabase(parseDatabaseUrl(scratch.url));
  await migrateToLatest(database);
  return {
    url: scratch.url,
    database,
    async cleanup() {
      await database.destroy();
      await scratch.drop();
    },
  };
}
