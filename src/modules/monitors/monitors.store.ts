import { type Compilable, type Kysely, type RawBuilder, sql } from 'kysely';
import { isPostgres } from '../../db/dialect.js';
import { after, type KeysetPosition } from '../../db/keyset.js';
import { holdsLease, type LeasedTable } from '../../db/leases.js';
import type { Database, MonitorEventsTable, MonitorRow, MonitorsTable } from '../../db/schema.js';
import type { Tenant } from '../tenancy/tenant.js';

/** Monitors the scheduler rechecks: not archived, not paused (the `monitors_due` index). */
export const DUE_MONITORS: LeasedTable = {
  table: 'monitors',
  dueColumn: 'next_check_at',
  eligible: sql<boolean>`archived_at is null and status <> 'paused'`,
};

/**
 * Makes due now the live monitors of one country and identifier type whose number `changed`
 * holds for (given the monitor's `identifier_normalized`): a register mirror's refresh found the
 * company behind it changed. The scheduler then rechecks them through the normal recheck path.
 * Only monitors the scheduler would recheck (DUE_MONITORS: not archived, not paused) and only
 * live ones (a sandbox monitor never reads a register); a sandbox, paused or archived monitor is
 * left as it is. `next_check_at` only ever moves earlier. A monitor whose recheck is in flight
 * (its lease held) may have read the register before the change: its lease is taken back, so that
 * recheck commits nothing (its completion checks the lease) and the next tick rechecks it again.
 * Returns how many monitors were made due.
 */
