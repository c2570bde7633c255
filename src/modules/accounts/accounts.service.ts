import type { Kysely } from 'kysely';
import type { ApiKeyRow, Database, EnvironmentName } from '../../db/schema.js';
import { type Clock, toTimestamp } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import { generateApiKey } from './api-key-secret.js';
import {
  findApiKeyById,
  insertApiKey,
  listApiKeysOfWorkspace,
  revokeApiKey as markApiKeyRevoked,
} from './api-keys.store.js';
import { ALL_SCOPES, isScope, type Scope } from './scopes.js';
import {
  anyWorkspaceExists,
  findWorkspaceById,
  insertWorkspace,
  listWorkspacesWithKeyCounts,
} from './workspaces.store.js';

export interface AccountsDeps {
  clock: Clock;
  newId: IdGenerator;
}

export class AccountsError extends Error {
  constructor(
    readonly code: 'workspace_not_found' | 'key_not_found' | 'invalid_scope' | 'invalid_name',
    message: string,
  ) {
    super(message);
    this.name = 'AccountsError';
  }
}

export interface Workspace {
  id: string;
  name: string;
  created_at: string;
}

/** A key as listed: never the secret, only its non-secret prefix. */
export interface ApiKeySummary {
  id: string;
  workspace_id: string;
  environment: EnvironmentName;
  name: string | null;
  display_prefix: string;
  scopes: Scope[];
  created_at: string;
  revoked_at: string | null;
  /** When the key last authenticated a request (to the minute), or null. */
  last_used_at: string | null;
}

/** A key as created: the only time the secret is ever returned. */
export interface CreatedApiKey extends ApiKeySummary {
  key: string;
}

export function parseScopes(stored: string): Scope[] {
  return stored.split(' ').filter(isScope);
}

function toSummary(row: ApiKeyRow): ApiKeySummary {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    environment: row.environment,
    name: row.name,
    display_prefix: row.display_prefix,
    scopes: parseScopes(row.scopes),
    created_at: row.created_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
  };
}

export async function createWorkspace(
  db: Kysely<Database>,
  deps: AccountsDeps,
  input: { name: string },
): Promise<Workspace> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 200) {
    throw new AccountsError('invalid_name', 'a workspace name must have 1 to 200 characters');
  }
  const workspace = { id: deps.newId('ws'), name, created_at: toTimestamp(deps.clock.now()) };
  await insertWorkspace(db, workspace);
  return workspace;
}

/** A workspace as listed for an operator: how many active keys it has in each environment. */
export interface WorkspaceSummary extends Workspace {
  active_keys: { sandbox: number; live: number };
}

export async function listWorkspaces(db: Kysely<Database>): Promise<WorkspaceSummary[]> {
  return (await listWorkspacesWithKeyCounts(db)).map((row) => ({
    id: row.id,
    name: row.name,
    created_at: row.created_at,
    active_keys: { sandbox: row.sandbox_keys, live: row.live_keys },
  }));
}

/** Throws `workspace_not_found` unless the workspace exists (the operator commands name it by id). */
export async function requireWorkspace(db: Kysely<Database>, workspaceId: string): Promise<void> {
  if (!(await findWorkspaceById(db, workspaceId))) {
    throw new AccountsError('workspace_not_found', `no workspace ${workspaceId}`);
  }
}

export async function createApiKey(
  db: Kysely<Database>,
  deps: AccountsDeps,
  input: { workspaceId: string; environment: EnvironmentName; scopes?: string[]; name?: string },
): Promise<CreatedApiKey> {
  await requireWorkspace(db, input.workspaceId);
  const unknown = (input.scopes ?? []).filter((s) => !isScope(s));
  if (unknown.length > 0) {
    throw new AccountsError(
      'invalid_scope',
      `unknown scope ${unknown.join(', ')}; scopes are ${ALL_SCOPES.join(', ')}`,
    );
  }
  const scopes = input.scopes ? [...new Set(input.scopes as Scope[])] : ALL_SCOPES;
  if (scopes.length === 0)
    throw new AccountsError('invalid_scope', 'a key needs at least one scope');
  const secret = generateApiKey(input.environment);
  const row = {
    id: deps.newId('key'),
    workspace_id: input.workspaceId,
    environment: input.environment,
    name: input.name ?? null,
    key_hash: secret.hash,
    display_prefix: secret.displayPrefix,
    scopes: scopes.join(' '),
    created_at: toTimestamp(deps.clock.now()),
    revoked_at: null,
    last_used_at: null,
  };
  await insertApiKey(db, row);
  return { ...toSummary(row), key: secret.key };
}

export async function listApiKeys(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<ApiKeySummary[]> {
  await requireWorkspace(db, workspaceId);
  return (await listApiKeysOfWorkspace(db, workspaceId)).map(toSummary);
}

/** Revokes a key; revoking an already revoked key is not an error and keeps the first time. */
export async function revokeApiKey(
  db: Kysely<Database>,
  deps: AccountsDeps,
  keyId: string,
): Promise<ApiKeySummary> {
  await markApiKeyRevoked(db, keyId, toTimestamp(deps.clock.now()));
  const row = await findApiKeyById(db, keyId);
  if (!row) throw new AccountsError('key_not_found', `no API key ${keyId}`);
  return toSummary(row);
}

/**
 * On an empty embedded database, a newcomer gets a workspace and a sandbox key so the API can be
 * called at once. Does nothing when any workspace exists.
 */
export async function createStarterWorkspace(
  db: Kysely<Database>,
  deps: AccountsDeps,
): Promise<{ workspace: Workspace; key: CreatedApiKey } | undefined> {
  return db.transaction().execute(async (trx) => {
    if (await anyWorkspaceExists(trx)) return undefined;
    const workspace = await createWorkspace(trx, deps, { name: 'Default workspace' });
    const key = await createApiKey(trx, deps, {
      workspaceId: workspace.id,
      environment: 'sandbox',
      name: 'Starter sandbox key',
    });
    return { workspace, key };
  });
}
