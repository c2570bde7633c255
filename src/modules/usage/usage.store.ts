import { type Kysely, sql } from 'kysely';
import type { Refusal } from '../../db/deferred-writes.js';
import { deferrable, prepared } from '../../db/prepared.js';
import type {
  CreditLedgerTable,
  Database,
  EnvironmentName,
  UsageEventsTable,
  UsageTotalsTable,
  WorkspaceBillingTable,
} from '../../db/schema.js';

export async function ensureBillingRow(
  db: Kysely<Database>,
  workspaceId: string,
  now: string,
): Promise<void> {
  await db
    .insertInto('workspace_billing')
    .values({ workspace_id: workspaceId, paid_access: 0, credit_balance: 0, updated_at: now })
    .onConflict((oc) => oc.column('workspace_id').doNothing())
    .execute();
}

const selectBilling = prepared((db, p: { workspace_id: string }) =>
  db.selectFrom('workspace_billing').selectAll().where('workspace_id', '=', p.workspace_id),
);

export async function findBilling(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<WorkspaceBillingTable | undefined> {
  return (await selectBilling(db, { workspace_id: workspaceId })).rows[0] as
    | WorkspaceBillingTable
    | undefined;
}

export async function setPaidAccess(
  db: Kysely<Database>,
  workspaceId: string,
  paid: boolean,
  now: string,
): Promise<void> {
  await db
    .updateTable('workspace_billing')
    .set({ paid_access: paid ? 1 : 0, updated_at: now })
    .where('workspace_id', '=', workspaceId)
    .execute();
}

const balanceChange = (
  db: Kysely<Database>,
  p: { workspace_id: string; units: number; min: number; now: string },
) =>
  db
    .updateTable('workspace_billing')
    .set((eb) => ({ credit_balance: eb('credit_balance', '+', p.units), updated_at: p.now }))
    .where('workspace_id', '=', p.workspace_id)
    .where('credit_balance', '>=', p.min);

const updateBalance = prepared(balanceChange);
const debitBalance = deferrable(balanceChange);

/**
 * Moves the balance by `units` (negative to debit) in one conditional statement: a debit that
 * would take the balance below zero changes nothing and returns false. Concurrent debits
 * serialize on the row, so they can never overdraw.
 */
export async function adjustCreditBalance(
  db: Kysely<Database>,
  workspaceId: string,
  units: number,
  now: string,
): Promise<boolean> {
  const result = await updateBalance(db, {
    workspace_id: workspaceId,
    units,
    min: Math.max(0, -units),
    now,
  });
  return Number(result.numAffectedRows) === 1;
}

/**
 * Takes one credit from the balance, or refuses the caller's unit of work with `refusal` when the
 * balance has none: `adjustCreditBalance(-1)` as a gate of the unit (a deferrable write, sent with
 * the unit's other deferred writes on PostgreSQL, so the balance row is locked only while that
 * one statement runs).
 */
export async function debitOneCredit(
  db: Kysely<Database>,
  workspaceId: string,
  now: string,
  refusal: Refusal,
): Promise<void> {
  await debitBalance(db, { workspace_id: workspaceId, units: -1, min: 1, now }, refusal);
}

const insertLedger = deferrable((db, p: CreditLedgerTable) =>
  db.insertInto('credit_ledger').values({
    id: p.id,
    workspace_id: p.workspace_id,
    kind: p.kind,
    units: p.units,
    operation: p.operation,
    note: p.note,
    created_at: p.created_at,
  }),
);

export async function insertLedgerEntry(
  db: Kysely<Database>,
  row: CreditLedgerTable,
): Promise<void> {
  await insertLedger(db, row);
}

export async function sumLedger(db: Kysely<Database>, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('credit_ledger')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('units'), eb.lit(0)).as('total'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

export const insertUsageEvent = deferrable((db, p: UsageEventsTable) =>
  db.insertInto('usage_events').values({
    id: p.id,
    workspace_id: p.workspace_id,
    environment: p.environment,
    source: p.source,
    operation: p.operation,
    billable_units: p.billable_units,
    created_at: p.created_at,
  }),
);

export const addUsageTotals = deferrable((db, p: UsageTotalsTable) =>
  db
    .insertInto('usage_totals')
    .values({
      workspace_id: p.workspace_id,
      environment: p.environment,
      period: p.period,
      source: p.source,
      operation: p.operation,
      requests: p.requests,
      billable_units: p.billable_units,
    })
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'environment', 'period', 'source', 'operation'])
        .doUpdateSet((eb) => ({
          requests: eb('usage_totals.requests', '+', eb.ref('excluded.requests')),
          billable_units: eb('usage_totals.billable_units', '+', eb.ref('excluded.billable_units')),
        })),
    ),
);

export async function listUsageTotals(
  db: Kysely<Database>,
  workspaceId: string,
  environment: EnvironmentName,
  period: string,
): Promise<UsageTotalsTable[]> {
  return db
    .selectFrom('usage_totals')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('environment', '=', environment)
    .where('period', '=', period)
    .orderBy('source')
    .orderBy('operation')
    .execute();
}

/**
 * Requests and billable units per UTC day in [from, to). Timestamps are ISO-8601 UTC text on both
 * dialects, so the day is the text's first ten characters: no date functions that differ between
 * SQLite and PostgreSQL, and the (workspace, environment, created_at) index bounds the scan.
 */
export async function listDailyUsage(
  db: Kysely<Database>,
  workspaceId: string,
  environment: EnvironmentName,
  from: string,
  to: string,
): Promise<Array<{ day: string; requests: number; billable_units: number }>> {
  const day = sql<string>`substr(created_at, 1, 10)`;
  const rows = await db
    .selectFrom('usage_events')
    .select((eb) => [
      day.as('day'),
      eb.fn.countAll<number | string>().as('requests'),
      eb.fn.sum<number | string>('billable_units').as('billable_units'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('environment', '=', environment)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .groupBy(day)
    .orderBy(day)
    .execute();
  // PostgreSQL answers count and sum as bigint text.
  return rows.map((r) => ({
    day: r.day,
    requests: Number(r.requests),
    billable_units: Number(r.billable_units),
  }));
}

/** The newest ledger entries of a workspace (grants and debits), newest first. */
export async function listLedgerEntries(
  db: Kysely<Database>,
  workspaceId: string,
  limit: number,
): Promise<CreditLedgerTable[]> {
  return db
    .selectFrom('credit_ledger')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
