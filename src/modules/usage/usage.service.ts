import type { Kysely } from 'kysely';
import type { CreditLedgerTable, Database, EnvironmentName, UsageSource } from '../../db/schema.js';
import { type Clock, toTimestamp } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import { DomainProblem } from '../../lib/problem.js';
import type { UsageSummary } from './usage.schemas.js';
import {
  addUsageTotals,
  adjustCreditBalance,
  debitOneCredit,
  ensureBillingRow,
  findBilling,
  insertLedgerEntry,
  insertUsageEvent,
  listDailyUsage,
  listLedgerEntries,
  listUsageTotals,
  setPaidAccess,
  sumLedger,
} from './usage.store.js';

/** Operation names recorded in usage (docs/decisions.md); billable in live only. */
export const BILLABLE_OPERATIONS = [
  'checks.create',
  'companies.search',
  'monitors.baseline',
  'monitors.run',
  'monitors.scheduled_check',
] as const;
export type UsageOperation = (typeof BILLABLE_OPERATIONS)[number];

/**
 * What the registers said to an operation: a check's `registry_match_status`, or for a company
 * search `matched` (candidates) or `not_matched` (none). A search no register answered is a 502
 * and records nothing.
 */
export type RegistryOutcome =
  | 'matched'
  | 'not_matched'
  | 'ambiguous'
  | 'unavailable'
  | 'not_supported'
  | 'not_checked';

/**
 * The one credit rule (docs/decisions.md, "Credits for evidence, not for attempts"): a live
 * operation costs one credit only when a register was asked and answered. No register for the
 * number (`not_supported`), an invalid format (`not_checked`, the register was not asked) or
 * every register down (`unavailable`) cost nothing: the caller got no evidence to pay for, and a
 * monitor's retries through an outage must not drain the balance. Sandbox never costs anything.
 */
export function billableUnits(environment: EnvironmentName, outcome: RegistryOutcome): 0 | 1 {
  if (environment !== 'live') return 0;
  return outcome === 'matched' || outcome === 'not_matched' || outcome === 'ambiguous' ? 1 : 0;
}

/** The balance is a 32-bit integer on PostgreSQL; grants are kept well inside it. */
export const MAX_CREDIT_BALANCE = 1_000_000_000;
export const MAX_CREDIT_GRANT = 1_000_000;

export interface UsageDeps {
  clock: Clock;
  newId: IdGenerator;
}

/** What the caller tried, in words, for the 402 details. */
const OPERATION_WORDS: Record<UsageOperation, string> = {
  'checks.create': 'A live check',
  'companies.search': 'A live company search',
  'monitors.baseline': "A live monitor's baseline check",
  'monitors.run': 'A manual run of a live monitor',
  'monitors.scheduled_check': "A live monitor's scheduled recheck",
};

const paidAccessRequired = (operation: UsageOperation, workspaceId: string) =>
  new DomainProblem('paid_access_required', {
    detail: `${OPERATION_WORDS[operation]} is billable and workspace ${workspaceId} has no paid access. The workspace owner can ask the operator of this service to turn it on (firmwatch access --workspace ${workspaceId} --paid on); sandbox keys (svc_test_) work without it, at no cost.`,
  });

const insufficientCredits = (operation: UsageOperation, workspaceId: string, balance: number) =>
  new DomainProblem('insufficient_credits', {
    detail: `${OPERATION_WORDS[operation]} needs a positive credit balance to start (it uses 1 credit only when a register answers) and workspace ${workspaceId} has ${balance}. The workspace owner can ask the operator of this service to add credits (firmwatch credits grant --workspace ${workspaceId} --units <n>); sandbox keys (svc_test_) cost nothing.`,
  });

/**
 * The 402s of `recordOperation`, read without writing anything. Called before an operation's
 * upstream call, so that a live caller who cannot pay costs no registry request and hears 402
 * before any 502; the conditional debit in the operation's unit of work stays the authority (a
 * concurrent request may spend the last credit in between).
 */
export async function assertCanPay(
  db: Kysely<Database>,
  payer: { workspaceId: string; environment: EnvironmentName },
  operation: UsageOperation,
): Promise<void> {
  if (payer.environment !== 'live') return;
  const billing = await findBilling(db, payer.workspaceId);
  if (billing?.paid_access !== 1) throw paidAccessRequired(operation, payer.workspaceId);
  if (billing.credit_balance < 1)
    throw insufficientCredits(operation, payer.workspaceId, billing.credit_balance);
}

