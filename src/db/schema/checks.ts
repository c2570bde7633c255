import type { EnvironmentName } from './accounts.js';

// Checks, the companies they find, the snapshot allowance and the registry record cache.

export interface CompaniesTable {
  id: string;
  workspace_id: string;
  environment: EnvironmentName;
  /** The source's own identity of the company: the same company refreshes the same row. */
  source_key: string;
  /** The Company object as the API returns it (JSON). */
  snapshot: string;
  retrieved_at: string;
  created_at: string;
}

export interface ChecksTable {
  id: string;
  workspace_id: string;
  environment: EnvironmentName;
  created_at: string;
  /** The check's `client_reference`, `identifier.normalized` and `identifier.country_code`, for
   * the filters of `GET /checks` (the body stays the one source of the object). */
  client_reference: string | null;
  identifier_normalized: string;
  country_code: string;
  /** The Check object exactly as it was returned (JSON). */
  body: string;
}

export interface SnapshotAllowanceUsageTable {
  workspace_id: string;
  environment: EnvironmentName;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  used: number;
}

export interface RegistryRecordCacheTable {
  source: string;
  /** `<country>:<identifier type>:<normalized identifier>`. */
  lookup_key: string;
  /** JSON LookupResult, never `unavailable`. */
  result: string;
  retrieved_at: string;
  expires_at: string;
}

/** A person who signs in to the dashboard. */
