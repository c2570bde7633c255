import type { Kysely } from 'kysely';
import type { Database, EnvironmentName } from '../../db/schema.js';

export interface Scope {
  workspace_id: string;
  environment: EnvironmentName;
}

export async function findCompanyBySourceKey(
  db: Kysely<Database>,
  scope: Scope,
  sourceKey: string,
): Promise<{ id: string; created_at: string } | undefined> {
  return db
    .selectFrom('companies')
    .select(['id', 'created_at'])
    .where('workspace_id', '=', scope.workspace_id)
    .where('environment', '=', scope.environment)
    .where('source_key', '=', sourceKey)
    .executeTakeFirst();
}

export async function insertCompany(
  db: Kysely<Database>,
  row: Scope & {
    id: string;
    source_key: string;
    snapshot: string;
    retrieved_at: string;
    created_at: string;
  },
): Promise<void> {
  await db.insertInto('companies').values(row).execute();
}

export async function refreshCompany(
  db: Kysely<Database>,
  id: string,
  snapshot: string,
  retrievedAt: string,
): Promise<void> {
  await db
    .updateTable('companies')
    .set({ snapshot, retrieved_at: retrievedAt })
    .where('id', '=', id)
    .execute();
}

export async function countCompaniesCreatedSince(
  db: Kysely<Database>,
  scope: Scope,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('companies')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', scope.workspace_id)
    .where('environment', '=', scope.environment)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findCompanySnapshot(
  db: Kysely<Database>,
  scope: Scope,
  id: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('companies')
    .select('snapshot')
    .where('id', '=', id)
    .where('workspace_id', '=', scope.workspace_id)
    .where('environment', '=', scope.environment)
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
