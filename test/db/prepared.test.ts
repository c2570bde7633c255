import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { heldSqliteConnections, prepared } from '../../src/db/prepared.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';

// Defined once for the module, so the same definitions serve SQLite and then PostgreSQL.
const insertNamed = prepared((db, p: { id: string; created_at: string }) =>
  db.insertInto('workspaces').values({ id: p.id, name: 'Prepared', created_at: p.created_at }),
);
const selectNamed = prepared((db, p: { first: string; second: string }) =>
  db
    .selectFrom('workspaces')
    .select(['id', 'name', 'created_at'])
    .where('id', 'in', [p.first, p.second])
    .where('name', '=', 'Prepared')
    .orderBy('id'),
);

const at = (day: number) => `2026-11-${String(day).padStart(2, '0')}T12:00:00.000Z`;

describe.each(DIALECTS)('prepared queries [%s]', (dialect) => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.cleanup();
    database = undefined;
  });

  it('an insert takes new values on every run and keeps its literal constant', async () => {
    database = await createTestDatabase(dialect);
    const { db } = database;
    for (const day of [1, 2, 3]) {
      const result = await insertNamed(db, { id: `ws_${day}`, created_at: at(day) });
      expect(result.numAffectedRows).toBe(1n);
    }
    const rows = await db.selectFrom('workspaces').selectAll().orderBy('id').execute();
    expect(rows).toEqual([
      { id: 'ws_1', name: 'Prepared', created_at: at(1) },
      { id: 'ws_2', name: 'Prepared', created_at: at(2) },
      { id: 'ws_3', name: 'Prepared', created_at: at(3) },
    ]);
  });

  it('refuses a value that is not one bound value (a list, an object, undefined)', async () => {
    database = await createTestDatabase(dialect);
    const { db } = database;
    for (const id of [['ws_1', 'ws_2'], { id: 'ws_1' }, undefined]) {
      await expect(insertNamed(db, { id: id as never, created_at: at(1) })).rejects.toThrow(
        /must be a single value/,
      );
    }
    expect(await db.selectFrom('workspaces').selectAll().execute()).toEqual([]);
  });

  it('a select returns the rows matching the values of each run', async () => {
    database = await createTestDatabase(dialect);
    const { db } = database;
    for (const day of [1, 2, 3, 4]) await insertNamed(db, { id: `ws_${day}`, created_at: at(day) });
    // Not matched by the constant name = 'Prepared'.
    await db
      .insertInto('workspaces')
      .values({ id: 'ws_5', name: 'Other', created_at: at(5) })
      .execute();

    const ids = async (first: string, second: string) =>
      (await selectNamed(db, { first, second })).rows.map((row) => row.id);
    expect(await ids('ws_1', 'ws_2')).toEqual(['ws_1', 'ws_2']);
    expect(await ids('ws_3', 'ws_4')).toEqual(['ws_3', 'ws_4']);
    expect(await ids('ws_4', 'ws_5')).toEqual(['ws_4']);
    expect(await ids('ws_9', 'ws_8')).toEqual([]);
  });

  it('runs inside a transaction, on its connection', async () => {
    database = await createTestDatabase(dialect);
    const { db } = database;
    const seen = await db.transaction().execute(async (trx) => {
      await insertNamed(trx, { id: 'ws_1', created_at: at(1) });
      await insertNamed(trx, { id: 'ws_2', created_at: at(2) });
      return (await selectNamed(trx, { first: 'ws_1', second: 'ws_2' })).rows;
    });
    expect(seen.map((row) => row.id)).toEqual(['ws_1', 'ws_2']);
    expect((await selectNamed(db, { first: 'ws_1', second: 'ws_2' })).rows).toEqual(seen);

    // Rolled back with the transaction: the insert did not run on some other connection.
    const failure = new Error('roll back');
    await expect(
      db.transaction().execute(async (trx) => {
        await insertNamed(trx, { id: 'ws_3', created_at: at(3) });
        expect((await selectNamed(trx, { first: 'ws_3', second: 'ws_3' })).rows).toHaveLength(1);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect((await selectNamed(db, { first: 'ws_3', second: 'ws_3' })).rows).toEqual([]);
  });
  it('inside units of work it joins the unit: committed with it, rolled back with it', async () => {
    database = await createTestDatabase(dialect);
    const { db, transact } = database;
    const failure = new Error('unit fails');
    const outcomes = await Promise.allSettled([
      transact(async (trx) => {
        // On SQLite the unit's connection is held, so the statement runs on it directly.
        expect(heldSqliteConnections.has(trx)).toBe(dialect === 'sqlite');
        await insertNamed(trx, { id: 'ws_1', created_at: at(1) });
        return (await selectNamed(trx, { first: 'ws_1', second: 'ws_1' })).rows.length;
      }),
      transact(async (trx) => {
        await insertNamed(trx, { id: 'ws_2', created_at: at(2) });
        throw failure;
      }),
    ]);
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: failure },
    ]);
    expect(
      (await selectNamed(db, { first: 'ws_1', second: 'ws_2' })).rows.map((r) => r.id),
    ).toEqual(['ws_1']);
    // Outside a unit, nothing is held: the statement goes through Kysely's executor.
    expect(heldSqliteConnections.has(db)).toBe(false);
  });
});

