import type { Generated, Insertable, Selectable } from 'kysely';

/*
 * Column conventions, identical on SQLite and PostgreSQL so each store is written once:
 * ids are prefixed text, timestamps are ISO-8601 UTC text (see lib/clock.ts), JSON is text.
 */

export interface WorkspacesTable {
  id: string;
  name: string;
  created_at: string;
}

export type EnvironmentName = 'sandbox' | 'live';

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  environment: EnvironmentName;
  name: string | null;
  key_hash: string;
  display_prefix: string;
  /** Space-separated scope names. */
  scopes: string;
  created_at: string;
  revoked_at: string | null;
  /** Written at most once a minute per key and process; null until the key is first used. */
  last_used_at: Generated<string | null>;
}

export interface IdempotencyRecordsTable {
  workspace_id: string;
  environment: EnvironmentName;
  operation: string;
  idempotency_key: string;
  request_path: string;
  request_hash: string;
  state: 'in_progress' | 'completed';
  locked_by: string | null;
  locked_at: string | null;
  response_status: number | null;
  /** JSON object of the response headers that are replayed. */
  response_headers: string | null;
  response_body: string | null;
  /** Id of the stored resource that is the response body, kept instead of `response_body`. */
  response_ref: string | null;
  created_at: string;
  expires_at: string;
}

export interface ServiceSecretsTable {
  name: string;
  value: string;
  created_at: string;
}

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

export type MonitorStatus = 'active' | 'paused' | 'attention';
export type MonitorHealth = 'healthy' | 'source_degraded' | 'needs_credits';

export interface MonitorsTable {
  id: string;
  workspace_id: string;
  environment: EnvironmentName;
  status: MonitorStatus;
  health: MonitorHealth;
  identifier_type: 'vat_number' | 'tax_identifier' | 'registration_number';
  identifier_input: string;
  identifier_normalized: string;
  country_code: string;
  company_name: string | null;
  client_reference: string | null;
  /** JSON object of string values, or null. */
  metadata: string | null;
  cadence: 'daily' | 'weekly' | 'monthly';
  /** JSON array of watched field names. */
  watched_fields: string;
  webhook_url: string | null;
  webhook_secret: string | null;
  baseline_check_id: string;
  latest_check_id: string;
  /** JSON MonitorSnapshot. */
  latest_snapshot: string;
  last_checked_at: string;
  next_check_at: string;
  last_event_at: string | null;
  failure_count: number;
  last_error_code: string | null;
  /** Completed rechecks (scheduled or manual): a sandbox timeline's position. */
  recheck_count: number;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  /** Why its webhook needs attention (`webhook_failed`, `webhook_gone`), or null. */
  webhook_error_code: string | null;
}

export interface MonitorEventsTable {
  id: string;
  workspace_id: string;
  environment: EnvironmentName;
  monitor_id: string;
  type: string;
  severity: 'info' | 'warning' | 'high';
  /** JSON MonitorChange[]. */
  changes: string;
  check_id: string | null;
  /** JSON MonitorSnapshot, or null. */
  snapshot: string | null;
  delivery_status: 'not_configured' | 'pending' | 'delivered' | 'retrying' | 'failed';
  delivery_attempts: number;
  delivered_at: string | null;
  response_status: number | null;
  acknowledged_at: string | null;
  created_at: string;
}

export type WebhookDeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  monitor_id: string;
  /** The URL this delivery goes to: the monitor's when the event was recorded. */
  url: string;
  /** The envelope bytes, fixed when the event was recorded. */
  body: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** Null once delivered or failed. */
  next_attempt_at: string | null;
  last_response_status: number | null;
  last_error_code: string | null;
  created_at: string;
  completed_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
}

/** A redelivery that made an attempt come sooner, counted for the per-event limit. */
export interface WebhookRedeliveriesTable {
  id: string;
  event_id: string;
  /** The delivery it queued or brought forward. */
  delivery_id: string;
  requested_at: string;
}