export async function makeLiveMonitorsDue(
  db: Kysely<Database>,
  request: {
    now: string;
    countryCode: string;
    identifierType: MonitorsTable['identifier_type'];
    changed(number: RawBuilder<string>): RawBuilder<boolean>;
  },
): Promise<number> {
  const { now } = request;
  const result = await db
    .updateTable('monitors')
    .set({
      next_check_at: sql<string>`case when next_check_at > ${now} then ${now} else next_check_at end`,
      lease_owner: null,
      lease_expires_at: null,
    })
    .where('environment', '=', 'live')
    .where(DUE_MONITORS.eligible)
    .where('country_code', '=', request.countryCode)
    .where('identifier_type', '=', request.identifierType)
    .where((eb) => eb.or([eb('next_check_at', '>', now), eb('lease_expires_at', '>', now)]))
    .where(request.changed(sql.ref('monitors.identifier_normalized')))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function insertMonitor(db: Kysely<Database>, row: MonitorsTable): Promise<void> {
  await db.insertInto('monitors').values(row).execute();
}

/** A live (not archived) monitor of this workspace and environment. */
export async function findMonitor(
  db: Kysely<Database>,
  tenant: Tenant,
  id: string,
  { lock = false }: { lock?: boolean } = {},
): Promise<MonitorRow | undefined> {
  let query = db
    .selectFrom('monitors')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', tenant.workspace_id)
    .where('environment', '=', tenant.environment)
    .where('archived_at', 'is', null);
  // A run and a scheduled recheck of one monitor compare against its latest snapshot: on
  // PostgreSQL the row lock makes the second wait for the first, so a change is reported once.
  // SQLite's transactions already run one at a time.
  if (lock && isPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

/**
 * Any monitor by id, whichever workspace owns it (the scheduler acts for all of them). Inside a
 * transaction on PostgreSQL, `lock` holds its row until the transaction ends (see findMonitor).
 */
export async function findMonitorForRecheck(
  db: Kysely<Database>,
  id: string,
  { lock = false }: { lock?: boolean } = {},
): Promise<MonitorRow | undefined> {
  let query = db.selectFrom('monitors').selectAll().where('id', '=', id);
  if (lock && isPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function countLiveMonitors(db: Kysely<Database>, tenant: Tenant): Promise<number> {
  const row = await db
    .selectFrom('monitors')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('workspace_id', '=', tenant.workspace_id)
    .where('environment', '=', tenant.environment)
    .where('archived_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Serialises monitor creation per workspace on PostgreSQL (a row lock on the workspace), so two
 * concurrent creates cannot both take the last slot. SQLite runs one writer at a time.
 */
export async function lockWorkspaceForMonitors(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<void> {
  if (!isPostgres(db)) return;
  await db
    .selectFrom('workspaces')
    .select('id')
    .where('id', '=', workspaceId)
    .forUpdate()
    .execute();
}

export type MonitorUpdate = Partial<Omit<MonitorsTable, 'id' | 'workspace_id' | 'environment'>>;

export async function updateMonitor(
  db: Kysely<Database>,
  id: string,
  changes: MonitorUpdate,
): Promise<void> {
  await db.updateTable('monitors').set(changes).where('id', '=', id).execute();
}

/**
 * A scheduled recheck's update, which also ends its lease: it applies only while the lease is
 * still this worker's. False means the lease was lost (the caller rolls everything back).
 */
export async function completeLeasedRecheck(
  db: Kysely<Database>,
  id: string,
  owner: string,
  now: string,
  changes: MonitorUpdate,
): Promise<boolean> {
  const result = await db
    .updateTable('monitors')
    .set({ ...changes, lease_owner: null, lease_expires_at: null })
    .where('id', '=', id)
    .where(holdsLease(owner, now))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function releaseMonitorLease(
  db: Kysely<Database>,
  id: string,
  owner: string,
): Promise<void> {
  await db
    .updateTable('monitors')
    .set({ lease_owner: null, lease_expires_at: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

/** What `GET /monitors` narrows by, as stored. */
export interface MonitorRowFilters {
  statuses?: readonly MonitorsTable['status'][] | undefined;
  healths?: readonly MonitorsTable['health'][] | undefined;
  clientReference?: string | undefined;
}

export async function listMonitorRows(
  db: Kysely<Database>,
  tenant: Tenant,
  filters: MonitorRowFilters,
  position: KeysetPosition | undefined,
  take: number,
): Promise<MonitorRow[]> {
  return monitorRowsQuery(db, tenant, filters, position, take).execute();
}

/**
 * The statement of listMonitorRows, to run or to read its plan. A filter of one value is one range
 * of its index (`monitors_by_status`, `..._health`, `..._client_reference`) in list order. Several
 * statuses or healths are a page of each combination, merged: with `status in (...)` SQLite (no
 * statistics) reads monitors_list instead, every live monitor of the workspace, to keep the order
 * without a sort.
 */
export function monitorRowsQuery(
  db: Kysely<Database>,
  tenant: Tenant,
  filters: MonitorRowFilters,
  position: KeysetPosition | undefined,
  take: number,
): Compilable<MonitorRow> & { execute(): Promise<MonitorRow[]> } {
  const page = (
    status: MonitorRow['status'] | undefined,
    health: MonitorRow['health'] | undefined,
  ) => {
    let query = db
      .selectFrom('monitors')
      .selectAll()
      .where('workspace_id', '=', tenant.workspace_id)
      .where('environment', '=', tenant.environment)
      .where('archived_at', 'is', null);
    if (status !== undefined) query = query.where('status', '=', status);
    if (health !== undefined) query = query.where('health', '=', health);
    if (filters.clientReference !== undefined)
      query = query.where('client_reference', '=', filters.clientReference);
    return query
      .where(after(position, 'updated_at'))
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(take);
  };
  const [first, ...others] = (filters.statuses ?? [undefined]).flatMap((status) =>
    (filters.healths ?? [undefined]).map((health) => page(status, health)),
  );
  if (!first) throw new Error('no monitor list statement');
  if (others.length === 0) return first;
  let union = db.selectFrom(first.as('combination')).selectAll();
  for (const other of others) {
    union = union.unionAll(db.selectFrom(other.as('combination')).selectAll());
  }
  return union.orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(take);
}

/** What names the monitors among `ids` (archived ones too), for a page of their events. */
export async function listMonitorNameRows(
  db: Kysely<Database>,
  tenant: Tenant,
  ids: string[],
): Promise<
  Array<Pick<MonitorRow, 'id' | 'company_name' | 'latest_snapshot' | 'identifier_normalized'>>
> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('monitors')
    .select(['id', 'company_name', 'latest_snapshot', 'identifier_normalized'])
    .where('workspace_id', '=', tenant.workspace_id)
    .where('environment', '=', tenant.environment)
    .where('id', 'in', ids)
    .execute();
}

export async function insertMonitorEvent(
  db: Kysely<Database>,
  row: MonitorEventsTable,
): Promise<void> {
  await db.insertInto('monitor_events').values(row).execute();
}

export async function findMonitorEvent(
  db: Kysely<Database>,
  tenant: Tenant,
  id: string,
): Promise<MonitorEventsTable | undefined> {
  return db
    .selectFrom('monitor_events')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', tenant.workspace_id)
    .where('environment', '=', tenant.environment)
    .executeTakeFirst();
}

/** What `GET /monitoring-events` narrows by; instants as stored (UTC ISO text), exclusive. */
export interface EventRowFilters {
  monitorId?: string | undefined;
  types?: readonly string[] | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
}

export async function listMonitorEventRows(
  db: Kysely<Database>,
  tenant: Tenant,
  filters: EventRowFilters,
  position: KeysetPosition | undefined,
  take: number,
): Promise<MonitorEventsTable[]> {
  let query = db
    .selectFrom('monitor_events')
    .selectAll()
    .where('workspace_id', '=', tenant.workspace_id)
    .where('environment', '=', tenant.environment);
  if (filters.monitorId !== undefined) query = query.where('monitor_id', '=', filters.monitorId);
  if (filters.types !== undefined) query = query.where('type', 'in', filters.types);
  if (filters.createdAfter !== undefined)
    query = query.where('created_at', '>', filters.createdAfter);
  if (filters.createdBefore !== undefined)
    query = query.where('created_at', '<', filters.createdBefore);
  return query
    .where(after(position))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(take)
    .execute();
}

/**
 * How many monitors the scheduler would recheck now, and when the longest-waiting one fell due
 * (the metrics' backlog): one range of the `monitors_due` index.
 */
export async function dueMonitorsSummary(
  db: Kysely<Database>,
  now: string,
): Promise<{ due: number; oldest_due_at: string | null }> {
  const row = await db
    .selectFrom('monitors')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('due'),
      eb.fn.min('next_check_at').as('oldest_due_at'),
    ])
    .where(DUE_MONITORS.eligible)
    .where('next_check_at', '<=', now)
    .executeTakeFirstOrThrow();
  return { due: Number(row.due), oldest_due_at: row.oldest_due_at };
}

/**
 * Of `numbers` (normalized, of one country and identifier type), those some live monitor watches:
 * a register change feed acts only on companies someone monitors (any workspace: public records
 * are the same for all). One lookup of the `monitors_by_identifier` index per number.
 */
export async function liveWatchedNumbers(
  db: Kysely<Database>,
  request: {
    countryCode: string;
    identifierType: MonitorsTable['identifier_type'];
    numbers: readonly string[];
  },
): Promise<Set<string>> {
  if (request.numbers.length === 0) return new Set();
  const rows = await db
    .selectFrom('monitors')
    .select('identifier_normalized')
    .distinct()
    .where('environment', '=', 'live')
    .where(DUE_MONITORS.eligible)
    .where('country_code', '=', request.countryCode)
    .where('identifier_type', '=', request.identifierType)
    .where('identifier_normalized', 'in', request.numbers)
    .execute();
  return new Set(rows.map((row) => row.identifier_normalized));
}
