import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Principal } from '../accounts/principal.js';
import { listMonitorNameRows } from './monitors.store.js';

/** What a monitor's name is read from: the API's Monitor, or its row's columns. */
export interface NamedMonitor {
  company_name?: string | null;
  legal_name: string | null;
  identifier: string;
}

/**
 * The name a person knows a monitor by: the company name the caller gave it, else the legal name
 * in its latest snapshot (the register's current one), else its normalised identifier.
 */
export function monitorDisplayName(monitor: NamedMonitor): string {
  return monitor.company_name ?? monitor.legal_name ?? monitor.identifier;
}

/**
 * The names of the monitors of the caller's workspace and environment among `ids`, archived ones
 * too (their events stay listed), in one query for a whole page of events; an id of another
 * workspace or environment gets no name.
 */
export async function monitorNames(
  db: Kysely<Database>,
  principal: Pick<Principal, 'workspaceId' | 'environment'>,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const scope = { workspace_id: principal.workspaceId, environment: principal.environment };
  const rows = await listMonitorNameRows(db, scope, [...new Set(ids)]);
  return new Map(
    rows.map((row) => [
      row.id,
      monitorDisplayName({
        company_name: row.company_name,
        legal_name: (JSON.parse(row.latest_snapshot) as { legal_name: string | null }).legal_name,
        identifier: row.identifier_normalized,
      }),
    ]),
  );
}
