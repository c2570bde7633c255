import type { Kysely } from 'kysely';
import { deferrable, prepared } from '../../db/prepared.js';
import type { Database, EnvironmentName } from '../../db/schema.js';
import type { Tenant } from '../tenancy/tenant.js';

const selectBySourceKey = prepared((db, p: Tenant & { source_key: string }) =>
  db
    .selectFrom('companies')
    .select(['id', 'snapshot'])
    .where('workspace_id', '=', p.workspace_id)
    .where('environment', '=', p.environment)
    .where('source_key', '=', p.source_key),
);

export async function findCompanyBySourceKey(
  db: Kysely<Database>,
  tenant: Tenant,
  sourceKey: string,
): Promise<{ id: string; snapshot: string } | undefined> {
  const { rows } = await selectBySourceKey(db, { ...tenant, source_key: sourceKey });
  return rows[0];
}

/** Inserts a new snapshot unless one exists for the source key; true when this call inserted. */
export async function insertCompanyIfAbsent(
  db: Kysely<Database>,
  row: Tenant & {
    id: string;
    source_key: string;
    snapshot: string;
    retrieved_at: string;
    created_at: string;
  },
): Promise<boolean> {
  const result = await db
    .insertInto('companies')
    .values(row)
    .onConflict((oc) => oc.columns(['workspace_id', 'environment', 'source_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

const updateSnapshot = deferrable((db, p: { id: string; snapshot: string; retrieved_at: string }) =>
  db
    .updateTable('companies')
    .set({ snapshot: p.snapshot, retrieved_at: p.retrieved_at })
    .where('id', '=', p.id),
);

export async function refreshCompany(
  db: Kysely<Database>,
  id: string,
  snapshot: string,
  retrievedAt: string,
): Promise<void> {
  await updateSnapshot(db, { id, snapshot, retrieved_at: retrievedAt });
}

/**
 * Adds `count` to the day's usage only if the total stays within `allowance`, in one statement:
 * concurrent requests serialize on the row, so together they never exceed it. Returns the new
 * total, or undefined when the allowance would be exceeded (nothing is added).
 */
export async function reserveSnapshotAllowance(
  db: Kysely<Database>,
  tenant: Tenant,
  day: string,
  count: number,
  allowance: number,
): Promise<number | undefined> {
  if (count > allowance) return undefined;
  const row = await db
    .insertInto('snapshot_allowance_usage')
    .values({ ...tenant, day, used: count })
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'environment', 'day'])
        .doUpdateSet((eb) => ({
          used: eb('snapshot_allowance_usage.used', '+', eb.ref('excluded.used')),
        }))
        .where((eb) =>
          eb(eb('snapshot_allowance_usage.used', '+', eb.ref('excluded.used')), '<=', allowance),
        ),
    )
    .returning('used')
    .executeTakeFirst();
  return row?.used;
}

export async function findSnapshotAllowanceUsage(
  db: Kysely<Database>,
  tenant: Tenant,
  day: string,
): Promise<number> {
  const row = await db
    .selectFrom('snapshot_allowance_usage')
    .select('used')
    .where('workspace_id', '=', tenant.workspace_id)
    .where('environment', '=', tenant.environment)
    .where('day', '=', day)
    .executeTakeFirst();
  return row?.used ?? 0;
}

export async function findCompanySnapshot(
  db: Kysely<Database>,
  tenant: Tenant,
  id: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('companies')
    .select('snapshot')
    .where('id', '=', id)
    .where('workspace_id', '=', tenant.workspace_id)
    .where('environment', '=', tenant.environment)
    .executeTakeFirst();
  return row?.snapshot;
}

/** Deletes snapshots of one environment last retrieved before `before`; returns how many. */
export async function purgeCompaniesRetrievedBefore(
  db: Kysely<Database>,
  environment: EnvironmentName,
  before: string,
): Promise<number> {
  const result = await db
    .deleteFrom('companies')
    .where('environment', '=', environment)
    .where('retrieved_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
