import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deferrable } from '../../src/db/prepared.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';

// Defined once for the module, so the same definitions serve SQLite and then PostgreSQL.
const insertWorkspace = deferrable((db, p: { id: string; name: string }) =>
  db
    .insertInto('workspaces')
    .values({ id: p.id, name: p.name, created_at: '2026-11-27T00:00:00Z' }),
);
const renameWorkspace = deferrable((db, p: { id: string; name: string }) =>
  db.updateTable('workspaces').set({ name: p.name }).where('id', '=', p.id),
);
const insertBilling = deferrable((db, p: { workspace_id: string; balance: number }) =>
  db.insertInto('workspace_billing').values({
    workspace_id: p.workspace_id,
    paid_access: 1,
    credit_balance: p.balance,
    updated_at: '2026-11-27T00:00:00Z',
  }),
);

class Refused extends Error {}

/** The statements pg's clients send while `counting` is on (the driver, instrumented). */
const sent: string[] = [];
let counting = false;
const clientQuery = pg.Client.prototype.query;
beforeAll(() => {
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text;
    if (counting) sent.push(String(text));
    return (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof clientQuery;
});
afterAll(() => {
  pg.Client.prototype.query = clientQuery;
});

describe.each(DIALECTS)('deferred writes [%s]', (dialect) => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    counting = false;
    await database?.cleanup();
    database = undefined;
  });

  const names = async (db: TestDatabase['db']) =>
    (await db.selectFrom('workspaces').select(['id', 'name']).orderBy('id').execute()).map(
      (r) => `${r.id}:${r.name}`,
    );

  it('a unit of deferred writes commits them all, on PostgreSQL as one statement', async () => {
    database = await createTestDatabase(dialect);
    const { db, transact } = database;
    sent.length = 0;
    counting = true;
    await transact(async (trx) => {
      await insertWorkspace(trx, { id: 'ws_1', name: 'One' });
      await insertBilling(trx, { workspace_id: 'ws_1', balance: 3 });
      // A read is sent at once; it does not see the queued writes (the unit's contract).
      await trx.selectFrom('workspaces').select('id').execute();
    });
    counting = false;
    expect(await names(db)).toEqual(['ws_1:One']);
    if (dialect === 'postgres') {
      expect(sent).toHaveLength(2);
      expect(sent[0]).toMatch(/^select/);
      expect(sent[1]).toMatch(/^with w0 as \(insert into "workspaces"/);
      expect(sent).not.toContain('begin');
    }
  });

  it('a gate that changes no row refuses the whole unit with its own error, nothing written', async () => {
    database = await createTestDatabase(dialect);
    const { db, transact } = database;
    await transact((trx) => insertWorkspace(trx, { id: 'ws_1', name: 'One' }));
    const unit = transact(async (trx) => {
      await insertWorkspace(trx, { id: 'ws_2', name: 'Two' });
      await renameWorkspace(trx, { id: 'ws_9', name: 'Nobody' }, async (conn) => {
        // The refusal may read (on PostgreSQL after the rollback, on the unit's connection).
        const first = await conn
          .selectFrom('workspaces')
          .select('name')
          .where('id', '=', 'ws_1')
          .executeTakeFirstOrThrow();
        return new Refused(`no ws_9, only ${first.name}`);
      });
      await insertBilling(trx, { workspace_id: 'ws_1', balance: 3 });
    });
    await expect(unit).rejects.toThrow(Refused);
    await expect(unit).rejects.toThrow('no ws_9, only One');
    expect(await names(db)).toEqual(['ws_1:One']);
    expect(await db.selectFrom('workspace_billing').selectAll().execute()).toEqual([]);
  });

  it('two writes to one table both land, in order, and a later gate still undoes both', async () => {
    database = await createTestDatabase(dialect);
    const { db, transact } = database;
    sent.length = 0;
    counting = true;
    await transact(async (trx) => {
      await insertWorkspace(trx, { id: 'ws_1', name: 'One' });
      await renameWorkspace(trx, { id: 'ws_1', name: 'Renamed' }, () => new Refused('gone'));
    });
    counting = false;
    expect(await names(db)).toEqual(['ws_1:Renamed']);
    // On PostgreSQL the second write to the table goes in a second statement, in a transaction.
    if (dialect === 'postgres') expect(sent[0]).toBe('begin');

    const unit = transact(async (trx) => {
      await insertWorkspace(trx, { id: 'ws_2', name: 'Two' });
      await renameWorkspace(trx, { id: 'ws_2', name: 'Renamed' }, () => new Refused('gone'));
      await renameWorkspace(trx, { id: 'ws_9', name: 'Nobody' }, () => new Refused('no ws_9'));
    });
    await expect(unit).rejects.toThrow('no ws_9');
    expect(await names(db)).toEqual(['ws_1:Renamed']);
  });

  it('any other write first sends what is queued, so it sees every earlier write', async () => {
    database = await createTestDatabase(dialect);
    const { db, transact } = database;
    await transact(async (trx) => {
      await insertWorkspace(trx, { id: 'ws_1', name: 'One' });
      // A foreign key to the queued workspace: it must be there when this insert runs.
      await trx
        .insertInto('workspace_billing')
        .values({
          workspace_id: 'ws_1',
          paid_access: 0,
          credit_balance: 0,
          updated_at: '2026-11-27T00:00:00Z',
        })
        .execute();
      await renameWorkspace(trx, { id: 'ws_1', name: 'After' });
    });
    expect(await names(db)).toEqual(['ws_1:After']);
    expect(await db.selectFrom('workspace_billing').select('workspace_id').execute()).toEqual([
      { workspace_id: 'ws_1' },
    ]);
  });

  it('a unit that throws after deferring writes leaves nothing', async () => {
    database = await createTestDatabase(dialect);
    const { db, transact } = database;
    const unit = transact(async (trx) => {
      await insertWorkspace(trx, { id: 'ws_1', name: 'One' });
      await trx
        .insertInto('workspace_billing')
        .values({
          workspace_id: 'ws_1',
          paid_access: 0,
          credit_balance: 0,
          updated_at: '2026-11-27T00:00:00Z',
        })
        .execute();
      throw new Refused('changed my mind');
    });
    await expect(unit).rejects.toThrow('changed my mind');
    expect(await names(db)).toEqual([]);
  });

  it('outside a unit a deferrable write runs at once, and a gate refuses at once', async () => {
    database = await createTestDatabase(dialect);
    const { db } = database;
    await insertWorkspace(db, { id: 'ws_1', name: 'One' });
    expect(await names(db)).toEqual(['ws_1:One']);
    await expect(
      renameWorkspace(db, { id: 'ws_9', name: 'Nobody' }, () => new Refused('no ws_9')),
    ).rejects.toThrow('no ws_9');
  });

  it('refused units never wait for a connection: more refusals at once than the pool holds', async () => {
    database = await createTestDatabase(dialect);
    const { db, transact } = database;
    await transact((trx) => insertWorkspace(trx, { id: 'ws_1', name: 'One' }));
    // The test pool holds 5 connections; each refusal reads before its unit ends.
    const units = Array.from({ length: 20 }, (_, i) =>
      transact(async (trx) => {
        await insertWorkspace(trx, { id: `ws_x${i}`, name: 'X' });
        await renameWorkspace(trx, { id: 'ws_9', name: 'Nobody' }, async (conn) => {
          await conn.selectFrom('workspaces').select('id').execute();
          return new Refused(`refused ${i}`);
        });
      }),
    );
    const outcomes = await Promise.allSettled(units);
    expect(outcomes.every((o) => o.status === 'rejected' && o.reason instanceof Refused)).toBe(
      true,
    );
    expect(await names(db)).toEqual(['ws_1:One']);
  });
});