/** The calendar month (UTC) containing `date`: [start, end). */
export function usagePeriod(date: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
  const end = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
  return { start, end };
}

export interface UsageInput {
  workspaceId: string;
  environment: EnvironmentName;
  source: UsageSource;
  operation: UsageOperation;
  outcome: RegistryOutcome;
}

/** An operation's usage, half recorded: what is left writes the rows the workspace shares. */
export interface PendingUsage {
  /** The credits the operation costs (for `credits_used`), once `settle` has succeeded. */
  credits_used: number;
  /**
   * The credit debit (402 when the balance cannot pay it) and the period's running totals: rows
   * that every operation of the workspace writes. Run it as the last writes of the unit of work,
   * so that on PostgreSQL concurrent operations of one workspace wait on those rows only for the
   * moment until COMMIT, not for the rest of each other's transactions.
   */
  settle(db: Kysely<Database>): Promise<void>;
}

/**
 * Starts recording one completed operation, in the caller's transaction: in live, requires paid
 * access (402 otherwise, even when nothing is charged: live is never free to use); writes the
 * usage event (0 billable units when uncharged) and, when `billableUnits` says the outcome is
 * charged, the ledger's debit entry. `settle` does the rest. If the operation later fails, the
 * transaction takes all of it back.
 */
export async function startUsage(
  db: Kysely<Database>,
  deps: UsageDeps,
  input: UsageInput,
): Promise<PendingUsage> {
  const now = deps.clock.now();
  const at = toTimestamp(now);
  const units = billableUnits(input.environment, input.outcome);
  if (input.environment === 'live') {
    const billing = await findBilling(db, input.workspaceId);
    if (billing?.paid_access !== 1) throw paidAccessRequired(input.operation, input.workspaceId);
  }
  if (units > 0) {
    await insertLedgerEntry(db, {
      id: deps.newId('crd'),
      workspace_id: input.workspaceId,
      kind: 'debit',
      units: -1,
      operation: input.operation,
      note: null,
      created_at: at,
    });
  }
  await insertUsageEvent(db, {
    id: deps.newId('usg'),
    workspace_id: input.workspaceId,
    environment: input.environment,
    source: input.source,
    operation: input.operation,
    billable_units: units,
    created_at: at,
  });
  return {
    credits_used: units,
    async settle(trx) {
      if (units > 0) {
        await debitOneCredit(trx, input.workspaceId, at, async (db) => {
          // Read after the failed debit: a balance read earlier may have been spent meanwhile.
          const balance = (await findBilling(db, input.workspaceId))?.credit_balance ?? 0;
          return insufficientCredits(input.operation, input.workspaceId, balance);
        });
      }
      await addUsageTotals(trx, {
        workspace_id: input.workspaceId,
        environment: input.environment,
        period: toTimestamp(usagePeriod(now).start),
        source: input.source,
        operation: input.operation,
        requests: 1,
        billable_units: units,
      });
    },
  };
}

/**
 * Records one completed operation in the caller's transaction (`startUsage`, then `settle` at
 * once): for callers whose unit of work writes nothing after it. Returns the credits debited.
 */
export async function recordOperation(
  db: Kysely<Database>,
  deps: UsageDeps,
  input: UsageInput,
): Promise<{ credits_used: number }> {
  const usage = await startUsage(db, deps, input);
  await usage.settle(db);
  return { credits_used: usage.credits_used };
}

/** The usage summary of one environment for the current period, from the running totals. */
export async function summarizeUsage(
  db: Kysely<Database>,
  deps: UsageDeps,
  workspaceId: string,
  environment: EnvironmentName,
): Promise<UsageSummary> {
  const now = deps.clock.now();
  const period = usagePeriod(now);
  const rows = await listUsageTotals(db, workspaceId, environment, toTimestamp(period.start));
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const sources = [...new Set(rows.map((r) => r.source))];
  const billable = sum(rows.map((r) => r.billable_units));
  return {
    environment,
    period: { start: toTimestamp(period.start), end: toTimestamp(period.end) },
    totals: { requests: sum(rows.map((r) => r.requests)), billable_units: billable },
    // No plans with included units exist: nothing is included, nothing "remains".
    allowance: { included_units: null, used_units: billable, remaining_units: null },
    by_source: sources.map((source) => {
      const of = rows.filter((r) => r.source === source);
      return {
        source,
        requests: sum(of.map((r) => r.requests)),
        billable_units: sum(of.map((r) => r.billable_units)),
      };
    }),
    by_operation: rows.map((r) => ({
      operation: r.operation,
      source: r.source,
      requests: r.requests,
      billable_units: r.billable_units,
    })),
    as_of: toTimestamp(now),
  };
}

