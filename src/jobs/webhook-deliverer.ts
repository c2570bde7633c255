import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../db/database.js';
import { claimDue, LeaseLostError } from '../db/leases.js';
import { type Clock, toTimestamp } from '../lib/clock.js';
import type { Metrics } from '../lib/metrics.js';
import { PACKAGE_VERSION } from '../lib/package-version.js';
import { recordAttempt } from '../modules/webhooks/deliveries.service.js';
import {
  type DeliveryToAttempt,
  DUE_DELIVERIES,
  findDeliveriesToAttempt,
} from '../modules/webhooks/deliveries.store.js';
import {
  type AttemptResult,
  longestAttemptMs,
  type WebhookSender,
} from '../modules/webhooks/sender.js';
import {
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  signatureHeader,
  TIMESTAMP_HEADER,
  timestampHeader,
} from '../modules/webhooks/signature.js';
import { fedLanes, fedLeaseRounds } from './fed-lanes.js';
import { inLanes, type JobLoop } from './job-loop.js';

export const WEBHOOK_USER_AGENT = `firmwatch-webhooks/${PACKAGE_VERSION}`;

export interface DelivererOptions {
  /** This worker's name on the leases it holds (unique per process). */
  owner: string;
  sender: WebhookSender;
  /** How long claimed deliveries are this worker's (default: a batch of the slowest attempts). */
  leaseMs?: number;
  batchSize?: number;
  /** Attempts in flight at once (to different receivers, or the same one over keep-alive). */
  concurrency?: number;
  /** The running loop claims again when fewer claimed deliveries than this wait (default: concurrency). */
  lowWater?: number;
  log?: FastifyBaseLogger;
  /** Counts each attempt by outcome, with its duration (the process's metrics). */
  metrics?: Pick<Metrics, 'webhookAttempt'>;
}

export interface DeliveryTickResult {
  claimed: number;
  delivered: number;
  retrying: number;
  failed: number;
  /** Claims lost to another worker (an expired lease) or failed; tried again later. */
  skipped: number;
}

export interface WebhookDeliverer extends JobLoop {
  /** Claims one batch and attempts all of it (tests drive the deliverer by hand with it). */
  tick(): Promise<DeliveryTickResult>;
  /** Runs the fed lanes of the running loop until nothing is due and every claim is attempted. */
  drain(): Promise<DeliveryTickResult>;
  /** Claims no more, and waits until every delivery already claimed has been attempted. */
  stop(): Promise<void>;
}

/**
 * The webhook delivery worker: claims due deliveries from the outbox with a lease (as the scheduler
 * claims monitors), signs each attempt afresh, sends it through the SSRF-safe sender and records
 * the attempt, all of it only while the lease holds. A worker that dies mid-attempt loses its lease
 * and the delivery is attempted again: delivery is at least once. The running loop keeps its lanes
 * fed (src/jobs/fed-lanes.ts): the next batch is claimed while attempts are in flight.
 */
