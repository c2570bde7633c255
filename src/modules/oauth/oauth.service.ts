import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, EnvironmentName } from '../../db/schema.js';
import { type Clock, toTimestamp } from '../../lib/clock.js';
import { firstControlCharacter } from '../../lib/control-characters.js';
import type { IdGenerator } from '../../lib/ids.js';
import { ALL_SCOPES, isScope, type Scope } from '../accounts/scopes.js';
import { listMembershipsOfUser } from '../users/users.store.js';
import { findClientById, insertAuthorizationCode, insertClient } from './oauth.store.js';
import { AuthorizationRequestError, OAuthError } from './oauth-errors.js';

export interface OAuthDeps {
  clock: Clock;
  newId: IdGenerator;
}

/** A code must be exchanged within a minute: it only has to survive one redirect. */
export const CODE_TTL_MS = 60 * 1000;

const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** SHA-256 (hex) of a code or token: the only form in which they are stored. */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A random secret with a recognisable prefix (256 bits, base64url). */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

// RFC 3986's characters (unreserved, reserved and `%` of an escape): anything else in a URI is
// percent-encoded by whoever writes it, and a parser that did it for us would change the address.
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;

/**
 * A redirect URI may be https anywhere, or http on the loopback interface only: native clients
 * (Claude Code, a desktop app) receive the code on a local port (RFC 8252 7.3), and nothing else
 * may receive a code in clear text. Fragments are refused (RFC 6749 3.1.2). It is used exactly as
 * registered (compared byte for byte, redirected to as it is), so it must be written in URI
 * characters only: the URL parser silently drops a TAB, CR or LF and trims spaces, so a URI with
 * one would be checked and followed as another address than the one registered.
 */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri.length === 0) return 'a redirect URI is a non-empty string';
  if (uri.length > MAX_URI_LENGTH) return `a redirect URI has at most ${MAX_URI_LENGTH} characters`;
  const control = firstControlCharacter(uri);
  if (control)
    return `${JSON.stringify(uri)} holds ${control}, a control character or line separator`;
  if (!URI_CHARACTERS.test(uri)) {
    return `${JSON.stringify(uri)} holds characters a URI does not (RFC 3986): percent-encode them, and write an international host name in its ASCII (xn--) form`;
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URI`;
  }
  if (url.hash !== '' || uri.includes('#')) return `${uri} has a fragment`;
  if (url.username || url.password) return `${uri} carries credentials`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return `${uri} is neither https nor http on the loopback interface (127.0.0.1, localhost, [::1])`;
}

export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
}

function stringList(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return [''];
  return value as string[];
}

/** Dynamic client registration (RFC 7591): public clients with exact redirect URIs. */
export async function registerClient(
  db: Kysely<Database>,
  deps: OAuthDeps,
  metadata: unknown,
): Promise<RegisteredClient> {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new OAuthError(
      'invalid_client_metadata',
      'The body is a JSON object of client metadata.',
    );
  }
  const body = metadata as Record<string, unknown>;
  const uris = body.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris is a non-empty array of URIs.');
  }
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect URIs.`);
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `Not accepted: ${problem}.`);
  }
  const method = body.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    throw new OAuthError(
      'invalid_client_metadata',
      'token_endpoint_auth_method must be "none": clients are public and use PKCE.',
    );
  }
  const grantTypes = stringList(body.grant_types) ?? ['authorization_code', 'refresh_token'];
  if (grantTypes.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
    throw new OAuthError(
      'invalid_client_metadata',
      'grant_types may hold only authorization_code and refresh_token.',
    );
  }
  const responseTypes = stringList(body.response_types) ?? ['code'];
  if (responseTypes.some((r) => r !== 'code')) {
    throw new OAuthError('invalid_client_metadata', 'response_types may hold only code.');
  }
  const name = body.client_name ?? 'MCP client';
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200) {
    throw new OAuthError('invalid_client_metadata', 'client_name is 1 to 200 characters.');
  }
  const now = deps.clock.now();
  const id = deps.newId('oac');
  await insertClient(db, {
    id,
    name: name.trim(),
    redirect_uris: JSON.stringify(uris),
    created_at: toTimestamp(now),
  });
  return {
    client_id: id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: name.trim(),
    redirect_uris: uris as string[],
    grant_types: grantTypes,
    response_types: responseTypes,
    token_endpoint_auth_method: 'none',
  };
}

/** An authorization request that passed every check: what the consent page shows and posts. */
export interface AuthorizationRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
  state: string | undefined;
  /** The scopes the client asked for (all of them when it named none). */
  scopes: Scope[];
  resource: string | undefined;
}

type Parameters = Record<string, unknown>;

function single(parameters: Parameters, name: string): string | undefined {
  const value = parameters[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    throw new OAuthError('invalid_request', `${name} is given more than once.`);
  }
  return value;
}

/**
 * Checks the parameters of `GET /oauth/authorize` (and of the consent form, which carries them
 * again). `resourceUrl` is this server's MCP endpoint, the only resource it issues tokens for.
 */