export interface DailyUsage {
  /** The UTC day, YYYY-MM-DD. */
  date: string;
  requests: number;
  billable_units: number;
}

const DAY_MS = 86_400_000;

/**
 * Requests and billable units of each UTC day of the current period, from its first day to today,
 * counted from the usage events; a day without usage is there with zeros, so a chart of it has no
 * gaps. (The running totals have no day, so this is the one read that scans a month's events.)
 */
export async function dailyUsage(
  db: Kysely<Database>,
  deps: Pick<UsageDeps, 'clock'>,
  workspaceId: string,
  environment: EnvironmentName,
): Promise<{ period: { start: string; end: string }; days: DailyUsage[] }> {
  const now = deps.clock.now();
  const period = usagePeriod(now);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const rows = await listDailyUsage(
    db,
    workspaceId,
    environment,
    toTimestamp(period.start),
    toTimestamp(new Date(today + DAY_MS)),
  );
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const days: DailyUsage[] = [];
  for (let day = period.start.getTime(); day <= today; day += DAY_MS) {
    const date = toTimestamp(new Date(day)).slice(0, 10);
    const row = byDay.get(date);
    days.push({ date, requests: row?.requests ?? 0, billable_units: row?.billable_units ?? 0 });
  }
  return {
    period: { start: toTimestamp(period.start), end: toTimestamp(period.end) },
    days,
  };
}

/** The newest credit ledger entries of a workspace (grants and debits), newest first. */
export async function recentLedger(
  db: Kysely<Database>,
  workspaceId: string,
  limit = 20,
): Promise<CreditLedgerTable[]> {
  return listLedgerEntries(db, workspaceId, limit);
}

/** Operator actions (CLI). */
export async function setWorkspacePaidAccess(
  db: Kysely<Database>,
  deps: UsageDeps,
  workspaceId: string,
  paid: boolean,
): Promise<{ workspace_id: string; paid_access: boolean }> {
  const now = toTimestamp(deps.clock.now());
  await ensureBillingRow(db, workspaceId, now);
  await setPaidAccess(db, workspaceId, paid, now);
  return { workspace_id: workspaceId, paid_access: paid };
}

export async function grantCredits(
  db: Kysely<Database>,
  deps: UsageDeps,
  workspaceId: string,
  units: number,
  note: string | undefined,
): Promise<{ workspace_id: string; granted: number; balance: number }> {
  return db.transaction().execute(async (trx) => {
    const now = toTimestamp(deps.clock.now());
    await ensureBillingRow(trx, workspaceId, now);
    const current = (await findBilling(trx, workspaceId))?.credit_balance ?? 0;
    if (current + units > MAX_CREDIT_BALANCE) {
      throw new Error(`the balance would exceed ${MAX_CREDIT_BALANCE} credits (it is ${current})`);
    }
    await adjustCreditBalance(trx, workspaceId, units, now);
    await insertLedgerEntry(trx, {
      id: deps.newId('crd'),
      workspace_id: workspaceId,
      kind: 'grant',
      units,
      operation: null,
      note: note ?? null,
      created_at: now,
    });
    return {
      workspace_id: workspaceId,
      granted: units,
      balance: (await findBilling(trx, workspaceId))?.credit_balance ?? 0,
    };
  });
}

export async function creditBalance(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<{ workspace_id: string; balance: number; ledger_total: number; paid_access: boolean }> {
  const billing = await findBilling(db, workspaceId);
  return {
    workspace_id: workspaceId,
    balance: billing?.credit_balance ?? 0,
    ledger_total: await sumLedger(db, workspaceId),
    paid_access: billing?.paid_access === 1,
  };
}
