import { type Kysely, type RawBuilder, sql } from 'kysely';
import { isPostgres } from './dialect.js';
import type { Database } from './schema.js';

/**
 * Claim-with-lease, the one pattern of every background job (monitor rechecks; webhook deliveries
 * reuse it). Due work is found through an index on its due time and claimed in one statement, which
 * stamps the claimer and when its lease ends. A worker that dies holding a lease loses it when the
 * lease expires, and the next tick's claim takes the work over. Completing the work must check
 * the lease is still held (`holdsLease`), in the same transaction as the work's writes, so work that
 * was taken over commits at most once.
 */
export interface LeasedTable {
  table: keyof Database & string;
  /** The due-time column, indexed (partially, with `eligible` as the index's condition). */
  dueColumn: string;
  /** Which rows can be due at all; must match the due index's WHERE for the index to serve. */
  eligible: RawBuilder<boolean>;
}

export interface ClaimRequest {
  now: string;
  leaseExpiresAt: string;
  owner: string;
  limit: number;
}

/**
 * Claims up to `limit` due rows (oldest due first) whose lease is free or expired, and returns
 * their ids. PostgreSQL skips rows another worker is claiming at this instant (`FOR UPDATE SKIP
 * LOCKED`); SQLite has one writer, so one statement is already atomic.
 */
export async function claimDue(
  db: Kysely<Database>,
  spec: LeasedTable,
  request: ClaimRequest,
): Promise<string[]> {
  const table = sql.table(spec.table);
  const due = sql.ref(spec.dueColumn);
  const lock = isPostgres(db) ? sql`for update skip locked` : sql``;
  const result = await sql<{ id: string }>`
    update ${table}
    set lease_owner = ${request.owner}, lease_expires_at = ${request.leaseExpiresAt}
    where id in (
      select id from ${table}
      where ${spec.eligible} and ${due} <= ${request.now}
        and (lease_expires_at is null or lease_expires_at <= ${request.now})
      order by ${due}
      limit ${request.limit}
      ${lock}
    )
    returning id`.execute(db);
  return result.rows.map((row) => row.id);
}

/** The condition a completing write adds: the lease is still this worker's and still running. */
export function holdsLease(owner: string, now: string): RawBuilder<boolean> {
  return sql<boolean>`(lease_owner = ${owner} and lease_expires_at > ${now})`;
}

/** Thrown inside a completing transaction whose lease was lost: everything it wrote rolls back. */
export class LeaseLostError extends Error {
  constructor(readonly id: string) {
    super(`the lease on ${id} was lost before its work completed`);
    this.name = 'LeaseLostError';
  }
}
