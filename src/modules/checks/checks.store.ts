import type { Compilable, Kysely } from 'kysely';
import { after, type KeysetPosition } from '../../db/keyset.js';
import { deferrable } from '../../db/prepared.js';
import type { ChecksTable, Database } from '../../db/schema.js';
import type { Tenant } from '../tenancy/tenant.js';

export const insertCheck = deferrable((db, p: ChecksTable) =>
  db.insertInto('checks').values({
    id: p.id,
    workspace_id: p.workspace_id,
    environment: p.environment,
    created_at: p.created_at,
    client_reference: p.client_reference,
    identifier_normalized: p.identifier_normalized,
    country_code: p.country_code,
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

/**
 * What `GET /checks` narrows by: exact values as stored (`identifiers` holds every normalised form
 * the filter can stand for), instants as stored (UTC ISO text), exclusive.
 */
export interface CheckRowFilters {
  clientReference?: string | undefined;
  identifiers?: readonly string[] | undefined;
  countryCode?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
}

type CheckListRow = { id: string; created_at: string; body: string };

export async function listCheckRows(
  db: Kysely<Database>,
  tenant: Tenant,
  filters: CheckRowFilters,
  position: KeysetPosition | undefined,
  take: number,
): Promise<CheckListRow[]> {
  return checkRowsQuery(db, tenant, filters, position, take).execute();
}

/** The statement of listCheckRows, to run or to read its plan. */
export function checkRowsQuery(
  db: Kysely<Database>,
  tenant: Tenant,
  filters: CheckRowFilters,
  position: KeysetPosition | undefined,
  take: number,
): Compilable<CheckListRow> & { execute(): Promise<CheckListRow[]> } {
  const page = (identifier: string | undefined) => {
    let query = db
      .selectFrom('checks')
      .select(['id', 'created_at', 'body'])
      .where('workspace_id', '=', tenant.workspace_id)
      .where('environment', '=', tenant.environment);
    if (identifier !== undefined) query = query.where('identifier_normalized', '=', identifier);
    if (filters.clientReference !== undefined)
      query = query.where('client_reference', '=', filters.clientReference);
    if (filters.countryCode !== undefined)
      query = query.where('country_code', '=', filters.countryCode);
    if (filters.createdAfter !== undefined)
      query = query.where('created_at', '>', filters.createdAfter);
    if (filters.createdBefore !== undefined)
      query = query.where('created_at', '<', filters.createdBefore);
    return query
      .where(after(position))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(take);
  };
  const [first, ...others] = filters.identifiers ?? [undefined];
  if (others.length === 0) return page(first);
  // Several forms of one number: a page of each, each one range of checks_by_identifier_normalized
  // in list order, merged. With `identifier_normalized in (...)` SQLite (no statistics) reads
  // checks_list instead, every check of the workspace, to keep the order without a sort.
  let union = db.selectFrom(page(first).as('form')).selectAll();
  for (const other of others)
    union = union.unionAll(db.selectFrom(page(other).as('form')).selectAll());
  return union.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(take);
}
