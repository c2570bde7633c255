import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DatabaseHandle } from '../db/database.js';
import type { Transact } from '../db/group-commit.js';
import type { Database, IdempotencyRecordRow } from '../db/schema.js';
import { canonicalJson } from '../lib/canonical-json.js';
import { type Clock, toTimestamp } from '../lib/clock.js';
import type { Principal } from '../modules/accounts/principal.js';
import {
  type ClaimRequest,
  claimIdempotencyKey,
  completeIdempotencyRecord,
  findIdempotencyRecord,
  type IdempotencyScope,
  insertCompletedIdempotencyRecord,
  isDeadRecord,
  releaseIdempotencyClaim,
} from './idempotency.store.js';
import { HttpProblem } from './problems.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Operation name (for example `checks.create`): the route requires an Idempotency-Key. */
    idempotency?: string;
    /**
     * Loads the stored resource an operation's response is (see `OperationResult.storedAs`), for
     * a replay: the idempotency record then keeps its id rather than a second copy of the body.
     */
    replayStored?: (db: Kysely<Database>, principal: Principal, id: string) => Promise<object>;
    /**
     * Whether, for this caller, the operation's work never leaves the database (no registry or
     * other network call between the idempotency check and completeOperation). Then no claim is
     * committed ahead: the record is written, completed, in the operation's own unit of work, and
     * its primary key settles concurrent duplicates. Otherwise (the default) a claim commits
     * first, so that a duplicate does not repeat an upstream call and hears 409 in progress.
     */
    idempotencyWithOperation?: (principal: Principal) => boolean;
  }
  interface FastifyRequest {
    idempotencyClaim: IdempotencyClaim | undefined;
  }
}

/**
 * A request's hold on its key. `committed`: a claim row committed before the operation, completed
 * in its unit of work and released if it fails. `with-operation`: nothing written yet; the
 * completed record is inserted in the operation's unit of work (`claim` is what it inserts).
 */
type IdempotencyClaim =
  | { mode: 'committed'; scope: IdempotencyScope; completed: boolean; released?: boolean }
  | {
      mode: 'with-operation';
      scope: IdempotencyScope;
      claim: ClaimRequest;
      completed: boolean;
      /** Answers from the record of the execution that stored the key first. */
      answerDuplicate(reply: FastifyReply): Promise<FastifyReply>;
    };

/** Thrown inside a unit of work whose key another execution completed first: roll it back. */
class DuplicateExecution extends Error {}

const KEY_PATTERN = /^[A-Za-z0-9._-]{8,128}$/;

/** Whether a value can be an Idempotency-Key: 8 to 128 letters, digits, ".", "_" or "-". */
export function isIdempotencyKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

/**
 * The header of every idempotent operation. The hook above requires it (the OpenAPI document says
 * so, see openapi.ts), except on an MCP tool call made without an idempotency_key.
 */
export const IdempotencyKeyHeaders = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      minLength: 8,
      maxLength: 128,
      pattern: KEY_PATTERN.source,
      description: 'Reuse the same key, with the same body, when retrying; kept for 24 hours.',
    },
  },
} as const;

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** A claim held this long without completing belongs to a crashed request. */
export const IDEMPOTENCY_LEASE_MS = 60 * 1000;
/** Response headers that are part of the stored response and are replayed. */
const REPLAYED_HEADERS = ['content-type', 'location'];

/** The claim a request makes on its key at `now`: kept for 24 hours, taken over after the lease. */
export function claimFor(
  scope: IdempotencyScope,
  request: { path: string; hash: string; lockedBy: string },
  now: Date,
): ClaimRequest {
  return {
    ...scope,
    request_path: request.path,
    request_hash: request.hash,
    locked_by: request.lockedBy,
    now: toTimestamp(now),
    expires_at: toTimestamp(new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS)),
    stale_before: toTimestamp(new Date(now.getTime() - IDEMPOTENCY_LEASE_MS)),
  };
}

