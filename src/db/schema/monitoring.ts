import type { Generated } from 'kysely';
import type { EnvironmentName } from './accounts.js';

// Monitors, their events, and the webhook deliveries of those events with every attempt.

export type MonitorStatus = 'active' | 'paused' | 'attention';
export type MonitorHealth = 'healthy' | 'source_degraded' | 'needs_credits';

export interface MonitorsTable {
  id: string;
  workspace_id: string;
  environment: EnvironmentName;
  status: MonitorStatus;
  health: MonitorHealth;
  identifier_type: 'vat_number' | 'tax_identifier' | 'registration_number';
  identifier_input: string;
  identifier_normalized: string;
  country_code: string;
  company_name: string | null;
  client_reference: string | null;
  /** JSON object of string values, or null. */
  metadata: string | null;
  cadence: 'daily' | 'weekly' | 'monthly';
  /** JSON array of watched field names. */
  watched_fields: string;
  webhook_url: string | null;
  webhook_secret: string | null;
  baseline_check_id: string;
  latest_check_id: string;
  /** JSON MonitorSnapshot. */
  latest_snapshot: string;
  last_checked_at: string;
  next_check_at: string;
  last_event_at: string | null;
  failure_count: number;
  last_error_code: string | null;
  /** Completed rechecks (scheduled or manual): a sandbox timeline's position. */
  recheck_count: number;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  /** Why its webhook needs attention (`webhook_failed`, `webhook_gone`), or null. */
  webhook_error_code: string | null;
}

export interface MonitorEventsTable {
  id: string;
  workspace_id: string;
  environment: EnvironmentName;
  monitor_id: string;
  type: string;
  severity: 'info' | 'warning' | 'high';
  /** JSON MonitorChange[]. */
  changes: string;
  check_id: string | null;
  /** JSON MonitorSnapshot, or null. */
  snapshot: string | null;
  delivery_status: 'not_configured' | 'pending' | 'delivered' | 'retrying' | 'failed';
  delivery_attempts: number;
  delivered_at: string | null;
  response_status: number | null;
  acknowledged_at: string | null;
  created_at: string;
}

export type WebhookDeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  monitor_id: string;
  /** The URL this delivery goes to: the monitor's when the event was recorded. */
  url: string;
  /** The envelope bytes, fixed when the event was recorded. */
  body: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** Null once delivered or failed. */
  next_attempt_at: string | null;
  last_response_status: number | null;
  last_error_code: string | null;
  created_at: string;
  completed_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  /** 1 for a test event's delivery (src/modules/webhooks/test-events.service.ts), else 0. */
  test: Generated<number>;
}

/** A redelivery that made an attempt come sooner, counted for the per-event limit. */
export interface WebhookRedeliveriesTable {
  id: string;
  event_id: string;
  /** The delivery it queued or brought forward. */
  delivery_id: string;
  requested_at: string;
}

export interface WebhookDeliveryAttemptsTable {
  delivery_id: string;
  /** 1 for the first attempt of the delivery. */
  number: number;
  attempted_at: string;
  /** The address connected to (or refused), when the host resolved. */
  address: string | null;
  response_status: number | null;
  error_code: string | null;
  error_message: string | null;
  duration_ms: number;
  /** The first bytes of the response body, as text. */
  response_excerpt: string | null;
}
