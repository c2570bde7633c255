import { csvRow } from '../../kit/check-csv.js';
import type { Monitor } from './api-types.js';

/**
 * The monitors list download's columns: the Monitor resource flattened (its latest snapshot's
 * name and legal status, watched fields joined by `;`). The resource holds no signing secret, so
 * no column can; metadata (free-form keys) is left to the API and the CLI's JSON.
 */
const MONITOR_COLUMNS = [
  'monitor_id',
  'status',
  'health',
  'identifier_type',
  'identifier',
  'country_code',
  'company_name',
  'legal_name',
  'company_legal_status',
  'client_reference',
  'cadence',
  'watched_fields',
  'webhook_url',
  'baseline_check_id',
  'latest_check_id',
  'last_checked_at',
  'next_check_at',
  'last_event_at',
  'failure_count',
  'last_error_code',
  'created_at',
  'updated_at',
] as const;

export function monitorCsvHeader(): string {
  return `${MONITOR_COLUMNS.join(',')}\n`;
}

export function monitorCsvLine(monitor: Monitor): string {
  const row: Record<(typeof MONITOR_COLUMNS)[number], string | number | undefined | null> = {
    monitor_id: monitor.id,
    status: monitor.status,
    health: monitor.health,
    identifier_type: monitor.identifier.type,
    identifier: monitor.identifier.normalized,
    country_code: monitor.identifier.country_code,
    company_name: monitor.company_name,
    legal_name: monitor.latest_snapshot.legal_name,
    company_legal_status: monitor.latest_snapshot.company_legal_status,
    client_reference: monitor.client_reference,
    cadence: monitor.cadence,
    watched_fields: monitor.watched_fields.join(';'),
    webhook_url: monitor.webhook_url,
    baseline_check_id: monitor.baseline_check_id,
    latest_check_id: monitor.latest_check_id,
    last_checked_at: monitor.last_checked_at,
    next_check_at: monitor.next_check_at,
    last_event_at: monitor.last_event_at,
    failure_count: monitor.failure_count,
    last_error_code: monitor.last_error_code,
    created_at: monitor.created_at,
    updated_at: monitor.updated_at,
  };
  return csvRow(MONITOR_COLUMNS, row);
}