describe.skipIf(!DIALECTS.includes('postgres'))('prepared statements on PostgreSQL', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.cleanup();
    database = undefined;
  });

  it('are named, and prepared again when a migration changes their result under them', async () => {
    database = await createTestDatabase('postgres');
    const { db } = database;
    const selectAll = prepared((kysely, p: { id: string }) =>
      kysely.selectFrom('workspaces').selectAll().where('id', '=', p.id),
    );
    await insertNamed(db, { id: 'ws_1', created_at: at(1) });
    // Every pooled connection has the statement prepared with the old columns.
    const reads = () => Promise.all(Array.from({ length: 5 }, () => selectAll(db, { id: 'ws_1' })));
    await reads();
    // Named on the server: PostgreSQL keeps it parsed for the connection.
    const named = await db.connection().execute(async (conn) => {
      await selectAll(conn, { id: 'ws_1' });
      return (
        await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements
          where name like 'fw_%' and statement like '%"workspaces"%'`.execute(conn)
      ).rows[0]?.n;
    });
    expect(named).toBeGreaterThan(0);
    // What a newer process's migration does during a rolling restart.
    await sql`alter table workspaces add column nickname text`.execute(db);
    for (const { rows } of await reads()) {
      expect(rows).toEqual([{ id: 'ws_1', name: 'Prepared', created_at: at(1), nickname: null }]);
    }
  });
});

describe('prepared reads on SQLite outside transactions', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.cleanup();
    database = undefined;
  });
  const settledWithin = <T>(promise: Promise<T>, ms: number) =>
    Promise.race([
      promise.then((value) => ({ settled: true as const, value })),
      new Promise<{ settled: false }>((resolve) =>
        setTimeout(() => resolve({ settled: false }), ms),
      ),
    ]);

  it('run at once on the connection, even while Kysely holds it with no transaction open', async () => {
    database = await createTestDatabase('sqlite');
    const { db } = database;
    await insertNamed(db, { id: 'ws_1', created_at: at(1) });
    // Through Kysely's executor, this read would wait for the connection the callback holds.
    const read = await db
      .connection()
      .execute(() => settledWithin(selectNamed(db, { first: 'ws_1', second: 'ws_1' }), 2_000));
    expect(read.settled && read.value.rows.map((row) => row.id)).toEqual(['ws_1']);
  });

  it('wait while a transaction is open on the connection, and never see its uncommitted rows', async () => {
    database = await createTestDatabase('sqlite');
    const { db, transact } = database;
    let duringTransaction: Promise<string[]> | undefined;
    await transact(async (trx) => {
      await insertNamed(trx, { id: 'ws_1', created_at: at(1) });
      duringTransaction = selectNamed(db, { first: 'ws_1', second: 'ws_1' }).then((result) =>
        result.rows.map((row) => row.id),
      );
      expect((await settledWithin(duringTransaction, 50)).settled).toBe(false);
    });
    // Queued behind the transaction, the read ran after its commit.
    expect(await duringTransaction).toEqual(['ws_1']);
  });
});
