import { CompiledQuery, type Kysely } from 'kysely';
import { lazyUnit } from './postgres-units.js';
import { heldSqliteConnections, type SqliteStatements } from './prepared.js';
import type { Database } from './schema.js';

/** Runs `work` atomically: all of its writes commit, or none do. */
export type Transact = <T>(work: (trx: Kysely<Database>) => Promise<T>) => Promise<T>;

interface Pending {
  work: (trx: Kysely<Database>) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');
const SAVEPOINT = CompiledQuery.raw('savepoint unit_of_work');
const RELEASE = CompiledQuery.raw('release unit_of_work');
const ROLLBACK_TO = CompiledQuery.raw('rollback to unit_of_work');

/**
 * One unit of work at a time per connection: PostgreSQL commits concurrent transactions in
 * parallel. Its deferred writes go together as one statement (deferred-writes.ts), which needs no
 * transaction of its own when nothing else in the unit writes.
 */
export const transactionPerWork =
  (db: Kysely<Database>): Transact =>
  (work) =>
    lazyUnit(db, work);

/**
 * A transaction that takes SQLite's write lock at BEGIN. A deferred one (Kysely's) that reads before
 * its first write fails at once with SQLITE_BUSY, instead of waiting, if another process (a CLI
 * command) commits in between; an immediate one waits its turn (busy_timeout) and cannot fail so.
 */
function writeTransaction<T>(
  db: Kysely<Database>,
  statements: SqliteStatements | undefined,
  body: (conn: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (conn) => {
    await conn.executeQuery(BEGIN_IMMEDIATE);
    if (statements) heldSqliteConnections.set(conn, statements);
    try {
      const value = await body(conn);
      await conn.executeQuery(COMMIT);
      return value;
    } catch (error) {
      // Also after a failed COMMIT, which can leave the transaction open; if SQLite has already
      // rolled back, there is nothing to do.
      await conn.executeQuery(ROLLBACK).catch(() => {});
      throw error;
    } finally {
      heldSqliteConnections.delete(conn);
    }
  });
}

export interface GroupCommitOptions {
  /** The connection's statements: `prepared` statements of a unit then run on them directly. */
  statements?: SqliteStatements;
  maxUnitsPerCommit?: number;
}

/** Thrown out of a shared transaction to roll it back because one of its units failed. */
class UnitFailed {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {}
}

/**
 * Group commit for SQLite, which has one writer: a commit costs far more than the few rows a request
 * writes (every dirty page goes to the WAL again), so units of work that arrive while a transaction
 * is running wait and then share the next one. Nobody hears of success before the shared COMMIT has
 * succeeded, and if it fails, every unit of that transaction fails.
 *
 * A unit that throws fails alone. The units first run without savepoints, because a savepoint costs
 * SQLite about as much as a unit's own writes (it journals every page the unit touches). If one
 * throws, the whole transaction is rolled back, that unit fails with its error, and the others run
 * again, each in its own savepoint. So a unit may run more than once, and only the run that commits
 * counts: a unit must have no effects outside the database.
 *
 * better-sqlite3 is synchronous, so a transaction never yields to the event loop by itself: the
 * first unit starts its transaction on `setImmediate`, after the requests that arrived in the same
 * event-loop turn have queued their units too. Units run one after another on the single
 * connection, so a unit must not wait on anything but the database (no upstream calls) and must not
 * call `transact` itself.
 */
export function groupCommit(
  db: Kysely<Database>,
  { statements, maxUnitsPerCommit = 256 }: GroupCommitOptions = {},
): Transact {
  let queue: Pending[] = [];
  let draining = false;

  function runTogether(batch: Pending[]): Promise<Outcome[]> {
    return writeTransaction(db, statements, async (trx) => {
      const outcomes: Outcome[] = [];
      for (const [index, unit] of batch.entries()) {
        try {
          outcomes.push({ ok: true, value: await unit.work(trx) });
        } catch (error) {
          throw new UnitFailed(index, error);
        }
      }
      return outcomes;
    });
  }

  async function runInSavepoints(batch: Pending[]): Promise<Outcome[]> {
    if (batch.length === 0) return [];
    return writeTransaction(db, statements, async (trx) => {
      const outcomes: Outcome[] = [];
      for (const unit of batch) {
        await trx.executeQuery(SAVEPOINT);
        try {
          outcomes.push({ ok: true, value: await unit.work(trx) });
        } catch (error) {
          await trx.executeQuery(ROLLBACK_TO);
          outcomes.push({ ok: false, error });
        }
        await trx.executeQuery(RELEASE);
      }
      return outcomes;
    });
  }

  async function runBatch(batch: Pending[]): Promise<Outcome[]> {
    try {
      return await runTogether(batch);
    } catch (failure) {
      if (!(failure instanceof UnitFailed)) throw failure;
      const failed: Outcome = { ok: false, error: failure.error };
      const others = batch.filter((_, i) => i !== failure.index);
      // Should the second transaction fail as a whole, the failed unit still gets its own error.
      const outcomes = await runInSavepoints(others).catch((error: unknown) =>
        others.map((): Outcome => ({ ok: false, error })),
      );
      outcomes.splice(failure.index, 0, failed);
      return outcomes;
    }
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.slice(0, maxUnitsPerCommit);
      queue = queue.slice(batch.length);
      try {
        const outcomes = await runBatch(batch);
        batch.forEach((unit, i) => {
          const outcome = outcomes[i] as Outcome;
          if (outcome.ok) unit.resolve(outcome.value);
          else unit.reject(outcome.error);
        });
      } catch (error) {
        for (const unit of batch) unit.reject(error);
      }
    }
    draining = false;
  }

  return <T>(work: (trx: Kysely<Database>) => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!draining) {
        draining = true;
        setImmediate(drain);
      }
    });
}