export interface WebhookDeliveryAttemptsTable {
  delivery_id: string;
  /** 1 for the first attempt of the delivery. */
  number: number;
  attempted_at: string;
  /** The address connected to (or refused), when the host resolved. */
  address: string | null;
  response_status: number | null;
  error_code: string | null;
  error_message: string | null;
  duration_ms: number;
  /** The first bytes of the response body, as text. */
  response_excerpt: string | null;
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
export interface UsersTable {
  id: string;
  /** Lower-cased. */
  email: string;
  /** argon2id, PHC string. */
  password_hash: string;
  created_at: string;
  /** 1 while the password is a generated one-time password that must be changed at sign-in. */
  must_change_password: Generated<number>;
}

export type WorkspaceRole = 'owner' | 'member';

export interface WorkspaceMembersTable {
  workspace_id: string;
  user_id: string;
  role: WorkspaceRole;
  created_at: string;
}

export interface DashboardSessionsTable {
  /** SHA-256 (hex) of the session cookie's token; the token itself is never stored. */
  id: string;
  user_id: string;
  created_at: string;
  last_seen_at: string;
  /** Absolute expiry, whatever the activity. */
  expires_at: string;
  revoked_at: string | null;
}

/** An MCP client registered by dynamic client registration (a public client, no secret). */
export interface OAuthClientsTable {
  id: string;
  name: string;
  /** JSON array of exact redirect URIs. */
  redirect_uris: string;
  created_at: string;
}

export interface OAuthAuthorizationCodesTable {
  /** SHA-256 (hex) of the code; the code itself is never stored. */
  code_hash: string;
  client_id: string;
  user_id: string;
  workspace_id: string;
  environment: EnvironmentName;
  /** Space-separated scope names. */
  scopes: string;
  redirect_uri: string;
  /** S256 challenge (base64url of the verifier's SHA-256). */
  code_challenge: string;
  resource: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** The grant the code was exchanged for. */
  grant_id: string | null;
}

export interface OAuthGrantsTable {
  id: string;
  client_id: string;
  user_id: string;
  workspace_id: string;
  environment: EnvironmentName;
  scopes: string;
  resource: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export type OAuthTokenKind = 'access' | 'refresh';

export interface OAuthTokensTable {
  /** SHA-256 (hex) of the token. */
  token_hash: string;
  grant_id: string;
  kind: OAuthTokenKind;
  created_at: string;
  expires_at: string;
  /** Set when a refresh token has been exchanged (rotation). */
  retired_at: string | null;
}

/** A register mirror and the lease on its import (one importer at a time). */
export interface MirrorsTable {
  name: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
}

export type MirrorVersionState = 'importing' | 'ready' | 'superseded' | 'failed';

export interface MirrorVersionsTable {
  id: string;
  mirror_name: string;
  state: MirrorVersionState;
  retrieved_at: string;
  file: string;
  imported_rows: Generated<number>;
  skipped_rows: Generated<number>;
  skipped_examples: Generated<string>;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  /** Companies added, removed or changed since the version this one superseded (null: none). */
  changed_companies: Generated<number | null>;
  /** Monitors that diff made due now (null: no previous version). */
  monitors_made_due: Generated<number | null>;
}

export interface MirrorCompaniesTable {
  version_id: string;
  register_key: string;
  country_code: string;
  tax_identifier: string | null;
  registration_number: string | null;
  vat_number: string | null;
  legal_name: string;
  folded_name: string;
  company_legal_status: string;
  raw_status: string | null;
  legal_form: string | null;
  incorporation_date: string | null;
  address: string | null;
  city_or_state: string | null;
}

export interface Database {
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  idempotency_records: IdempotencyRecordsTable;
  service_secrets: ServiceSecretsTable;
  companies: CompaniesTable;
  checks: ChecksTable;
  snapshot_allowance_usage: SnapshotAllowanceUsageTable;
  workspace_billing: WorkspaceBillingTable;
  credit_ledger: CreditLedgerTable;
  usage_events: UsageEventsTable;
  usage_totals: UsageTotalsTable;
  monitors: MonitorsTable;
  monitor_events: MonitorEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  webhook_redeliveries: WebhookRedeliveriesTable;
  registry_record_cache: RegistryRecordCacheTable;
  users: UsersTable;
  workspace_members: WorkspaceMembersTable;
  dashboard_sessions: DashboardSessionsTable;
  oauth_clients: OAuthClientsTable;
  oauth_authorization_codes: OAuthAuthorizationCodesTable;
  oauth_grants: OAuthGrantsTable;
  oauth_tokens: OAuthTokensTable;
  mirrors: MirrorsTable;
  mirror_versions: MirrorVersionsTable;
  mirror_companies: MirrorCompaniesTable;
}

export type WorkspaceRow = Selectable<WorkspacesTable>;
export type NewWorkspaceRow = Insertable<WorkspacesTable>;

export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKeyRow = Insertable<ApiKeysTable>;
export type IdempotencyRecordRow = Selectable<IdempotencyRecordsTable>;
export type MonitorRow = Selectable<MonitorsTable>;
export type MonitorEventRow = Selectable<MonitorEventsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookDeliveryAttemptRow = Selectable<WebhookDeliveryAttemptsTable>;
export type UserRow = Selectable<UsersTable>;
export type DashboardSessionRow = Selectable<DashboardSessionsTable>;
export type OAuthClientRow = Selectable<OAuthClientsTable>;
export type OAuthAuthorizationCodeRow = Selectable<OAuthAuthorizationCodesTable>;
export type OAuthGrantRow = Selectable<OAuthGrantsTable>;
export type OAuthTokenRow = Selectable<OAuthTokensTable>;
