import type { Kysely } from 'kysely';
import type {
  Database,
  MonitorEventsTable,
  WebhookDeliveryAttemptRow,
  WebhookDeliveryStatus,
} from '../../db/schema.js';
import { toTimestamp } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import { DomainProblem } from '../../lib/problem.js';
import { afterWebhookFailure, afterWebhookRecovered } from '../monitors/monitor-states.js';
import { findMonitorForRecheck, updateMonitor } from '../monitors/monitors.store.js';
import {
  completeLeasedAttempt,
  type DeliveryToAttempt,
  findEventById,
  insertAttempt,
  insertDelivery,
  listAttemptsOfDeliveries,
  listDeliveriesOfEvent,
  recordEventAttempt,
} from './deliveries.store.js';
import { nextAttemptDelayMs } from './delivery-schedule.js';
import { envelopeJson } from './envelope.js';
import type { AttemptResult } from './sender.js';

type EventFields = Pick<
  MonitorEventsTable,
  'id' | 'type' | 'created_at' | 'monitor_id' | 'changes' | 'check_id' | 'snapshot'
>;

/** The webhook body of a stored event (its changes and snapshot are kept as JSON text). */
export function envelopeBody(event: EventFields): string {
  return envelopeJson({
    id: event.id,
    type: event.type,
    created_at: event.created_at,
    monitor_id: event.monitor_id,
    changes: JSON.parse(event.changes),
    check_id: event.check_id ?? undefined,
    snapshot: event.snapshot !== null ? JSON.parse(event.snapshot) : undefined,
  });
}

/**
 * The outbox write: the delivery of a just-recorded event, in the same transaction, to the URL the
 * monitor has now, due at once.
 */
export async function enqueueDelivery(
  db: Kysely<Database>,
  deps: { newId: IdGenerator },
  event: EventFields,
  url: string,
): Promise<void> {
  await insertDelivery(db, {
    id: deps.newId('dlv'),
    event_id: event.id,
    monitor_id: event.monitor_id,
    url,
    body: envelopeBody(event),
    status: 'pending',
    attempts: 0,
    next_attempt_at: event.created_at,
    last_response_status: null,
    last_error_code: null,
    created_at: event.created_at,
    completed_at: null,
    lease_owner: null,
    lease_expires_at: null,
  });
}

export type AttemptVerdict =
  | { status: 'delivered' }
  | { status: 'retrying'; nextAttemptAt: Date }
  | { status: 'failed'; monitorError: 'webhook_failed' | 'webhook_gone' };

/**
 * What an attempt means for its delivery: any 2xx accepts; 410 Gone gives up at once; anything else
 * (a 3xx, which is never followed, another status, no response at all) is retried on the schedule
 * until the attempt limit.
 */
export function judgeAttempt(
  deliveryId: string,
  attempts: number,
  result: Pick<AttemptResult, 'status'>,
  now: Date,
  { once = false }: { once?: boolean } = {},
): AttemptVerdict {
  if (result.status !== null && result.status >= 200 && result.status < 300)
    return { status: 'delivered' };
  if (result.status === 410) return { status: 'failed', monitorError: 'webhook_gone' };
  const delay = once ? null : nextAttemptDelayMs(deliveryId, attempts);
  if (delay === null) return { status: 'failed', monitorError: 'webhook_failed' };
  return { status: 'retrying', nextAttemptAt: new Date(now.getTime() + delay) };
}

/**
 * Records an attempt in the caller's transaction: the delivery log entry, the delivery's new state,
 * the event's `delivery` object (and `acknowledged_at` on the first 2xx), and what a final failure
 * or a recovery means for the monitor. Returns the delivery's new status, or null, writing nothing,
 * when the lease was lost meanwhile. A test event's delivery is attempted once, and only its own
 * rows change: it has no event row, and a receiver's answer to a test says nothing of the monitor.
 */
