import type { Generated } from 'kysely';

// Workspaces, their API keys, the idempotency records of their requests and the service's own secrets.

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

/**
 * One row per running worker (a `firmwatch worker`, or `serve` with WORKER_IN_SERVE): written every
 * few seconds, removed when it stops; `/readyz` of an API node reads whether any worker is alive.
 */
export interface WorkerHeartbeatsTable {
  worker: string;
  started_at: string;
  seen_at: string;
}
