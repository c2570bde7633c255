import type { MonitorHealth, MonitorRow, MonitorStatus } from '../../db/schema.js';
import type { EventSeverity, EventType, MonitorCadence } from './monitors.schemas.js';

/**
 * The monitor state machine (docs/monitoring.md has the table and the diagram). Every status and
 * health transition of a recheck is decided here, from the monitor as it is and what the recheck
 * found; the service only applies the result.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
export const CADENCE_MS: Record<MonitorCadence, number> = {
  daily: DAY_MS,
  weekly: 7 * DAY_MS,
  monthly: 30 * DAY_MS,
};
export const MONTHLY_CHECKS: Record<MonitorCadence, 1 | 5 | 30> = {
  daily: 30,
  weekly: 5,
  monthly: 1,
};

/** Consecutive failed rechecks after which a degraded source needs someone's attention. */
export const ATTENTION_AFTER_FAILURES = 3;
/** After a failed recheck: 5 minutes, doubling, never more than 6 hours or the cadence. */
const FIRST_RETRY_MS = 5 * 60 * 1000;
const MAX_RETRY_MS = 6 * 60 * 60 * 1000;
/** A monitor that needs credits looks again hourly, and resumes on its own once they are back. */
export const CREDITS_RETRY_MS = 60 * 60 * 1000;

/**
 * A fixed offset per monitor, so monitors created together do not all fall due in the same
 * second: up to an hour (a day's 24th part for shorter intervals), derived from the monitor's id.
 */
export function spreadMs(monitorId: string, intervalMs: number): number {
  let hash = 0;
  for (const char of monitorId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % Math.min(60 * 60 * 1000, Math.floor(intervalMs / 24));
}

export function nextRegularCheck(monitorId: string, cadence: MonitorCadence, from: Date): Date {
  const interval = CADENCE_MS[cadence];
  return new Date(from.getTime() + interval + spreadMs(monitorId, interval));
}

export function retryDelayMs(failures: number, cadence: MonitorCadence): number {
  const backoff = FIRST_RETRY_MS * 2 ** Math.min(Math.max(failures - 1, 0), 16);
  return Math.min(backoff, MAX_RETRY_MS, CADENCE_MS[cadence]);
}

/** Why a monitor's webhook needs attention: its last delivery failed for good, or answered 410. */
export type WebhookErrorCode = 'webhook_failed' | 'webhook_gone';

type StateInputs = Pick<MonitorRow, 'health' | 'failure_count'> & {
  webhook_error_code?: string | null;
};

/** Whether a monitor that is not paused needs attention: credits, an outage, or its webhook. */
function needsAttention(monitor: StateInputs): boolean {
  return (
    monitor.health === 'needs_credits' ||
    (monitor.health === 'source_degraded' && monitor.failure_count >= ATTENTION_AFTER_FAILURES) ||
    (monitor.webhook_error_code ?? null) !== null
  );
}

/** The status a paused monitor resumes to: what its health and webhook call for. */
export function statusWhenResumed(monitor: StateInputs): MonitorStatus {
  return needsAttention(monitor) ? 'attention' : 'active';
}

/**
 * A delivery failed for good (the last scheduled attempt, or a 410 Gone): the monitor needs
 * attention until a delivery succeeds again or its webhook URL is set anew. A paused monitor stays
 * paused; a source's error code, already there, is not hidden.
 */
export function afterWebhookFailure(
  monitor: Pick<MonitorRow, 'status' | 'last_error_code'>,
  code: WebhookErrorCode,
): Pick<MonitorRow, 'status' | 'webhook_error_code' | 'last_error_code'> {
  return {
    status: monitor.status === 'paused' ? 'paused' : 'attention',
    webhook_error_code: code,
    last_error_code: monitor.last_error_code ?? code,
  };
}

/** A delivery succeeded, or the webhook URL was set again: the webhook no longer needs attention. */
export function afterWebhookRecovered(
  monitor: Pick<
    MonitorRow,
    'status' | 'health' | 'failure_count' | 'last_error_code' | 'webhook_error_code'
  >,
): Pick<MonitorRow, 'status' | 'webhook_error_code' | 'last_error_code'> {
  return {
    status:
      monitor.status === 'paused'
        ? 'paused'
        : statusWhenResumed({ ...monitor, webhook_error_code: null }),
    webhook_error_code: null,
    last_error_code:
      monitor.last_error_code === monitor.webhook_error_code ? null : monitor.last_error_code,
  };
}

/** What a recheck (scheduled or manual) found. */
export type RecheckOutcome =
  | { kind: 'observed' }
  | { kind: 'source_unavailable' }
  | {
      kind: 'unpaid';
      code: 'paid_access_required' | 'insufficient_credits' | 'simulated_credit_shortage';
    };

export interface Transition {
  status: MonitorStatus;
  health: MonitorHealth;
  failure_count: number;
  last_error_code: string | null;
  next_check_at: Date;
  /** Operational events this transition emits (a change event is the service's business). */
  events: Array<{ type: EventType; severity: EventSeverity }>;
}

/**
 * The state after a recheck. A paused monitor stays paused whatever a manual run finds; otherwise
 * the status is `attention` while the monitor needs credits or after ATTENTION_AFTER_FAILURES
 * consecutive outages (or while its webhook fails), and `active` again on the first good answer.
 */
export function afterRecheck(
  monitor: Pick<MonitorRow, 'id' | 'status' | 'health' | 'failure_count' | 'cadence'> & {
    webhook_error_code?: string | null;
  },
  outcome: RecheckOutcome,
  now: Date,
): Transition {
  const keep = (status: MonitorStatus) => (monitor.status === 'paused' ? 'paused' : status);
  // A failing webhook keeps the monitor in attention whatever the source does (afterWebhookFailure).
  const webhookError = monitor.webhook_error_code ?? null;
  switch (outcome.kind) {
    case 'observed':
      return {
        status: keep(webhookError !== null ? 'attention' : 'active'),
        health: 'healthy',
        failure_count: 0,
        last_error_code: webhookError,
        next_check_at: nextRegularCheck(monitor.id, monitor.cadence, now),
        events:
          monitor.health === 'source_degraded'
            ? [{ type: 'vat.monitor.source_restored', severity: 'info' }]
            : [],
      };
    case 'source_unavailable': {
      const failures = monitor.failure_count + 1;
      return {
        status: keep(
          failures >= ATTENTION_AFTER_FAILURES || webhookError !== null ? 'attention' : 'active',
        ),
        health: 'source_degraded',
        failure_count: failures,
        last_error_code: 'registry_unavailable',
        next_check_at: new Date(now.getTime() + retryDelayMs(failures, monitor.cadence)),
        // Once per outage, not on every failed tick.
        events:
          monitor.health === 'source_degraded'
            ? []
            : [{ type: 'vat.monitor.source_degraded', severity: 'warning' }],
      };
    }
    case 'unpaid':
      return {
        status: keep('attention'),
        health: 'needs_credits',
        failure_count: monitor.failure_count + 1,
        last_error_code: outcome.code,
        next_check_at: new Date(now.getTime() + CREDITS_RETRY_MS),
        events:
          monitor.health === 'needs_credits'
            ? []
            : [{ type: 'vat.monitor.needs_credits', severity: 'warning' }],
      };
  }
}
