import type { Kysely } from 'kysely';
import type { Transact } from '../../db/group-commit.js';
import type { Database, MonitorRow } from '../../db/schema.js';
import { DomainProblem } from '../../lib/problem.js';
import { assertCanPay } from '../usage/usage.service.js';
import { type MonitorsDeps, monitorPrincipal, recordUnpaidRecheck } from './monitors.service.js';

export type UnpaidCode =
  | 'paid_access_required'
  | 'insufficient_credits'
  | 'simulated_credit_shortage';

/**
 * Why the next recheck of a monitor cannot be paid for, if it cannot: live without paid access or
 * credits, or a sandbox timeline step that simulates a shortage. Read without writing, before the
 * registry is asked.
 */
export async function unpaidReason(
  db: Kysely<Database>,
  deps: MonitorsDeps,
  row: MonitorRow,
): Promise<{ code: UnpaidCode; problem: DomainProblem } | undefined> {
  try {
    await assertCanPay(db, monitorPrincipal(row), 'monitors.run');
  } catch (error) {
    if (
      error instanceof DomainProblem &&
      (error.code === 'paid_access_required' || error.code === 'insufficient_credits')
    ) {
      return { code: error.code, problem: error };
    }
    throw error;
  }
  const source = deps.sourceFor(monitorPrincipal(row));
  const simulated = source.simulatesCreditShortage?.({
    countryCode: row.country_code,
    identifierType: row.identifier_type,
    normalized: row.identifier_normalized,
    recheck: row.recheck_count + 1,
  });
  if (!simulated) return undefined;
  return {
    code: 'simulated_credit_shortage',
    problem: new DomainProblem('insufficient_credits', {
      detail: `Simulated by the sandbox timeline of ${row.identifier_normalized}: this run behaves as if the workspace had no credits, so that vat.monitor.needs_credits can be tried. The next run proceeds; sandbox keys never spend credits.`,
    }),
  };
}

/**
 * Before a manual run: a run that cannot be paid for answers 402, and the monitor records that it
 * needs credits (once, with its event), as a scheduled recheck would; nothing else is written.
 */
export async function assertRunPaid(
  db: Kysely<Database>,
  transact: Transact,
  deps: MonitorsDeps,
  row: MonitorRow,
): Promise<void> {
  const unpaid = await unpaidReason(db, deps, row);
  if (!unpaid) return;
  await transact((trx) => recordUnpaidRecheck(trx, deps, row.id, unpaid.code));
  throw unpaid.problem;
}
