import type { MonitorRow, MonitorsTable } from '../../db/schema.js';
import { toTimestamp } from '../../lib/clock.js';
import type { Principal } from '../accounts/principal.js';
import type { CheckCreateRequest } from '../checks/checks.schemas.js';
import { afterRecheck, MONTHLY_CHECKS, type RecheckOutcome } from './monitor-states.js';
import type { Monitor } from './monitors.schemas.js';
import type { MonitorUpdate } from './monitors.store.js';

// What a monitor's row means, shared by its lifecycle (monitors.service.ts) and its rechecks
// (rechecks.service.ts): the API object, whom a recheck acts for, what it asks, and the columns a
// state change writes.

/** A monitor's rechecks act for its workspace and environment, whoever started them. */
export function monitorPrincipal(row: Pick<MonitorRow, 'workspace_id' | 'environment'>): Principal {
  return { workspaceId: row.workspace_id, environment: row.environment, keyId: '', scopes: [] };
}

/** The check request a monitor repeats: its identifier and the caller's own fields. */
export function checkRequestOf(row: MonitorRow): CheckCreateRequest {
  return {
    identifier_type: row.identifier_type,
    identifier: row.identifier_input,
    country_code: row.country_code,
    ...(row.company_name !== null ? { company_name: row.company_name } : {}),
    ...(row.client_reference !== null ? { client_reference: row.client_reference } : {}),
    ...(row.metadata !== null ? { metadata: JSON.parse(row.metadata) } : {}),
  };
}

export function toMonitor(row: MonitorRow): Monitor {
  return {
    id: row.id,
    object: 'vat_monitor',
    environment: row.environment,
    status: row.status,
    health: row.health,
    identifier: {
      type: row.identifier_type,
      input: row.identifier_input,
      normalized: row.identifier_normalized,
      country_code: row.country_code,
    },
    ...(row.company_name !== null ? { company_name: row.company_name } : {}),
    ...(row.client_reference !== null ? { client_reference: row.client_reference } : {}),
    ...(row.metadata !== null ? { metadata: JSON.parse(row.metadata) } : {}),
    cadence: row.cadence,
    watched_fields: JSON.parse(row.watched_fields),
    ...(row.webhook_url !== null ? { webhook_url: row.webhook_url } : {}),
    baseline_check_id: row.baseline_check_id,
    latest_check_id: row.latest_check_id,
    latest_snapshot: JSON.parse(row.latest_snapshot),
    last_checked_at: row.last_checked_at,
    next_check_at: row.next_check_at,
    ...(row.last_event_at !== null ? { last_event_at: row.last_event_at } : {}),
    failure_count: row.failure_count,
    ...(row.last_error_code !== null ? { last_error_code: row.last_error_code } : {}),
    estimated_monthly_checks: MONTHLY_CHECKS[row.cadence],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The state machine's decision (monitor-states.ts), as the columns it changes. */
export function applyTransition(row: MonitorsTable, outcome: RecheckOutcome, now: Date) {
  const next = afterRecheck(row, outcome, now);
  const update: MonitorUpdate = {
    status: next.status,
    health: next.health,
    failure_count: next.failure_count,
    last_error_code: next.last_error_code,
    next_check_at: toTimestamp(next.next_check_at),
  };
  return { update, events: next.events };
}
