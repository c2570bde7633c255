import type { Kysely } from 'kysely';
import { after, type KeysetPosition } from '../../db/keyset.js';
import { prepared } from '../../db/prepared.js';
import type { ChecksTable, Database } from '../../db/schema.js';
import type { Tenant } from '../tenancy/tenant.js';

export const insertCheck = prepared((db, p: ChecksTable) =>
  db.insertInto('checks').values({
    id: p.id,
    workspace_id: p.workspace_id,
    environment: p.environment,
    created_at: p.created_at,
    body: p.body,
  }),
);

export async function findCheckBody(
  db: Kysely<Database>,
  tenant: Tenant,
  id: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('checks')
    .select('body')
    .where('id', '=', id)
    .where('workspace_id', '=', tenant.workspace_id)
    .where('environment', '=', tenant.environment)
    .executeTakeFirst();
  return row?.body;
}

export async function listCheckRows(
  db: Kysely<Database>,
  tenant: Tenant,
  position: KeysetPosition | undefined,
  take: number,
): Promise<Array<{ id: string; created_at: string; body: string }>> {
  return db
    .selectFrom('checks')
    .select(['id', 'created_at', 'body'])
    .where('workspace_id', '=', tenant.workspace_id)
    .where('environment', '=', tenant.environment)
    .where(after(position))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(take)
    .execute();
}
