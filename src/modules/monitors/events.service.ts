import type { Kysely } from 'kysely';
import type { Database, MonitorEventsTable, MonitorsTable } from '../../db/schema.js';
import type { Page, PageRequest, Paginator } from '../../http/pagination.js';
import type { Clock } from '../../lib/clock.js';
import { toTimestamp } from '../../lib/clock.js';
import { type IdGenerator, isIdOf } from '../../lib/ids.js';
import { DomainProblem } from '../../lib/problem.js';
import type { Principal } from '../accounts/principal.js';
import { tenantOf } from '../tenancy/tenant.js';
import { enqueueDelivery } from '../webhooks/deliveries.service.js';
import type {
  EventSeverity,
  EventType,
  MonitorChange,
  MonitorEvent,
  MonitorSnapshot,
} from './monitors.schemas.js';
import {
  type EventRowFilters,
  findMonitorEvent,
  insertMonitorEvent,
  listMonitorEventRows,
} from './monitors.store.js';

export interface NewEvent {
  type: EventType;
  severity: EventSeverity;
  changes: MonitorChange[];
  check_id?: string;
  snapshot?: MonitorSnapshot;
}

/**
 * Records an event of a monitor in the caller's transaction. When the monitor has a webhook URL,
 * the event's delivery (`pending`) is written with it, for the delivery worker to send; otherwise
 * its delivery is `not_configured`. Returns the event's id.
 */
export async function recordEvent(
  db: Kysely<Database>,
  deps: { clock: Clock; newId: IdGenerator },
  monitor: Pick<MonitorsTable, 'id' | 'workspace_id' | 'environment' | 'webhook_url'>,
  event: NewEvent,
  now: Date = deps.clock.now(),
): Promise<string> {
  const id = deps.newId('evt');
  const row: MonitorEventsTable = {
    id,
    workspace_id: monitor.workspace_id,
    environment: monitor.environment,
    monitor_id: monitor.id,
    type: event.type,
    severity: event.severity,
    changes: JSON.stringify(event.changes),
    check_id: event.check_id ?? null,
    snapshot: event.snapshot ? JSON.stringify(event.snapshot) : null,
    delivery_status: monitor.webhook_url !== null ? 'pending' : 'not_configured',
    delivery_attempts: 0,
    delivered_at: null,
    response_status: null,
    acknowledged_at: null,
    created_at: toTimestamp(now),
  };
  await insertMonitorEvent(db, row);
  // The outbox: the event and its delivery commit together or not at all.
  if (monitor.webhook_url !== null) await enqueueDelivery(db, deps, row, monitor.webhook_url);
  return id;
}

export function toMonitorEvent(row: MonitorEventsTable): MonitorEvent {
  return {
    id: row.id,
    object: 'vat_monitor_event',
    monitor_id: row.monitor_id,
    type: row.type as EventType,
    severity: row.severity,
    changes: JSON.parse(row.changes),
    ...(row.check_id !== null ? { check_id: row.check_id } : {}),
    ...(row.snapshot !== null ? { snapshot: JSON.parse(row.snapshot) } : {}),
    delivery: {
      status: row.delivery_status,
      attempts: row.delivery_attempts,
      ...(row.delivered_at !== null ? { delivered_at: row.delivered_at } : {}),
      ...(row.response_status !== null ? { response_status: row.response_status } : {}),
    },
    ...(row.acknowledged_at !== null ? { acknowledged_at: row.acknowledged_at } : {}),
    created_at: row.created_at,
  };
}

export async function getMonitorEvent(
  db: Kysely<Database>,
  principal: Principal,
  id: string,
): Promise<MonitorEvent> {
  const row = isIdOf('evt', id) ? await findMonitorEvent(db, tenantOf(principal), id) : undefined;
  if (!row)
    throw new DomainProblem('not_found', { detail: `No monitoring event ${id.slice(0, 100)}.` });
  return toMonitorEvent(row);
}

/** The filters of `GET /monitoring-events` (instants as RFC 3339 text, as validated). */
export interface EventFilters {
  monitor_id?: string;
  type?: EventType[];
  created_after?: string;
  created_before?: string;
}

/** An RFC 3339 instant as stored timestamps are written (UTC, milliseconds), to compare as text. */
function storedInstant(value: string | undefined): string | undefined {
  return value === undefined ? undefined : toTimestamp(new Date(value));
}

/** Newest first; events of archived monitors stay listed (their evidence is kept). */
export async function listMonitorEvents(
  db: Kysely<Database>,
  paginator: Paginator,
  principal: Principal,
  request: PageRequest & EventFilters,
): Promise<Page<MonitorEvent>> {
  const filters: EventRowFilters = {
    monitorId: request.monitor_id,
    types: request.type === undefined ? undefined : [...request.type].sort(),
    createdAfter: storedInstant(request.created_after),
    createdBefore: storedInstant(request.created_before),
  };
  const page = await paginator.page(
    [
      'monitoring-events',
      principal.workspaceId,
      principal.environment,
      filters.monitorId ?? '',
      filters.types?.join(',') ?? '',
      filters.createdAfter ?? '',
      filters.createdBefore ?? '',
    ],
    request,
    (position, take) => listMonitorEventRows(db, tenantOf(principal), filters, position, take),
    (row) => ({ sortValue: row.created_at, id: row.id }),
  );
  return { rows: page.rows.map(toMonitorEvent), pagination: page.pagination };
}
