import type { EnvironmentName } from './accounts.js';

// Billing, the credit ledger, and usage events with their running totals.

export interface WorkspaceBillingTable {
  workspace_id: string;
  /** 1 when the workspace has paid access (live billable operations allowed). */
  paid_access: number;
  credit_balance: number;
  updated_at: string;
}

export interface CreditLedgerTable {
  id: string;
  workspace_id: string;
  kind: 'grant' | 'debit';
  units: number;
  operation: string | null;
  note: string | null;
  created_at: string;
}

export type UsageSource = 'api' | 'mcp' | 'dashboard' | 'monitoring';

export interface UsageEventsTable {
  id: string;
  workspace_id: string;
  environment: EnvironmentName;
  source: UsageSource;
  operation: string;
  billable_units: number;
  created_at: string;
}

export interface UsageTotalsTable {
  workspace_id: string;
  environment: EnvironmentName;
  /** Start of the calendar month (UTC), ISO timestamp. */
  period: string;
  source: UsageSource;
  operation: string;
  requests: number;
  billable_units: number;
}
