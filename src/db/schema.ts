import type { Insertable, Selectable } from 'kysely';
import type {
  ApiKeysTable,
  IdempotencyRecordsTable,
  ServiceSecretsTable,
  WorkerHeartbeatsTable,
  WorkspacesTable,
} from './schema/accounts.js';
import type {
  ChecksTable,
  CompaniesTable,
  RegistryRecordCacheTable,
  SnapshotAllowanceUsageTable,
} from './schema/checks.js';
import type {
  FeedPositionsTable,
  MirrorCompaniesTable,
  MirrorsTable,
  MirrorVersionsTable,
} from './schema/mirrors.js';
import type {
  MonitorEventsTable,
  MonitorsTable,
  WebhookDeliveriesTable,
  WebhookDeliveryAttemptsTable,
  WebhookRedeliveriesTable,
} from './schema/monitoring.js';
import type {
  DashboardSessionsTable,
  OAuthAuthorizationCodesTable,
  OAuthClientsTable,
  OAuthGrantsTable,
  OAuthTokensTable,
  UsersTable,
  WorkspaceMembersTable,
} from './schema/people.js';
import type {
  CreditLedgerTable,
  UsageEventsTable,
  UsageTotalsTable,
  WorkspaceBillingTable,
} from './schema/usage.js';

/*
 * Column conventions, identical on SQLite and PostgreSQL so each store is written once:
 * ids are prefixed text, timestamps are ISO-8601 UTC text (see lib/clock.ts), JSON is text.
 * The tables are declared one file per area (schema/); here is the database they make.
 */
export * from './schema/accounts.js';
export * from './schema/checks.js';
export * from './schema/mirrors.js';
export * from './schema/monitoring.js';
export * from './schema/people.js';
export * from './schema/usage.js';

export interface Database {
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  idempotency_records: IdempotencyRecordsTable;
  service_secrets: ServiceSecretsTable;
  worker_heartbeats: WorkerHeartbeatsTable;
  feed_positions: FeedPositionsTable;
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
export type NewWebhookDeliveryRow = Insertable<WebhookDeliveriesTable>;
export type WebhookDeliveryAttemptRow = Selectable<WebhookDeliveryAttemptsTable>;
export type UserRow = Selectable<UsersTable>;
export type DashboardSessionRow = Selectable<DashboardSessionsTable>;
export type OAuthClientRow = Selectable<OAuthClientsTable>;
export type OAuthAuthorizationCodeRow = Selectable<OAuthAuthorizationCodesTable>;
export type OAuthGrantRow = Selectable<OAuthGrantsTable>;
export type OAuthTokenRow = Selectable<OAuthTokensTable>;