/**
 * Retry-After for a key still in progress: as long as the claim is old (so a retry backs off
 * exponentially, 1, 2, 4 ... seconds, while a live request usually finishes in milliseconds), but
 * never past the end of its lease, when a crashed request's claim is taken over. At least 1 s.
 */
function inProgressRetryAfter(lockedAt: string | null, now: Date): number {
  if (lockedAt === null) return 1;
  const age = now.getTime() - Date.parse(lockedAt);
  const left = IDEMPOTENCY_LEASE_MS - age;
  return Math.max(1, Math.ceil(Math.min(age, left) / 1000));
}

/**
 * The path a request target is routed by (find-my-way with ignoreTrailingSlash), so that every
 * target that reaches one resource is one path: `/v1/checks/` and `/v1/checks?x` are
 * `/v1/checks`. It drops the scheme and host of an absolute-form target, the query and fragment,
 * decodes percent-escapes as the router does (not those of reserved characters such as `%2F`),
 * and trims one trailing slash. Duplicate slashes stay: routing does not merge them, so
 * `/v1//checks` reaches no route. Stored paths are passed through it again (records from before
 * it existed hold the raw path): a routed path is its own routed path, except one ending in `/`,
 * whose target ended in `//`, an empty last parameter that no route's validation lets through.
 */
