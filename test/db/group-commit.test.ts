import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { insertWorkspace } from '../../src/modules/accounts/workspaces.store.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';

const workspace = (id: string) => ({ id, name: id, created_at: '2026-11-21T12:00:00.000Z' });

async function workspaceIds(database: TestDatabase): Promise<string[]> {
  const rows = await database.db.selectFrom('workspaces').select('id').orderBy('id').execute();
  return rows.map((row) => row.id);
}

describe.each(DIALECTS)('transact [%s]', (dialect) => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.cleanup();
    database = undefined;
  });

  it('concurrent units all commit and each resolves with its own value', async () => {
    database = await createTestDatabase(dialect);
    const { transact } = database;
    const ids = Array.from({ length: 10 }, (_, i) => `ws_${i}`);
    const results = await Promise.all(
      ids.map((id, i) =>
        transact(async (trx) => {
          await insertWorkspace(trx, workspace(id));
          return { id, i };
        }),
      ),
    );
    expect(results).toEqual(ids.map((id, i) => ({ id, i })));
    expect(await workspaceIds(database)).toEqual(ids);
  });

  it('a throwing unit fails alone, with its own error, and its writes are undone', async () => {
    database = await createTestDatabase(dialect);
    const { transact } = database;
    const failure = new Error('unit 2 failed');
    const outcomes = await Promise.allSettled(
      [0, 1, 2, 3, 4].map((i) =>
        transact(async (trx) => {
          await insertWorkspace(trx, workspace(`ws_${i}`));
          if (i === 2) throw failure;
          return i * 10;
        }),
      ),
    );
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 0 },
      { status: 'fulfilled', value: 10 },
      { status: 'rejected', reason: failure },
      { status: 'fulfilled', value: 30 },
      { status: 'fulfilled', value: 40 },
    ]);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBe(failure);
    expect(await workspaceIds(database)).toEqual(['ws_0', 'ws_1', 'ws_3', 'ws_4']);
  });

  it("a unit's failing statement rolls back that unit's earlier writes only", async () => {
    database = await createTestDatabase(dialect);
    const { transact } = database;
    await insertWorkspace(database.db, workspace('ws_taken'));
    const outcomes = await Promise.allSettled([
      transact((trx) => insertWorkspace(trx, workspace('ws_a'))),
      transact(async (trx) => {
        await insertWorkspace(trx, workspace('ws_doomed'));
        await insertWorkspace(trx, workspace('ws_taken')); // duplicate primary key
      }),
      transact((trx) => insertWorkspace(trx, workspace('ws_b'))),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await workspaceIds(database)).toEqual(['ws_a', 'ws_b', 'ws_taken']);
  });
});

