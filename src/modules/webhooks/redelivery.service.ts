import type { Kysely } from 'kysely';
import type { Database, NewWebhookDeliveryRow, WebhookDeliveryRow } from '../../db/schema.js';
import { type Clock, toTimestamp } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import { DomainProblem } from '../../lib/problem.js';
import { findMonitorForRecheck } from '../monitors/monitors.store.js';
import { envelopeBody } from './deliveries.service.js';
import {
  findEventById,
  listDeliveriesOfEvent,
  updateDelivery,
  updateEventDelivery,
} from './deliveries.store.js';
import {
  insertOpenDelivery,
  listRedeliveriesAfter,
  recordRedelivery,
} from './redeliveries.store.js';

/**
 * At most this many redeliveries of one event in any period this long. Only a redelivery that makes
 * an attempt come sooner counts (a new delivery, or a retrying one brought forward): without a
 * limit a member could make the dashboard send a receiver the same event over and over.
 */
export const REDELIVERY_LIMIT = { redeliveries: 10, periodMs: 60 * 60_000 } as const;

export interface RedeliveryResult {
  delivery_id: string;
  /**
   * True when the event already had an open delivery (pending or retrying): no delivery was added,
   * and that one's next attempt is due now (brought forward if it was later).
   */
  brought_forward: boolean;
  url: string;
}

type Deps = { clock: Clock; newId: IdGenerator };

/** Refuses a redelivery beyond the limit, with the time the oldest counted one stops counting. */
async function ensureUnderLimit(db: Kysely<Database>, eventId: string, now: Date): Promise<void> {
  const { redeliveries, periodMs } = REDELIVERY_LIMIT;
  const counted = await listRedeliveriesAfter(
    db,
    eventId,
    toTimestamp(new Date(now.getTime() - periodMs)),
  );
  if (counted.length < redeliveries) return;
  const freeAt = new Date(new Date(counted[0] as string).getTime() + periodMs);
  const waitMs = freeAt.getTime() - now.getTime();
  const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
  throw new DomainProblem('rate_limited', {
    detail: `Event ${eventId} was redelivered ${counted.length} times in the last ${periodMs / 60_000} minutes, the most one event may be. Redeliver it again after ${toTimestamp(freeAt)} (in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}).`,
    retryAfter: Math.max(1, Math.ceil(waitMs / 1000)),
  });
}

async function countRedelivery(
  db: Kysely<Database>,
  deps: Deps,
  delivery: Pick<WebhookDeliveryRow, 'id' | 'event_id'>,
) {
  const now = deps.clock.now();
  await recordRedelivery(
    db,
    {
      id: deps.newId('rdl'),
      event_id: delivery.event_id,
      delivery_id: delivery.id,
      requested_at: toTimestamp(now),
    },
    toTimestamp(new Date(now.getTime() - REDELIVERY_LIMIT.periodMs)),
  );
}

/**
 * The open delivery asked for again: nothing changes when its attempt is already due or under way
 * (a worker's lease); a retrying one is brought forward to now, which counts towards the limit.
 * Not writing a leased delivery also keeps the row locks in one order on PostgreSQL: a worker
 * recording an attempt holds the delivery's row and then takes the event's, which this transaction
 * took first, so it must not then wait for that delivery.
 */
async function bringForward(
  db: Kysely<Database>,
  deps: Deps,
  open: WebhookDeliveryRow,
): Promise<RedeliveryResult> {
  const now = deps.clock.now();
  const at = toTimestamp(now);
  const result = { delivery_id: open.id, brought_forward: true, url: open.url };
  const due = open.next_attempt_at !== null && open.next_attempt_at <= at;
  const leased = open.lease_expires_at !== null && open.lease_expires_at > at;
  if (due || leased) return result;
  await ensureUnderLimit(db, open.event_id, now);
  await updateDelivery(db, open.id, { next_attempt_at: at });
  await countRedelivery(db, deps, open);
  return result;
}

/**
 * `firmwatch events redeliver` and the dashboard's Redeliver: the event's body again, signed afresh
 * at its attempt, to the monitor's webhook URL now. An event has at most one open delivery (a
 * unique index), and concurrent requests all get the same answer: the first queues a delivery, the
 * others find it open. The event's row lock (PostgreSQL) makes them take turns, so the limit's count
 * is exact; the index holds even for a path that forgets the lock.
 */
export async function redeliverEvent(
  db: Kysely<Database>,
  deps: Deps,
  eventId: string,
): Promise<RedeliveryResult> {
  const now = deps.clock.now();
  const event = await findEventById(db, eventId, { lock: true });
  if (!event) throw new DomainProblem('not_found', { detail: `No monitoring event ${eventId}.` });
  const deliveries = await listDeliveriesOfEvent(db, eventId);
  const open = deliveries.find((delivery) => delivery.next_attempt_at !== null);
  if (open) return bringForward(db, deps, open);
  const monitor = await findMonitorForRecheck(db, event.monitor_id);
  if (!monitor?.webhook_url)
    throw new DomainProblem('validation_failed', {
      detail: `Monitor ${event.monitor_id} has no webhook URL to deliver ${eventId} to; set one with PATCH /v1/monitors/${event.monitor_id}.`,
    });
  await ensureUnderLimit(db, event.id, now);
  const at = toTimestamp(now);
  const delivery: NewWebhookDeliveryRow = {
    id: deps.newId('dlv'),
    event_id: event.id,
    monitor_id: event.monitor_id,
    url: monitor.webhook_url,
    // The body as first sent, byte for byte; an event never delivered gets the same bytes anew.
    body: deliveries.at(-1)?.body ?? envelopeBody(event),
    status: 'pending',
    attempts: 0,
    next_attempt_at: at,
    last_response_status: null,
    last_error_code: null,
    created_at: at,
    completed_at: null,
    lease_owner: null,
    lease_expires_at: null,
  };
  if (!(await insertOpenDelivery(db, delivery))) {
    // Another transaction queued one first (only possible without the lock): that one is the answer.
    const queued = (await listDeliveriesOfEvent(db, eventId)).find(
      (candidate) => candidate.next_attempt_at !== null,
    );
    if (queued) return { delivery_id: queued.id, brought_forward: true, url: queued.url };
    throw new DomainProblem('service_unavailable', {
      detail: `Another redelivery of ${eventId} was being queued at the same moment; try again.`,
    });
  }
  await countRedelivery(db, deps, delivery);
  await updateEventDelivery(db, event.id, { delivery_status: 'pending' });
  return { delivery_id: delivery.id, brought_forward: false, url: monitor.webhook_url };
}
