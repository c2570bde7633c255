import { createHash, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, OAuthGrantRow } from '../../db/schema.js';
import { type Clock, toTimestamp } from '../../lib/clock.js';
import { parseScopes } from '../accounts/accounts.service.js';
import type { Principal } from '../accounts/principal.js';
import { newSecret, type OAuthDeps, sameResource, secretHash } from './oauth.service.js';
import {
  findAuthorizationCode,
  findGrantById,
  findTokenWithGrant,
  type GrantListing,
  insertGrant,
  insertToken,
  listActiveGrantsOfUser,
  markCodeUsed,
  markGrantRevoked,
  retireToken,
  touchGrant,
} from './oauth.store.js';
import { OAuthError } from './oauth-errors.js';
import { ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX } from './token-prefixes.js';

/** Access tokens live an hour: short enough that a leaked one soon stops working on its own. */
export const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
/** A refresh token lives 30 days, and every use replaces it with a new one (rotation). */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
// last_used_at is written at most once a minute per grant, as sessions do.
const TOUCH_EVERY_MS = 60 * 1000;

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/**
 * The result of a token request. A failure is returned, not thrown, because some failures write:
 * a reused code or refresh token revokes its grant, and that must commit with the refusal.
 */
export type TokenResult = { tokens: TokenResponse } | { error: OAuthError };

async function issueTokens(
  db: Kysely<Database>,
  deps: { clock: Clock },
  grant: OAuthGrantRow,
): Promise<TokenResponse> {
  const now = deps.clock.now();
  const access = newSecret(ACCESS_TOKEN_PREFIX);
  const refresh = newSecret(REFRESH_TOKEN_PREFIX);
  for (const [token, kind, ttl] of [
    [access, 'access', ACCESS_TOKEN_TTL_MS],
    [refresh, 'refresh', REFRESH_TOKEN_TTL_MS],
  ] as const) {
    await insertToken(db, {
      token_hash: secretHash(token),
      grant_id: grant.id,
      kind,
      created_at: toTimestamp(now),
      expires_at: toTimestamp(new Date(now.getTime() + ttl)),
      retired_at: null,
    });
  }
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_MS / 1000,
    refresh_token: refresh,
    scope: grant.scopes,
  };
}

/** PKCE S256 (RFC 7636 4.6): base64url(SHA-256(verifier)) equals the challenge. */
function verifierMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

const invalidGrant = (description: string): TokenResult => ({
  error: new OAuthError('invalid_grant', description),
});

/** The authorization_code grant: a single-use code, its PKCE verifier, client and redirect URI. */
export async function exchangeAuthorizationCode(
  db: Kysely<Database>,
  deps: OAuthDeps,
  input: {
    code: string;
    codeVerifier: string;
    redirectUri: string;
    clientId: string;
    resource?: string;
  },
): Promise<TokenResult> {
  const code = await findAuthorizationCode(db, secretHash(input.code));
  if (!code) return invalidGrant('The authorization code is unknown.');
  const now = deps.clock.now();
  if (code.used_at !== null) {
    // RFC 6749 4.1.2: a code used twice may have been stolen; what it issued is revoked.
    if (code.grant_id) await markGrantRevoked(db, code.grant_id, toTimestamp(now));
    return invalidGrant('The authorization code has already been used; its tokens are revoked.');
  }
  if (now >= new Date(code.expires_at)) return invalidGrant('The authorization code has expired.');
  if (code.client_id !== input.clientId) {
    return invalidGrant('The authorization code was issued to another client.');
  }
  if (code.redirect_uri !== input.redirectUri) {
    return invalidGrant('redirect_uri differs from the one of the authorization request.');
  }
  if (!verifierMatches(input.codeVerifier, code.code_challenge)) {
    return invalidGrant('The code_verifier does not match the code_challenge.');
  }
  if (
    input.resource !== undefined &&
    code.resource &&
    !sameResource(input.resource, code.resource)
  ) {
    return { error: new OAuthError('invalid_target', 'resource differs from the authorization.') };
  }
  const grant: OAuthGrantRow = {
    id: deps.newId('oag'),
    client_id: code.client_id,
    user_id: code.user_id,
    workspace_id: code.workspace_id,
    environment: code.environment,
    scopes: code.scopes,
    resource: code.resource,
    created_at: toTimestamp(now),
    last_used_at: null,
    revoked_at: null,
  };
  if (!(await markCodeUsed(db, code.code_hash, toTimestamp(now), grant.id))) {
    return invalidGrant('The authorization code has already been used.');
  }
  await insertGrant(db, grant);
  return { tokens: await issueTokens(db, deps, grant) };
}