describe('group commit on SQLite', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.cleanup();
    database = undefined;
  });

  it('units queued in one turn share a transaction; after a failure the others run again', async () => {
    database = await createTestDatabase('sqlite');
    const { transact } = database;
    const runs = Array.from({ length: 20 }, () => 0);
    const outcomes = await Promise.allSettled(
      runs.map((_, i) =>
        transact(async (trx) => {
          runs[i] = (runs[i] as number) + 1;
          await insertWorkspace(trx, workspace(`ws_${String(i).padStart(2, '0')}`));
          if (i === 19) throw new Error('last unit fails');
        }),
      ),
    );
    // Twice for 0..18: the shared run was rolled back by unit 19, then they ran in savepoints.
    expect(runs).toEqual([...Array.from({ length: 19 }, () => 2), 1]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(19);
    expect((outcomes[19] as PromiseRejectedResult).reason).toEqual(new Error('last unit fails'));
    expect(await workspaceIds(database)).toHaveLength(19);
  });

  it('a unit that fails when run again in its savepoint is undone alone', async () => {
    database = await createTestDatabase('sqlite');
    const { transact } = database;
    const first = new Error('first');
    const second = new Error('second');
    const outcomes = await Promise.allSettled(
      [0, 1, 2, 3].map((i) =>
        transact(async (trx) => {
          await insertWorkspace(trx, workspace(`ws_${i}`));
          if (i === 1) throw first;
          if (i === 2) throw second; // reached only in the savepoint run
          return i;
        }),
      ),
    );
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 0 },
      { status: 'rejected', reason: first },
      { status: 'rejected', reason: second },
      { status: 'fulfilled', value: 3 },
    ]);
    expect(await workspaceIds(database)).toEqual(['ws_0', 'ws_3']);
  });

  it('no unit resolves before the shared COMMIT is visible to another connection', async () => {
    database = await createTestDatabase('sqlite');
    const { transact } = database;
    const { path } = parseDatabaseUrl(database.url) as { path: string };
    const reader = new SqliteDatabase(path, { readonly: true, fileMustExist: true });
    try {
      const count = reader.prepare<[], { n: number }>('select count(*) as n from workspaces');
      const seenInside: number[] = [];
      const unit = (id: string) =>
        transact(async (trx) => {
          await insertWorkspace(trx, workspace(id));
          seenInside.push(count.get()?.n as number);
        }).then(() => count.get()?.n);
      // Unit 1 finishes its work before unit 2 runs; it must still wait for the COMMIT.
      const seenAtResolve = await Promise.all([unit('ws_1'), unit('ws_2'), unit('ws_3')]);
      expect(seenInside).toEqual([0, 0, 0]);
      expect(seenAtResolve).toEqual([3, 3, 3]);
    } finally {
      reader.close();
    }
  });

  it('if the COMMIT fails, every unit of that transaction fails and nothing is written', async () => {
    database = await createTestDatabase('sqlite');
    const { transact } = database;
    const outcomes = await Promise.allSettled([
      transact((trx) => insertWorkspace(trx, workspace('ws_a'))),
      transact(async (trx) => {
        // Deferred, the foreign key is checked only by COMMIT, outside any unit.
        await sql`pragma defer_foreign_keys = on`.execute(trx);
        await trx
          .insertInto('api_keys')
          .values({
            id: 'key_orphan',
            workspace_id: 'ws_missing',
            environment: 'sandbox',
            name: null,
            key_hash: 'hash',
            display_prefix: 'fw_test_',
            scopes: 'checks:write',
            created_at: '2026-11-21T12:00:00.000Z',
          })
          .execute();
      }),
      transact((trx) => insertWorkspace(trx, workspace('ws_b'))),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const outcome of outcomes) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({
        code: 'SQLITE_CONSTRAINT_FOREIGNKEY',
      });
    }
    expect(await workspaceIds(database)).toEqual([]);
    const keys = await database.db.selectFrom('api_keys').select('id').execute();
    expect(keys).toEqual([]);
    // The queue is not stuck: the next transaction commits.
    await expect(transact((trx) => insertWorkspace(trx, workspace('ws_c')))).resolves.toBe(
      undefined,
    );
    expect(await workspaceIds(database)).toEqual(['ws_c']);
  });

  it('a unit that throws a non-Error value rejects with that very value', async () => {
    database = await createTestDatabase('sqlite');
    const { transact } = database;
    const thrown = { reason: 'not an Error' };
    const outcomes = await Promise.allSettled([
      transact((trx) => insertWorkspace(trx, workspace('ws_a'))),
      transact(async (trx) => {
        await insertWorkspace(trx, workspace('ws_b'));
        throw thrown;
      }),
      transact(async () => {
        throw 'a string';
      }),
    ]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: undefined });
    expect((outcomes[1] as PromiseRejectedResult).reason).toBe(thrown);
    expect(outcomes[2]).toEqual({ status: 'rejected', reason: 'a string' });
    expect(await workspaceIds(database)).toEqual(['ws_a']);
  });

  // A statement that makes SQLite end the transaction itself (OR ROLLBACK here; also SQLITE_FULL,
  // IOERR, INTERRUPT) must not make the final ROLLBACK fail and take every unit of the batch down.
  it('a unit whose statement rolls the whole transaction back still fails alone', async () => {
    database = await createTestDatabase('sqlite');
    const { transact } = database;
    await insertWorkspace(database.db, workspace('ws_taken'));
    const outcomes = await Promise.allSettled([
      transact((trx) => insertWorkspace(trx, workspace('ws_a'))),
      transact(async (trx) => {
        await sql`insert or rollback into workspaces (id, name, created_at)
          values ('ws_taken', 'again', '2026-11-21T12:00:00.000Z')`.execute(trx);
      }),
      transact((trx) => insertWorkspace(trx, workspace('ws_b'))),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({
      code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
    });
    expect(await workspaceIds(database)).toEqual(['ws_a', 'ws_b', 'ws_taken']);
  });
});
