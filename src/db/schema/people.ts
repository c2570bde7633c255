import type { Generated } from 'kysely';
import type { EnvironmentName } from './accounts.js';

// People: dashboard users, their workspaces and sessions, and OAuth clients, grants and tokens.

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