export async function parseAuthorizationRequest(
  db: Kysely<Database>,
  parameters: Parameters,
  resourceUrl: string,
): Promise<AuthorizationRequest> {
  const fail = (error: OAuthError['error'], description: string): never => {
    throw new AuthorizationRequestError(error, description);
  };
  let clientId: string | undefined;
  let redirectUri: string | undefined;
  try {
    clientId = single(parameters, 'client_id');
    redirectUri = single(parameters, 'redirect_uri');
  } catch (error) {
    fail('invalid_request', (error as OAuthError).description);
  }
  if (!clientId) return fail('invalid_request', 'client_id is missing.');
  const client = await findClientById(db, clientId);
  if (!client) return fail('invalid_client', 'No client is registered with this client_id.');
  const registered = JSON.parse(client.redirect_uris) as string[];
  if (!redirectUri) return fail('invalid_request', 'redirect_uri is missing.');
  // Byte for byte: no normalisation, so what is redirected to is what was registered.
  if (!registered.includes(redirectUri)) {
    return fail('invalid_request', 'redirect_uri is not one the client registered.');
  }
  // Registered before registration refused what the URL parser would drop or rewrite.
  const problem = redirectUriProblem(redirectUri);
  if (problem) return fail('invalid_request', `redirect_uri is not accepted: ${problem}.`);

  // From here on, errors go back to the client's redirect URI.
  let state: string | undefined;
  const back = (error: OAuthError['error'], description: string): never => {
    throw new AuthorizationRequestError(error, description, redirectUri, state);
  };
  try {
    state = single(parameters, 'state');
    const responseType = single(parameters, 'response_type');
    if (responseType !== 'code') {
      return back('unsupported_response_type', 'response_type must be code.');
    }
    const challenge = single(parameters, 'code_challenge');
    const method = single(parameters, 'code_challenge_method');
    if (!challenge) return back('invalid_request', 'code_challenge is required (PKCE).');
    if (method !== 'S256') {
      return back('invalid_request', 'code_challenge_method must be S256; plain is not accepted.');
    }
    if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      return back('invalid_request', 'code_challenge is not a base64url SHA-256 digest.');
    }
    const scope = single(parameters, 'scope');
    const names = scope ? scope.split(' ').filter((s) => s !== '') : [];
    const unknown = names.filter((s) => !isScope(s));
    if (unknown.length > 0) return back('invalid_scope', `Unknown scopes: ${unknown.join(', ')}.`);
    const resource = single(parameters, 'resource');
    if (resource !== undefined && !sameResource(resource, resourceUrl)) {
      return back('invalid_target', `This server issues tokens for ${resourceUrl} only.`);
    }
    return {
      clientId,
      clientName: client.name,
      redirectUri,
      codeChallenge: challenge,
      state,
      scopes: names.length > 0 ? ALL_SCOPES.filter((s) => names.includes(s)) : [...ALL_SCOPES],
      resource,
    };
  } catch (error) {
    if (error instanceof AuthorizationRequestError) throw error;
    return back('invalid_request', (error as OAuthError).description);
  }
}

/** Resource indicators compare as URLs (a trailing slash or case of the host is not a difference). */
export function sameResource(given: string, expected: string): boolean {
  try {
    const a = new URL(given);
    const b = new URL(expected);
    const path = (u: URL) => u.pathname.replace(/\/$/, '');
    return a.origin === b.origin && path(a) === path(b) && a.search === '' && a.hash === '';
  } catch {
    return false;
  }
}

export interface Consent {
  userId: string;
  workspaceId: string;
  environment: string;
  scopes: string[];
}

/**
 * The user's approval of a request: checks that they are a member of the workspace and that the
 * scopes are among those asked for, then issues a single-use code. Returns the code (its hash is
 * stored) for the redirect.
 */
export async function approveAuthorization(
  db: Kysely<Database>,
  deps: OAuthDeps,
  request: AuthorizationRequest,
  consent: Consent,
): Promise<string> {
  const memberships = await listMembershipsOfUser(db, consent.userId);
  if (!memberships.some((m) => m.workspace_id === consent.workspaceId)) {
    throw new OAuthError('access_denied', 'You are not a member of this workspace.');
  }
  if (consent.environment !== 'sandbox' && consent.environment !== 'live') {
    throw new OAuthError('invalid_request', 'Choose the sandbox or the live environment.');
  }
  if (consent.scopes.length === 0) throw new OAuthError('invalid_scope', 'Choose a scope.');
  const outside = consent.scopes.filter((s) => !request.scopes.includes(s as Scope));
  if (outside.length > 0) {
    throw new OAuthError('invalid_scope', `Not asked for by the client: ${outside.join(', ')}.`);
  }
  const code = newSecret('fwac_');
  const now = deps.clock.now();
  await insertAuthorizationCode(db, {
    code_hash: secretHash(code),
    client_id: request.clientId,
    user_id: consent.userId,
    workspace_id: consent.workspaceId,
    environment: consent.environment as EnvironmentName,
    scopes: ALL_SCOPES.filter((s) => consent.scopes.includes(s)).join(' '),
    redirect_uri: request.redirectUri,
    code_challenge: request.codeChallenge,
    resource: request.resource ?? null,
    created_at: toTimestamp(now),
    expires_at: toTimestamp(new Date(now.getTime() + CODE_TTL_MS)),
    used_at: null,
    grant_id: null,
  });
  return code;
}