export function createWebhookDeliverer(
  database: DatabaseHandle,
  deps: { clock: Clock },
  options: DelivererOptions,
): WebhookDeliverer {
  const { db, transact } = database;
  const batchSize = options.batchSize ?? 100;
  const concurrency = options.concurrency ?? 32;
  const lowWater = Math.max(1, Math.min(options.lowWater ?? concurrency, batchSize));
  // Long enough for a whole batch of the slowest attempts, lane after lane, behind the attempts in
  // flight when it was claimed (195 seconds by default): a live worker never loses a claim to a
  // timeout-bound receiver.
  const leaseMs =
    options.leaseMs ?? fedLeaseRounds(batchSize, concurrency) * longestAttemptMs() + 20_000;
  const owner = options.owner;
  type Status = 'delivered' | 'retrying' | 'failed';

  async function attempt(delivery: DeliveryToAttempt): Promise<Status | 'skipped'> {
    const id = delivery.id;
    if (delivery.lease_owner !== owner || delivery.webhook_secret === null) return 'skipped';
    const attemptedAt = deps.clock.now();
    // A claim that waited past its lease may be another worker's now: sending it would duplicate.
    if ((delivery.lease_expires_at ?? '') <= toTimestamp(attemptedAt)) throw new LeaseLostError(id);
    const timestamp = timestampHeader(attemptedAt);
    const result = await options.sender.send({
      url: delivery.url,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': WEBHOOK_USER_AGENT,
        [EVENT_ID_HEADER]: delivery.event_id,
        [TIMESTAMP_HEADER]: timestamp,
        [SIGNATURE_HEADER]: signatureHeader(delivery.webhook_secret, timestamp, delivery.body),
      },
      body: delivery.body,
    });
    const status = await record({ delivery, result, attemptedAt });
    if (status === null) throw new LeaseLostError(id);
    options.metrics?.webhookAttempt(status, result.durationMs / 1000);
    // One line per attempt; never the URL's query, the body, the secret or its signature.
    options.log?.info(
      {
        delivery_id: id,
        event_id: delivery.event_id,
        outcome: status,
        http_status: result.status,
        error_code: result.errorCode,
        duration_ms: result.durationMs,
      },
      'webhook attempt',
    );
    return status;
  }

  // Attempts that finish in the same turn of the event loop are recorded in one unit of work: a
  // worker sending to many receivers at once spends less on transactions than on requests. An
  // attempt whose lease was lost writes nothing, and does not hold back the others.
  type Finished = { delivery: DeliveryToAttempt; result: AttemptResult; attemptedAt: Date };
  let batch: Array<Finished & { settle: (status: Promise<Status | null>) => void }> = [];

  function record(finished: Finished): Promise<Status | null> {
    return new Promise((settle) => {
      if (batch.length === 0) setImmediate(flush);
      batch.push({ ...finished, settle });
    });
  }

  function flush(): void {
    const items = batch;
    batch = [];
    const recorded = transact(async (trx) => {
      const statuses: Array<Status | null> = [];
      const now = deps.clock.now();
      for (const item of items)
        statuses.push(
          await recordAttempt(trx, item.delivery, item.result, item.attemptedAt, { owner, now }),
        );
      return statuses;
    });
    items.forEach((item, index) => {
      item.settle(recorded.then((statuses) => statuses[index] ?? null));
    });
  }

  async function claim(limit: number): Promise<{ claimed: number; items: DeliveryToAttempt[] }> {
    const now = deps.clock.now();
    const ids = await transact((trx) =>
      claimDue(trx, DUE_DELIVERIES, {
        now: toTimestamp(now),
        leaseExpiresAt: toTimestamp(new Date(now.getTime() + leaseMs)),
        owner,
        limit,
      }),
    );
    return { claimed: ids.length, items: await findDeliveriesToAttempt(db, ids) };
  }

  const emptyResult = (): DeliveryTickResult => ({
    claimed: 0,
    delivered: 0,
    retrying: 0,
    failed: 0,
    skipped: 0,
  });

  /** One delivery attempted and counted; never rejects (a lost lease or a failure is skipped). */
  async function attemptCounted(delivery: DeliveryToAttempt, result: DeliveryTickResult) {
    try {
      result[await attempt(delivery)] += 1;
    } catch (error) {
      result.skipped += 1;
      const context = { delivery_id: delivery.id };
      if (error instanceof LeaseLostError) options.log?.info(context, error.message);
      else options.log?.error({ ...context, err: error }, 'webhook delivery failed');
    }
  }

  async function tick(): Promise<DeliveryTickResult> {
    const result = emptyResult();
    const { claimed, items } = await claim(batchSize);
    result.claimed = claimed;
    result.skipped += claimed - items.length;
    await inLanes(items, concurrency, (delivery) => attemptCounted(delivery, result));
    return result;
  }

  function run(idleMs: number | null, onClaimError: (error: unknown) => void) {
    const result = emptyResult();
    const lanes = fedLanes({
      async claim(limit) {
        const claimed = await claim(limit);
        result.claimed += claimed.claimed;
        result.skipped += claimed.claimed - claimed.items.length;
        return claimed;
      },
      work: (delivery) => attemptCounted(delivery, result),
      concurrency,
      batchSize,
      lowWater,
      idleMs,
      onClaimError,
    });
    return { lanes, result };
  }

  async function drain(): Promise<DeliveryTickResult> {
    let failure: unknown;
    const { lanes, result } = run(null, (error) => {
      failure ??= error;
    });
    await lanes.done;
    if (failure !== undefined) throw failure;
    return result;
  }

  let running: ReturnType<typeof run>['lanes'] | undefined;
  return {
    tick,
    drain,
    start(idleMs = 1000) {
      if (running) return;
      running = run(idleMs, (error) => {
        options.log?.error({ err: error }, 'webhook deliverer claim failed');
      }).lanes;
    },
    async stop() {
      const lanes = running;
      running = undefined;
      lanes?.stop();
      await lanes?.done;
    },
  };
}
