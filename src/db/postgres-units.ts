import { CompiledQuery, type DatabaseConnection, type Kysely, type QueryResult } from 'kysely';
import {
  combine,
  deferralOf,
  parts,
  QUEUED,
  type Queued,
  sqlStateOf,
  UNIT_REFUSED_SQLSTATE,
  UnitRefused,
} from './deferred-writes.js';
import type { Database } from './schema.js';

// The unit's boundaries, sent through the unit's connection (see `lazyUnit`). They never reach
// PostgreSQL; if they did (a driver without this wrapper), they are comments, which do nothing.
const UNIT_START = CompiledQuery.raw('/* unit of work: start */');
const UNIT_END = CompiledQuery.raw('/* unit of work: end */');
const UNIT_ABANDON = CompiledQuery.raw('/* unit of work: abandon */');
const BEGIN = CompiledQuery.raw('begin');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

const PLAIN_READ = /^\s*select\b/i;
const LOCKING_READ = /\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b/i;

/**
 * A PostgreSQL connection that can hold a unit of work open lazily: between `UNIT_START` and
 * `UNIT_END` deferrable writes are queued, reads run at once, and the transaction is only begun
 * when something needs it. Outside a unit it passes every statement through.
 */
export class UnitConnection implements DatabaseConnection {
  /** idle: no unit; lazy: a unit without a transaction yet; open: a unit whose BEGIN was sent. */
  #state: 'idle' | 'lazy' | 'open' = 'idle';
  #queue: Queued[] = [];

  /** `inner` sends statements to PostgreSQL as they come. */
  constructor(readonly inner: Pick<DatabaseConnection, 'executeQuery'>) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (query === UNIT_START) {
      this.#state = 'lazy';
      this.#queue = [];
      return QUEUED;
    }
    if (query === UNIT_END) return (await this.#end()) as QueryResult<R>;
    if (query === UNIT_ABANDON) return (await this.#abandon()) as QueryResult<R>;
    const deferral = deferralOf(query);
    // Outside a unit a deferrable write runs at once; its caller checks a gate's count.
    if (this.#state === 'idle') return this.inner.executeQuery(query);
    if (deferral) {
      this.#queue.push({ query, deferral });
      return QUEUED;
    }
    if (!PLAIN_READ.test(query.sql) || LOCKING_READ.test(query.sql)) await this.#begin();
    return this.inner.executeQuery(query);
  }

  // biome-ignore lint/correctness/useYield: the service never streams from PostgreSQL.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported on PostgreSQL here');
  }

  /** A queued write sent on its own, a gate's count checked. */
  async #run({ query, deferral }: Queued): Promise<void> {
    const result = await this.inner.executeQuery(query);
    if (deferral.refusal && Number(result.numAffectedRows ?? 0) !== 1) {
      throw new UnitRefused(deferral.refusal);
    }
  }

  /** Opens the unit's transaction, if not yet open, and sends what is queued, in order. */
  async #begin(): Promise<void> {
    if (this.#state === 'lazy') {
      await this.inner.executeQuery(BEGIN);
      this.#state = 'open';
    }
    await this.#flush();
  }

  async #flush(): Promise<void> {
    const queue = this.#queue;
    this.#queue = [];
    for (const part of parts(queue)) {
      const [only] = part;
      if (part.length === 1 && only) {
        await this.#run(only);
        continue;
      }
      try {
        await this.inner.executeQuery(combine(part));
      } catch (error) {
        const { code, message } = sqlStateOf(error);
        const gate = code === UNIT_REFUSED_SQLSTATE ? part[Number(message)] : undefined;
        if (gate?.deferral.refusal) throw new UnitRefused(gate.deferral.refusal);
        throw error;
      }
    }
  }

  async #end(): Promise<QueryResult<never>> {
    // Writes that fit one statement need no transaction: the statement is one. A failure here
    // leaves the state for `UNIT_ABANDON`, which rolls back what a transaction holds.
    if (this.#state === 'lazy' && parts(this.#queue).length > 1) await this.#begin();
    await this.#flush();
    if (this.#state === 'open') await this.inner.executeQuery(COMMIT);
    this.#state = 'idle';
    return QUEUED;
  }

  async #abandon(): Promise<QueryResult<never>> {
    const open = this.#state === 'open';
    this.#state = 'idle';
    this.#queue = [];
    if (open) await this.inner.executeQuery(ROLLBACK);
    return QUEUED;
  }
}

/**
 * Runs `work` as one unit of work on one connection of a `unitCapableDriver` database: all of its
 * writes commit, or none do. A gate's refusal is thrown as the gate's own error, after the rollback.
 */
export function lazyUnit<T>(
  db: Kysely<Database>,
  work: (unit: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (unit) => {
    await unit.executeQuery(UNIT_START);
    try {
      const value = await work(unit);
      await unit.executeQuery(UNIT_END);
      return value;
    } catch (error) {
      // Also after a failed end: what was sent in a transaction is rolled back; a failed single
      // statement undid itself.
      await unit.executeQuery(UNIT_ABANDON).catch(() => {});
      if (error instanceof UnitRefused) throw await error.refusal(unit);
      throw error;
    }
  });
}