/**
 * The refresh_token grant with rotation: the token is retired and a new pair issued. A retired
 * token presented again means two parties hold it, so the whole grant is revoked (OAuth 2.1
 * section 4.3.1, refresh token rotation).
 */
export async function refreshTokens(
  db: Kysely<Database>,
  deps: OAuthDeps,
  input: { refreshToken: string; clientId: string; scope?: string },
): Promise<TokenResult> {
  const found = await findTokenWithGrant(db, secretHash(input.refreshToken), 'refresh');
  if (!found) return invalidGrant('The refresh token is unknown.');
  const { token, grant } = found;
  const now = deps.clock.now();
  if (grant.revoked_at !== null) return invalidGrant('The authorization has been revoked.');
  if (grant.client_id !== input.clientId) {
    return invalidGrant('The refresh token was issued to another client.');
  }
  const reuse = async () => {
    await markGrantRevoked(db, grant.id, toTimestamp(now));
    return invalidGrant('The refresh token has already been used; the authorization is revoked.');
  };
  if (token.retired_at !== null) return reuse();
  if (now >= new Date(token.expires_at)) return invalidGrant('The refresh token has expired.');
  if (input.scope !== undefined) {
    const granted = grant.scopes.split(' ');
    const extra = input.scope.split(' ').filter((s) => s !== '' && !granted.includes(s));
    if (extra.length > 0) {
      return {
        error: new OAuthError('invalid_scope', `Not granted: ${extra.join(', ')}.`),
      };
    }
  }
  if (!(await retireToken(db, token.token_hash, toTimestamp(now)))) return reuse();
  return { tokens: await issueTokens(db, deps, grant) };
}

/**
 * Token revocation (RFC 7009): an access or refresh token ends its whole grant. An unknown token,
 * or one of another client, changes nothing and is not an error (the client cannot tell).
 */
export async function revokeToken(
  db: Kysely<Database>,
  deps: { clock: Clock },
  input: { token: string; clientId?: string },
): Promise<void> {
  const found = await findTokenWithGrant(db, secretHash(input.token));
  if (!found) return;
  if (input.clientId !== undefined && found.grant.client_id !== input.clientId) return;
  await markGrantRevoked(db, found.grant.id, toTimestamp(deps.clock.now()));
}

export interface VerifiedAccessToken {
  principal: Principal;
  /** When the token stops working whatever happens. */
  expiresAt: Date;
}

/**
 * The principal of an access token: the workspace, environment and scopes the user chose. Its
 * `keyId` is the grant's id, so the grant has its own rate-limit bucket, like a key.
 */
export async function verifyAccessToken(
  db: Kysely<Database>,
  deps: { clock: Clock },
  accessToken: string,
): Promise<VerifiedAccessToken | undefined> {
  const found = await findTokenWithGrant(db, secretHash(accessToken), 'access');
  if (!found || found.grant.revoked_at !== null) return undefined;
  const now = deps.clock.now();
  const expiresAt = new Date(found.token.expires_at);
  if (now >= expiresAt) return undefined;
  const { grant } = found;
  const lastUsed = grant.last_used_at ? new Date(grant.last_used_at).getTime() : 0;
  if (now.getTime() - lastUsed >= TOUCH_EVERY_MS) {
    await touchGrant(db, grant.id, toTimestamp(now));
  }
  return {
    principal: {
      workspaceId: grant.workspace_id,
      environment: grant.environment,
      keyId: grant.id,
      scopes: parseScopes(grant.scopes),
    },
    expiresAt,
  };
}

export type AuthorizedClient = GrantListing & { scopeList: string[] };

/** The MCP clients a user has authorized and not revoked. */
export async function listAuthorizedClients(
  db: Kysely<Database>,
  userId: string,
): Promise<AuthorizedClient[]> {
  const grants = await listActiveGrantsOfUser(db, userId);
  return grants.map((g) => ({ ...g, scopeList: g.scopes.split(' ') }));
}

/** Revokes one of the user's grants (its access and refresh tokens stop working); false if none. */
export async function revokeGrantOfUser(
  db: Kysely<Database>,
  deps: { clock: Clock },
  userId: string,
  grantId: string,
): Promise<boolean> {
  const grant = await findGrantById(db, grantId);
  if (!grant || grant.user_id !== userId || grant.revoked_at !== null) return false;
  await markGrantRevoked(db, grant.id, toTimestamp(deps.clock.now()));
  return true;
}