export async function recordAttempt(
  db: Kysely<Database>,
  delivery: DeliveryToAttempt,
  result: AttemptResult,
  attemptedAt: Date,
  lease: { owner: string; now: Date },
): Promise<AttemptVerdict['status'] | null> {
  const attempts = delivery.attempts + 1;
  const test = delivery.test === 1;
  const verdict = judgeAttempt(delivery.id, attempts, result, lease.now, { once: test });
  const now = toTimestamp(lease.now);
  const finished = verdict.status !== 'retrying';
  const held = await completeLeasedAttempt(
    db,
    delivery.id,
    { owner: lease.owner, now },
    {
      status: verdict.status,
      attempts,
      next_attempt_at: verdict.status === 'retrying' ? toTimestamp(verdict.nextAttemptAt) : null,
      last_response_status: result.status,
      last_error_code: result.errorCode,
      completed_at: finished ? now : null,
    },
  );
  if (!held) return null;
  await insertAttempt(db, {
    delivery_id: delivery.id,
    number: attempts,
    attempted_at: toTimestamp(attemptedAt),
    address: result.address,
    response_status: result.status,
    error_code: result.errorCode,
    error_message: result.errorMessage,
    duration_ms: result.durationMs,
    response_excerpt: result.excerpt,
  });
  if (test) return verdict.status;
  await recordEventAttempt(db, delivery.event_id, {
    status: verdict.status,
    response_status: result.status,
    delivered_at: verdict.status === 'delivered' ? now : null,
  });
  // Only a final failure, or a success while the webhook was failing, changes the monitor.
  const changesMonitor =
    verdict.status === 'failed' ||
    (verdict.status === 'delivered' && delivery.webhook_error_code !== null);
  if (!changesMonitor) return verdict.status;
  const monitor = await findMonitorForRecheck(db, delivery.monitor_id, { lock: true });
  if (monitor && monitor.archived_at === null) {
    const change =
      verdict.status === 'failed'
        ? afterWebhookFailure(monitor, verdict.monitorError)
        : monitor.webhook_error_code !== null
          ? afterWebhookRecovered(monitor)
          : null;
    if (change) await updateMonitor(db, monitor.id, { ...change, updated_at: now });
  }
  return verdict.status;
}

export interface DeliveryLogEntry {
  id: string;
  /** A test event's delivery (`firmwatch events test`), not a real event's. */
  test: boolean;
  url: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  completed_at: string | null;
  /** Every attempt, oldest first. */
  log: Array<Omit<WebhookDeliveryAttemptRow, 'delivery_id'>>;
}

/** The delivery log of an event, oldest delivery first, each with every attempt. */
export async function deliveryLog(
  db: Kysely<Database>,
  eventId: string,
): Promise<DeliveryLogEntry[]> {
  const deliveries = await listDeliveriesOfEvent(db, eventId);
  // A test event has its deliveries and no event row.
  if (!deliveries.some((delivery) => delivery.test === 1) && !(await findEventById(db, eventId)))
    throw new DomainProblem('not_found', { detail: `No monitoring event ${eventId}.` });
  const attempts = await listAttemptsOfDeliveries(
    db,
    deliveries.map((delivery) => delivery.id),
  );
  const byDelivery = new Map<string, WebhookDeliveryAttemptRow[]>();
  for (const attempt of attempts)
    byDelivery.set(attempt.delivery_id, [...(byDelivery.get(attempt.delivery_id) ?? []), attempt]);
  return deliveries.map((delivery) => ({
    id: delivery.id,
    test: delivery.test === 1,
    url: delivery.url,
    status: delivery.status,
    attempts: delivery.attempts,
    next_attempt_at: delivery.next_attempt_at,
    created_at: delivery.created_at,
    completed_at: delivery.completed_at,
    log: (byDelivery.get(delivery.id) ?? []).map(
      ({ delivery_id: _, ...attempt }: WebhookDeliveryAttemptRow) => attempt,
    ),
  }));
}

/**
 * The envelope an event's deliveries carry, as it was signed and sent, or undefined when the event
 * was recorded without a webhook URL. Every delivery of an event carries the same stored bytes (a
 * redelivery copies them), so the first one's are the event's.
 */
export async function deliveredEnvelope(
  db: Kysely<Database>,
  eventId: string,
): Promise<string | undefined> {
  const [first] = await listDeliveriesOfEvent(db, eventId);
  return first?.body;
}
