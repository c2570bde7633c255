import type { Kysely } from 'kysely';
import type { Refusal } from '../db/deferred-writes.js';
import { deferrable, prepared } from '../db/prepared.js';
import type { Database, EnvironmentName, IdempotencyRecordRow } from '../db/schema.js';

export interface IdempotencyScope {
  workspace_id: string;
  environment: EnvironmentName;
  operation: string;
  idempotency_key: string;
}

export interface ClaimRequest extends IdempotencyScope {
  request_path: string;
  request_hash: string;
  locked_by: string;
  now: string;
  expires_at: string;
  /** An in-progress claim locked before this time belongs to a crashed request and may be taken. */
  stale_before: string;
}

/** A completed response: its body, or the id of the stored resource that is its body. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string | null;
  ref: string | null;
}

export type ClaimOutcome = { claimed: true } | { claimed: false; existing: IdempotencyRecordRow };

/** The record's primary key as an equality filter: `.where((eb) => eb.and(keyOf(scope)))`. */
function keyOf(scope: IdempotencyScope): IdempotencyScope {
  return {
    workspace_id: scope.workspace_id,
    environment: scope.environment,
    operation: scope.operation,
    idempotency_key: scope.idempotency_key,
  };
}

const insertClaim = prepared((db, p: ClaimRequest) =>
  db
    .insertInto('idempotency_records')
    .values({
      workspace_id: p.workspace_id,
      environment: p.environment,
      operation: p.operation,
      idempotency_key: p.idempotency_key,
      request_path: p.request_path,
      request_hash: p.request_hash,
      state: 'in_progress',
      locked_by: p.locked_by,
      locked_at: p.now,
      response_status: null,
      response_headers: null,
      response_body: null,
      response_ref: null,
      created_at: p.now,
      expires_at: p.expires_at,
    })
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'environment', 'operation', 'idempotency_key']).doNothing(),
    ),
);

/**
 * Claims a key for one execution. The insert is the arbiter: of several concurrent requests (on
 * any node) exactly one inserts; the others get the existing record back.
 */
export async function claimIdempotencyKey(
  db: Kysely<Database>,
  claim: ClaimRequest,
): Promise<ClaimOutcome> {
  const scope = keyOf(claim);
  const inserted = await insertClaim(db, claim);
  if (Number(inserted.numAffectedRows ?? 0) === 1) return { claimed: true };

  const existing = await db
    .selectFrom('idempotency_records')
    .selectAll()
    .where((eb) => eb.and(keyOf(scope)))
    .executeTakeFirst();
  if (!existing) return claimIdempotencyKey(db, claim); // purged between the two statements
  if (existing.expires_at <= claim.now) {
    // Past its retention the record no longer exists, even if the purge job has not removed it
    // yet: remove it (only if still that record) and claim afresh.
    await db
      .deleteFrom('idempotency_records')
      .where((eb) => eb.and(keyOf(scope)))
      .where('expires_at', '=', existing.expires_at)
      .execute();
    return claimIdempotencyKey(db, claim);
  }
  if (
    existing.state === 'in_progress' &&
    existing.locked_at !== null &&
    existing.locked_at < claim.stale_before
  ) {
    // The holder crashed mid-request (its writes rolled back with it); take the claim over.
    const taken = await db
      .updateTable('idempotency_records')
      .where((eb) => eb.and(keyOf(scope)))
      .set({
        locked_by: claim.locked_by,
        locked_at: claim.now,
        request_path: claim.request_path,
        request_hash: claim.request_hash,
      })
      .where('state', '=', 'in_progress')
      .where('locked_at', '=', existing.locked_at)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 1) return { claimed: true };
  }
  return { claimed: false, existing };
}

const selectRecord = prepared((db, p: IdempotencyScope) =>
  db
    .selectFrom('idempotency_records')
    .selectAll()
    .where('workspace_id', '=', p.workspace_id)
    .where('environment', '=', p.environment)
    .where('operation', '=', p.operation)
    .where('idempotency_key', '=', p.idempotency_key),
);

/** The record of a key, whatever its state (expired or abandoned ones included). */
export async function findIdempotencyRecord(
  db: Kysely<Database>,
  scope: IdempotencyScope,
): Promise<IdempotencyRecordRow | undefined> {
  return (await selectRecord(db, keyOf(scope))).rows[0] as IdempotencyRecordRow | undefined;
}

/**
 * Whether a record no longer holds its key at `claim.now`: past its retention, or an in-progress
 * claim whose holder crashed (its lease ran out). Such a record is ignored, and replaced.
 */
