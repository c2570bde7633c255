import { CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import { preparedQuery } from './fixed-statements.js';
import type { Database } from './schema.js';

/**
 * Deferred writes: a PostgreSQL unit of work sends the writes it never reads back together, as one
 * statement, when it ends.
 *
 * On this service's request path a round trip to PostgreSQL costs far more than the statement: a
 * sandbox check sent nine (BEGIN, five writes, two reads, COMMIT), and the
 * socket writes alone were a quarter of the server's CPU per check in profiles. Most of a unit's
 * writes are inserts and counters whose result nobody reads (the check, the usage event, the
 * totals, the stored response); `deferrable` statements (prepared.ts) are queued on the unit's
 * connection and sent at its end as data-modifying CTEs of a single statement. A unit whose only
 * writes are deferred never opens a transaction: that one statement commits on its own, all of
 * it or nothing, and its row locks (the workspace's usage totals, the credit balance) are held
 * only while it runs.
 *
 * A deferred write may be a gate: it must change exactly one row, or the whole unit is refused
 * (the idempotency record another execution stored first, a debit the balance cannot pay). Inside
 * the statement a failed gate raises (firmwatch_refuse_unit, migration 0021), which undoes every
 * write of that statement; the unit then fails with the gate's own error, built after the
 * rollback.
 *
 * What a unit must keep to when it uses deferrable writes: it never reads back what it deferred
 * (reads are sent at once, and do not see queued writes). Any other write (an insert whose
 * conflict decides what comes next, a `for update` read, raw SQL) first opens the transaction and
 * sends what is queued, in order, so it sees every earlier write. Writes to one table are never
 * folded into one statement (its sub-statements see one snapshot and may not touch a row twice):
 * a second write to a table starts a second statement, and the unit then runs in a transaction.
 *
 * This file says what is deferred and how a queue becomes statements; postgres-units.ts runs the
 * units, postgres-driver.ts the connections.
 */

/**
 * Builds a gate's error. On PostgreSQL it runs after the unit's rollback, on the unit's own
 * connection (outside any transaction by then: asking the pool for another could wait forever
 * when every connection is held by a unit in the same state).
 */
export type Refusal = (db: Kysely<Database>) => Error | Promise<Error>;

/** What a compiled query carries when it is a deferrable write. */
export interface Deferral {
  /** The statement's number (one per deferrable definition): combined statements are cached by it. */
  id: number;
  /** The table written: two writes to one table never share a statement. */
  table: string;
  /** Present on a gate: the statement must change exactly one row. */
  refusal?: Refusal;
}

const DEFERRAL = Symbol('deferral');

export type DeferrableQuery = CompiledQuery & { [DEFERRAL]: Deferral };

export function deferrableQuery(query: CompiledQuery, deferral: Deferral): DeferrableQuery {
  return Object.assign({ ...query }, { [DEFERRAL]: deferral });
}

export function deferralOf(query: CompiledQuery): Deferral | undefined {
  return (query as Partial<DeferrableQuery>)[DEFERRAL];
}

/** The table a deferrable write changes, read from its SQL (checked when it is defined). */
export function writtenTable(sql: string): string {
  const match = /^(?:insert into|update|delete from) "([^"]+)"/.exec(sql);
  if (!match?.[1]) throw new TypeError(`not a deferrable write: ${sql.slice(0, 80)}`);
  return match[1];
}

/** A unit's gate failed: `refusal` says why, once the unit has rolled back. */
export class UnitRefused extends Error {
  constructor(readonly refusal: Refusal) {
    super('a gate of the unit of work changed no row');
  }
}

/** The answer a queued write gets: no rows and no count (a count would be a guess). */
export const QUEUED: QueryResult<never> = Object.freeze({ rows: [] }) as QueryResult<never>;

/** Whether a write's result says it was queued rather than run. */
export function wasQueued(result: QueryResult<unknown>): boolean {
  return result.numAffectedRows === undefined;
}

/** SQLSTATE of firmwatch_refuse_unit(gate): the message is the failed gate's place in the statement. */
export const UNIT_REFUSED_SQLSTATE = 'FW001';

export function sqlStateOf(error: unknown): { code?: unknown; message?: unknown } {
  return typeof error === 'object' && error !== null ? error : {};
}

export interface Queued {
  query: CompiledQuery;
  deferral: Deferral;
}

/** Combined statements, by the ids of their parts (a service sends a handful of shapes). */
const combined = new Map<string, string>();
const MAX_COMBINED = 200;

/**
 * One statement of several writes: each a data-modifying CTE returning a row per row it changed,
 * its parameters renumbered. The statement answers the rows written (for the benchmark's count)
 * and raises when a gate's count is not one.
 */
export function combine(part: Queued[]): CompiledQuery {
  const key = part.map((q) => (q.deferral.refusal ? `${q.deferral.id}!` : q.deferral.id)).join(',');
  let sql = combined.get(key);
  if (sql === undefined) {
    let offset = 0;
    const ctes: string[] = [];
    const checks: string[] = [];
    part.forEach(({ query, deferral }, i) => {
      const shift = offset;
      const text = query.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + shift}`);
      offset += query.parameters.length;
      ctes.push(`w${i} as (${text} returning 1)`);
      if (deferral.refusal) {
        checks.push(`when (select count(*) from w${i}) <> 1 then firmwatch_refuse_unit(${i})`);
      }
    });
    const written = part.map((_, i) => `(select count(*) from w${i})`).join(' + ');
    const refused = checks.length > 0 ? `case ${checks.join(' ')} else 0 end` : '0';
    sql = `with ${ctes.join(', ')} select ${written} as written, ${refused} as refused`;
    combined.set(key, sql);
    if (combined.size > MAX_COMBINED) combined.delete(combined.keys().next().value as string);
  }
  // A fixed statement too: named on the server like its parts.
  return preparedQuery(
    CompiledQuery.raw(
      sql,
      part.flatMap((q) => q.query.parameters),
    ),
  );
}

/** Splits the queue into runs that write each table at most once, in order. */
export function parts(queue: Queued[]): Queued[][] {
  const result: Queued[][] = [];
  let current: Queued[] = [];
  let tables = new Set<string>();
  for (const queued of queue) {
    if (tables.has(queued.deferral.table)) {
      result.push(current);
      current = [];
      tables = new Set();
    }
    current.push(queued);
    tables.add(queued.deferral.table);
  }
  if (current.length > 0) result.push(current);
  return result;
}
