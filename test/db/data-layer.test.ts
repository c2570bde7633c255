import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { findWorkspaceById, insertWorkspace } from '../../src/modules/accounts/workspaces.store.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';

describe.each(DIALECTS)('data layer [%s]', (dialect) => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.cleanup();
    database = undefined;
  });

  it('applies every migration once, and a second run applies nothing', async () => {
    database = await createTestDatabase(dialect, { migrate: false });
    const first = await migrateToLatest(database);
    expect(first.applied).toEqual(Object.keys(migrations).sort());
    const second = await migrateToLatest(database);
    expect(second.applied).toEqual([]);
    expect(second.current).toBe(first.current);
  });

  it('concurrent migrators apply each migration exactly once', async () => {
    database = await createTestDatabase(dialect, { migrate: false });
    const outcomes = await Promise.all([
      migrateToLatest(database),
      migrateToLatest(database),
      migrateToLatest(database),
    ]);
    expect(outcomes.flatMap((o) => o.applied).sort()).toEqual(Object.keys(migrations).sort());
  });

  it('stores and reads a row with identical values on both dialects', async () => {
    database = await createTestDatabase(dialect);
    const row = {
      id: 'ws_01m8000000test0000000000000',
      name: 'Acme AP',
      created_at: '2026-11-21T12:00:00.000Z',
    };
    await insertWorkspace(database.db, row);
    expect(await findWorkspaceById(database.db, row.id)).toEqual(row);
    expect(await findWorkspaceById(database.db, 'ws_missing')).toBeUndefined();
  });

  it('the caller owns the transaction: a failure rolls back every write in it', async () => {
    database = await createTestDatabase(dialect);
    const db = database.db;
    const row = { id: 'ws_rollback', name: 'Rolled back', created_at: '2026-11-21T12:00:00.000Z' };
    await expect(
      db.transaction().execute(async (trx) => {
        await insertWorkspace(trx, row);
        // A second insert with the same primary key fails inside the same transaction.
        await insertWorkspace(trx, row);
      }),
    ).rejects.toThrow();
    expect(await findWorkspaceById(db, row.id)).toBeUndefined();
  });

  it('counts come back as numbers, not strings', async () => {
    database = await createTestDatabase(dialect);
    await insertWorkspace(database.db, {
      id: 'ws_a',
      name: 'A',
      created_at: '2026-11-21T12:00:00.000Z',
    });
    const result = await database.db
      .selectFrom('workspaces')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(result.n).toBe(1);
  });

  if (dialect === 'sqlite') {
    it('runs SQLite in WAL mode with foreign keys and a busy timeout', async () => {
      database = await createTestDatabase(dialect);
      const { db } = database;
      const pragma = async (name: string) =>
        Object.values((await sql.raw(`pragma ${name}`).execute(db)).rows[0] as object)[0];
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('foreign_keys')).toBe(1);
      expect(await pragma('busy_timeout')).toBe(5000);
      expect(await pragma('synchronous')).toBe(1);
    });
  }

  if (dialect === 'postgres') {
    it('each test database is an isolated schema', async () => {
      database = await createTestDatabase(dialect);
      const other = await createTestDatabase(dialect);
      try {
        await insertWorkspace(database.db, {
          id: 'ws_only_here',
          name: 'A',
          created_at: '2026-11-21T12:00:00.000Z',
        });
        expect(await findWorkspaceById(other.db, 'ws_only_here')).toBeUndefined();
        const schema = await sql<{ s: string }>`select current_schema() as s`.execute(database.db);
        expect(schema.rows[0]?.s).toBe(database.schema);
      } finally {
        await other.cleanup();
      }
    });
  }
});