export function isDeadRecord(record: IdempotencyRecordRow, claim: ClaimRequest): boolean {
  return (
    record.expires_at <= claim.now ||
    (record.state === 'in_progress' &&
      record.locked_at !== null &&
      record.locked_at < claim.stale_before)
  );
}

const insertCompleted = deferrable(
  (
    db,
    p: ClaimRequest & { status: number; headers: string; body: string | null; ref: string | null },
  ) =>
    db
      .insertInto('idempotency_records')
      .values({
        workspace_id: p.workspace_id,
        environment: p.environment,
        operation: p.operation,
        idempotency_key: p.idempotency_key,
        request_path: p.request_path,
        request_hash: p.request_hash,
        state: 'completed',
        locked_by: null,
        locked_at: null,
        response_status: p.status,
        response_headers: p.headers,
        response_body: p.body,
        response_ref: p.ref,
        created_at: p.now,
        expires_at: p.expires_at,
      })
      .onConflict((oc) =>
        oc
          .columns(['workspace_id', 'environment', 'operation', 'idempotency_key'])
          .doUpdateSet((eb) => ({
            request_path: eb.ref('excluded.request_path'),
            request_hash: eb.ref('excluded.request_hash'),
            state: eb.ref('excluded.state'),
            locked_by: null,
            locked_at: null,
            response_status: eb.ref('excluded.response_status'),
            response_headers: eb.ref('excluded.response_headers'),
            response_body: eb.ref('excluded.response_body'),
            response_ref: eb.ref('excluded.response_ref'),
            created_at: eb.ref('excluded.created_at'),
            expires_at: eb.ref('excluded.expires_at'),
          }))
          // Only over a dead record (see isDeadRecord): a live one belongs to another request.
          .where((eb) =>
            eb.or([
              eb('idempotency_records.expires_at', '<=', p.now),
              eb.and([
                eb('idempotency_records.state', '=', 'in_progress'),
                eb('idempotency_records.locked_at', '<', p.stale_before),
              ]),
            ]),
          ),
      ),
);

/**
 * Writes the completed record of an execution that claimed nothing beforehand, inside the
 * operation's unit of work. The key's primary key is the arbiter: of several concurrent
 * executions (on any node) exactly one writes it; for the others the unit fails with `duplicate`
 * (a gate of the unit: deferred-writes.ts). On PostgreSQL a concurrent execution's uncommitted
 * record makes this wait for that transaction's outcome.
 */
export async function insertCompletedIdempotencyRecord(
  db: Kysely<Database>,
  claim: ClaimRequest,
  response: StoredResponse,
  duplicate: Refusal,
): Promise<void> {
  await insertCompleted(
    db,
    {
      ...claim,
      status: response.status,
      headers: JSON.stringify(response.headers),
      body: response.body,
      ref: response.ref,
    },
    duplicate,
  );
}

const completeClaim = deferrable(
  (
    db,
    p: IdempotencyScope & {
      locked_by: string;
      status: number;
      headers: string;
      body: string | null;
      ref: string | null;
    },
  ) =>
    db
      .updateTable('idempotency_records')
      .where((eb) => eb.and(keyOf(p)))
      .set({
        state: 'completed',
        locked_by: null,
        locked_at: null,
        response_status: p.status,
        response_headers: p.headers,
        response_body: p.body,
        response_ref: p.ref,
      })
      .where('state', '=', 'in_progress')
      .where('locked_by', '=', p.locked_by),
);

/**
 * Stores the response of a completed execution. Runs inside the operation's transaction and only
 * succeeds while this request still holds the claim, so the operation's writes and its stored
 * response commit together or not at all.
 */
export async function completeIdempotencyRecord(
  db: Kysely<Database>,
  scope: IdempotencyScope,
  lockedBy: string,
  response: StoredResponse,
): Promise<void> {
  await completeClaim(
    db,
    {
      ...keyOf(scope),
      locked_by: lockedBy,
      status: response.status,
      headers: JSON.stringify(response.headers),
      body: response.body,
      ref: response.ref,
    },
    () => new Error('idempotency claim lost before completion'),
  );
}

/** Frees a claim whose request failed, so a retry executes again. */
export async function releaseIdempotencyClaim(
  db: Kysely<Database>,
  scope: IdempotencyScope,
  lockedBy: string,
): Promise<void> {
  await db
    .deleteFrom('idempotency_records')
    .where((eb) => eb.and(keyOf(scope)))
    .where('state', '=', 'in_progress')
    .where('locked_by', '=', lockedBy)
    .execute();
}

export async function purgeExpiredIdempotencyRecords(
  db: Kysely<Database>,
  now: string,
): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_records')
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
