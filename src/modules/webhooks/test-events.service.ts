import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { type Clock, toTimestamp } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import { DomainProblem } from '../../lib/problem.js';
import { EVENT_TYPES, type EventType } from '../monitors/monitors.schemas.js';
import { findMonitorForRecheck } from '../monitors/monitors.store.js';
import { insertDelivery, listTestDeliveries } from './deliveries.store.js';
import { envelopeJson } from './envelope.js';

/** What every test event's id starts with: inside the signed body, and never a real event's. */
export const TEST_EVENT_PREFIX = 'evt_test_';

export function isTestEventId(id: string): boolean {
  return id.startsWith(TEST_EVENT_PREFIX);
}

export interface TestEventSent {
  event_id: string;
  delivery_id: string;
  monitor_id: string;
  type: EventType;
  url: string;
}

/**
 * `firmwatch events test` and the dashboard's "Send test event": a synthetic event of the chosen
 * type, queued for the monitor's webhook URL through the real delivery path (the worker signs it
 * with the monitor's secret, the delivery log records it). What it says is true of the monitor:
 * its id, its latest check and snapshot, and no changes, since nothing changed; its id starts
 * with `evt_test_` (real ids never hold a second `_`), so a receiver can tell it from a real event
 * by the signed body alone. It has no event row, so `GET /monitoring-events` never lists it, and
 * its delivery is attempted once and never changes the monitor's state. `workspaceId` limits it
 * to one workspace's monitors (the dashboard); the operator's CLI may test any.
 */
export async function sendTestEvent(
  db: Kysely<Database>,
  deps: { clock: Clock; newId: IdGenerator },
  request: { monitorId: string; type?: string | undefined; workspaceId?: string | undefined },
): Promise<TestEventSent> {
  const asked = request.type ?? 'vat.monitor.change_detected';
  const type = EVENT_TYPES.find((candidate) => candidate === asked);
  if (type === undefined)
    throw new DomainProblem('validation_failed', {
      detail: `${asked} is not an event type; use one of ${EVENT_TYPES.join(', ')}.`,
      errors: [{ pointer: '/type', code: 'invalid_enum', message: 'not an event type' }],
    });
  const monitor = await findMonitorForRecheck(db, request.monitorId);
  if (
    !monitor ||
    monitor.archived_at !== null ||
    (request.workspaceId !== undefined && monitor.workspace_id !== request.workspaceId)
  )
    throw new DomainProblem('not_found', { detail: `No monitor ${request.monitorId}.` });
  if (monitor.webhook_url === null)
    throw new DomainProblem('validation_failed', {
      detail: `Monitor ${monitor.id} has no webhook URL to send a test event to; set one with PATCH /v1/monitors/${monitor.id}.`,
    });
  const now = toTimestamp(deps.clock.now());
  const eventId = TEST_EVENT_PREFIX + deps.newId('evt').slice('evt_'.length);
  const deliveryId = deps.newId('dlv');
  await insertDelivery(db, {
    id: deliveryId,
    event_id: eventId,
    monitor_id: monitor.id,
    url: monitor.webhook_url,
    body: envelopeJson({
      id: eventId,
      type,
      created_at: now,
      monitor_id: monitor.id,
      changes: [],
      check_id: monitor.latest_check_id,
      snapshot: JSON.parse(monitor.latest_snapshot),
    }),
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    last_response_status: null,
    last_error_code: null,
    created_at: now,
    completed_at: null,
    lease_owner: null,
    lease_expires_at: null,
    test: 1,
  });
  return {
    event_id: eventId,
    delivery_id: deliveryId,
    monitor_id: monitor.id,
    type,
    url: monitor.webhook_url,
  };
}

export interface TestDelivery {
  event_id: string;
  status: string;
  attempts: number;
  last_response_status: number | null;
  last_error_code: string | null;
  created_at: string;
}

/** A monitor's latest test deliveries, newest first (the dashboard's monitor page). */
export async function recentTestDeliveries(
  db: Kysely<Database>,
  monitorId: string,
  limit = 5,
): Promise<TestDelivery[]> {
  const rows = await listTestDeliveries(db, monitorId, limit);
  return rows.map(
    ({ event_id, status, attempts, last_response_status, last_error_code, created_at }) => ({
      event_id,
      status,
      attempts,
      last_response_status,
      last_error_code,
      created_at,
    }),
  );
}
