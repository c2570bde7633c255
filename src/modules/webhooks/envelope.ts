import {
  type MonitorChange,
  type MonitorSnapshot,
  WEBHOOK_API_VERSION,
  type WebhookEnvelope,
} from '../monitors/monitors.schemas.js';

/** What a webhook envelope is made of: an event's fields, parsed. */
export interface EnvelopeFields {
  id: string;
  type: string;
  created_at: string;
  monitor_id: string;
  changes: MonitorChange[];
  check_id?: string | undefined;
  snapshot?: MonitorSnapshot | undefined;
}

/**
 * The webhook body of an event (contract section 6), as the exact bytes every attempt sends.
 * Defined once: the delivery worker builds it from the stored event, and `firmwatch listen` from
 * the event `GET /monitoring-events` returns, so a forwarded request carries the same bytes a
 * delivery to the monitor's URL would.
 */
export function envelopeJson(event: EnvelopeFields): string {
  const envelope: WebhookEnvelope = {
    id: event.id,
    type: event.type as WebhookEnvelope['type'],
    api_version: WEBHOOK_API_VERSION,
    created_at: event.created_at,
    data: {
      monitor_id: event.monitor_id,
      changes: event.changes,
      ...(event.check_id !== undefined ? { check_id: event.check_id } : {}),
      ...(event.snapshot !== undefined ? { snapshot: event.snapshot } : {}),
    },
  };
  return JSON.stringify(envelope);
}