export function routedPath(target: string): string {
  let path = target.split(/[?#]/, 1)[0] ?? target;
  if (!path.startsWith('/')) {
    const authority = path.indexOf('://');
    const start = authority === -1 ? -1 : path.indexOf('/', authority + 3);
    path = start === -1 ? '/' : path.slice(start);
  }
  try {
    // `%25` stays encoded, as in the router: decoding it would make a new escape of the rest.
    path = decodeURI(path.replaceAll('%25', '%2525'));
  } catch {
    // A malformed escape never reaches a route (the router answers 400); keep it as it is.
  }
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(canonicalJson(request.body ?? null))
    .digest('hex');
}

/**
 * Answers a request whose key another execution holds or has completed: 409 if the key was used
 * for a different request or is still in progress, else the stored response, replayed.
 */
async function answerFromRecord(
  db: Kysely<Database>,
  request: FastifyRequest,
  reply: FastifyReply,
  existing: IdempotencyRecordRow,
  claim: ClaimRequest,
): Promise<FastifyReply> {
  // Records stored before paths were normalised hold the raw path: compare routed forms.
  const existingPath = routedPath(existing.request_path);
  if (existing.request_hash !== claim.request_hash || existingPath !== claim.request_path) {
    throw new HttpProblem('idempotency_key_reused', {
      detail:
        existingPath !== claim.request_path
          ? `This Idempotency-Key was already used for ${existingPath}; use a new key for a different request.`
          : 'This Idempotency-Key was already used with a different request body; use a new key for a different request.',
    });
  }
  if (existing.state === 'in_progress') {
    throw new HttpProblem('idempotency_request_in_progress', {
      detail:
        'A request with this Idempotency-Key is still being processed; retry after the Retry-After delay.',
      retryAfter: inProgressRetryAfter(existing.locked_at, new Date(claim.now)),
    });
  }
  const headers = JSON.parse(existing.response_headers ?? '{}') as Record<string, string>;
  const replayStored = request.routeOptions.config.replayStored;
  if (existing.response_ref !== null && !replayStored) {
    throw new Error(
      `${claim.operation} stored a response by reference but its route cannot load it`,
    );
  }
  // A stored resource goes through the route's serializer again, as when it was created: the
  // same object and schema give the same bytes.
  const body =
    existing.response_ref !== null && replayStored
      ? await replayStored(db, request.principal as Principal, existing.response_ref)
      : existing.response_body;
  return reply
    .code(existing.response_status ?? 200)
    .headers(headers)
    .header('idempotency-replayed', 'true')
    .send(body);
}

/**
 * Answers an execution rolled back because another stored its key first: that one has committed
 * (PostgreSQL waits for its outcome before refusing the insert; SQLite has one writer), so its
 * record is there, unless purged in between.
 */
async function answerDuplicate(
  db: Kysely<Database>,
  readRecord: (scope: IdempotencyScope) => Promise<IdempotencyRecordRow | undefined>,
  request: FastifyRequest,
  reply: FastifyReply,
  claim: ClaimRequest,
): Promise<FastifyReply> {
  const existing = await readRecord(claim);
  if (!existing) {
    throw new HttpProblem('idempotency_request_in_progress', {
      detail:
        'A request with this Idempotency-Key was being processed at the same time; retry after the Retry-After delay.',
      retryAfter: 1,
    });
  }
  return answerFromRecord(db, request, reply, existing, claim);
}

/**
 * Idempotency for every route that declares `config.idempotency` (contract section 4): the header
 * is required, a completed response is replayed byte for byte, and a key reused for a different
 * request, or still executing, is a 409. Scope: workspace, environment and operation.
 */
export function registerIdempotency(
  app: FastifyInstance,
  { db, transact, dialect }: Pick<DatabaseHandle, 'db' | 'transact' | 'dialect'>,
  clock: Clock,
): void {
  app.decorateRequest('idempotencyClaim', undefined);
  // On SQLite the read joins the next group commit, where it runs straight on the connection
  // (prepared.ts): on its own it would wait for that one connection all the same, and pay Kysely's
  // executor on top (a sandbox check's database work measured about a third slower). On
  // PostgreSQL a transaction would only add two round trips.
  const readRecord = (scope: IdempotencyScope) =>
    dialect === 'sqlite'
      ? transact((trx) => findIdempotencyRecord(trx, scope))
      : findIdempotencyRecord(db, scope);

  // Before body validation: a request without a usable key is a 400 whatever its body.
  app.addHook('preValidation', async (request) => {
    if (!request.routeOptions.config.idempotency) return;
    const key = request.headers['idempotency-key'];
    if (key === undefined) {
      // An MCP tool call without an idempotency_key: a new operation, with nothing to replay.
      if (request.dispatched) return;
      throw new HttpProblem('idempotency_key_required', {
        detail:
          'This operation needs an Idempotency-Key header: 8 to 128 letters, digits, ".", "_" or "-". Reuse the same key when retrying.',
      });
    }
    if (typeof key !== 'string' || !isIdempotencyKey(key)) {
      throw new HttpProblem('idempotency_key_invalid', {
        detail: 'The Idempotency-Key header must be 8 to 128 letters, digits, ".", "_" or "-".',
      });
    }
  });

  app.addHook('preHandler', async (request, reply) => {
    const operation = request.routeOptions.config.idempotency;
    const principal = request.principal;
    if (!operation || !principal || request.headers['idempotency-key'] === undefined) return;
    const scope: IdempotencyScope = {
      workspace_id: principal.workspaceId,
      environment: principal.environment,
      operation,
      idempotency_key: request.headers['idempotency-key'] as string,
    };
    const hash = requestHash(request);
    const path = routedPath(request.url);
    const now = clock.now();
    const claim = claimFor(scope, { path, hash, lockedBy: request.id }, now);
    if (request.routeOptions.config.idempotencyWithOperation?.(principal)) {
      // Only a read: the operation's unit of work writes the record (completeOperation).
      const existing = await readRecord(scope);
      if (!existing || isDeadRecord(existing, claim)) {
        request.idempotencyClaim = {
          mode: 'with-operation',
          scope,
          claim,
          completed: false,
          answerDuplicate: (reply) => answerDuplicate(db, readRecord, request, reply, claim),
        };
        return;
      }
      return answerFromRecord(db, request, reply, existing, claim);
    }
    const outcome = await transact((trx) => claimIdempotencyKey(trx, claim));
    if (outcome.claimed) {
      request.idempotencyClaim = { mode: 'committed', scope, completed: false };
      return;
    }
    return answerFromRecord(db, request, reply, outcome.existing, claim);
  });

  // A claim whose request did not complete (any error, including a validation 4xx raised by the
  // service or a 502 from a registry) is released before that answer leaves: a client that
  // retries the moment it has it must find the key free, not a claim about to go (409). Every
  // response passes here, problems from the error handler included.
  app.addHook('onSend', async (request, _reply, payload) => {
    const claim = request.idempotencyClaim;
    if (claim?.mode !== 'committed' || claim.completed || claim.released) return payload;
    claim.released = true;
    try {
      await transact((trx) => releaseIdempotencyClaim(trx, claim.scope, request.id));
    } catch (error) {
      // The failure's own answer still goes out; the claim lapses when its lease does.
      request.log.error({ err: error }, 'idempotency claim not released');
    }
    return payload;
  });
}

export interface OperationResult<T> {
  body: T;
  headers?: Record<string, string>;
  /**
   * The id of the stored resource that `body` is (a check), on a route with `replayStored`: the
   * idempotency record keeps the id instead of a second copy of the body.
   */
  storedAs?: string;
  /**
   * Writes to rows that every operation of a workspace writes (the credit balance, the usage
   * totals): run last in the unit of work, after the idempotency record, so that on PostgreSQL
   * their row locks are held only until the COMMIT that follows.
   */
  last?: (trx: Kysely<Database>) => Promise<void>;
  /** Told once the unit of work has committed (never for a duplicate answered instead). */
  committed?: () => void;
}

/**
 * Runs a write operation as one unit of work (`transact`) and sends its result with the route's
 * response schema. On an idempotent route, the serialized response is stored in the same unit, so
 * the operation's writes and the stored response commit together or not at all; when no claim was
 * committed ahead (`idempotencyWithOperation`), a concurrent execution that stored the key first
 * rolls this one back, and this request answers as a duplicate arriving later would (the replay,
 * or 409). `run` may only talk to the database (see group-commit.ts): look things up before.
 */
export async function completeOperation<T extends object>(
  request: FastifyRequest,
  reply: FastifyReply,
  transact: Transact,
  status: number,
  run: (trx: Kysely<Database>) => Promise<OperationResult<T>>,
): Promise<FastifyReply> {
  const claim = request.idempotencyClaim;
  let outcome: { payload: string; headers: Record<string, string>; committed?: () => void };
  try {
    outcome = await transact(async (trx) => {
      const result = await run(trx);
      // The route's own response schema for this status: the stored bytes are the bytes sent.
      const payload = reply.serializeInput(
        result.body as Record<string, unknown>,
        String(status),
      ) as string;
      const headers = { 'content-type': 'application/json; charset=utf-8', ...result.headers };
      if (claim) {
        const ref = request.routeOptions.config.replayStored ? result.storedAs : undefined;
        const response = {
          status,
          headers: Object.fromEntries(
            Object.entries(headers).filter(([name]) => REPLAYED_HEADERS.includes(name)),
          ),
          body: ref === undefined ? payload : null,
          ref: ref ?? null,
        };
        if (claim.mode === 'committed') {
          await completeIdempotencyRecord(trx, claim.scope, request.id, response);
        } else {
          await insertCompletedIdempotencyRecord(
            trx,
            claim.claim,
            response,
            () => new DuplicateExecution(),
          );
        }
      }
      await result.last?.(trx);
      return { payload, headers, committed: result.committed };
    });
  } catch (error) {
    if (!(error instanceof DuplicateExecution) || claim?.mode !== 'with-operation') throw error;
    return claim.answerDuplicate(reply);
  }
  outcome.committed?.();
  if (claim) {
    claim.completed = true;
    reply.header('idempotency-replayed', 'false');
  }
  return reply.code(status).headers(outcome.headers).send(outcome.payload);
}
