import type { FastifyInstance, FastifyRequest } from 'fastify';
import { containsApiKey } from '../lib/redact.js';
import { environmentOfKey } from '../modules/accounts/api-key-secret.js';
import type { KeyVerifier, Principal } from '../modules/accounts/principal.js';
import type { Scope } from '../modules/accounts/scopes.js';
import { isAccessToken } from '../modules/oauth/token-prefixes.js';
import { HttpProblem } from './problems.js';
import { headerLines } from './protocol-errors.js';
import { isPromise, type RequestHooks } from './request-hooks.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope an authenticated operation requires. */
    scope?: Scope;
    /** Marks an operation that needs no key (discovery, countries, the reference). */
    public?: boolean;
    /**
     * Any valid key, whatever its scopes: the MCP endpoint, whose tools then each need the scope
     * of the operation they run.
     */
    anyScope?: boolean;
  }
  interface FastifyRequest {
    /** Set for every authenticated operation; on public ones, only when a valid key was sent. */
    principal: Principal | undefined;
    /** What the request's credentials came to (public operations report it; see KeyStatus). */
    keyStatus: KeyStatus;
  }
}

/**
 * `none`: no Authorization header. `valid`: a key this service accepts (the principal is set).
 * `unrecognized`: something was sent that is not a valid key (unknown, revoked, mistyped, not a
 * firmwatch key, two headers): public operations never fail on it, so they say it instead.
 */
export type KeyStatus = 'none' | 'valid' | 'unrecognized';
export const KEY_STATUSES: readonly KeyStatus[] = ['none', 'valid', 'unrecognized'];

const REALM = 'Bearer realm="firmwatch"';

/** The 403 of a key or token without the scope an operation needs: RFC 6750's challenge names it. */
export function insufficientScope(scope: Scope, principal: Principal): HttpProblem {
  return new HttpProblem('insufficient_scope', {
    detail: `This operation needs the scope ${scope}; the key has ${principal.scopes.join(', ')}.`,
    headers: { 'www-authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"` },
  });
}

/** Whether an operation authenticates its caller (a scoped operation, or the MCP endpoint). */
export function needsKey(config: { scope?: Scope; anyScope?: boolean }): boolean {
  return config.scope !== undefined || config.anyScope === true;
}

/** The caller of an authenticated operation (the auth hook has set it before any handler runs). */
export function requirePrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('authenticated route without a principal');
  return request.principal;
}

/**
 * How many Authorization header lines the request has. Node keeps only the first of duplicate
 * Authorization headers in `request.headers`, so two keys would otherwise quietly become one;
 * without any, the header lines are not read at all.
 */
function authorizationHeaderCount(request: FastifyRequest): number {
  return request.headers.authorization === undefined ? 0 : headerLines(request, 'authorization');
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
  // A header that is present but not a bearer token is a malformed credential, not a missing one.
  return match ? match[1] : '';
}

function unauthorized(detail: string, error?: string): HttpProblem {
  return new HttpProblem(error ? 'invalid_api_key' : 'authentication_required', {
    detail,
    headers: {
      'www-authenticate': error ? `${REALM}, error="${error}"` : REALM,
    },
  });
}

/** The principal a verifier found, or the 401 of a key or token it does not know. */
function found(
  principal: Principal | undefined | Promise<Principal | undefined>,
  detail: string,
): Principal | Promise<Principal> {
  const known = (p: Principal | undefined): Principal => {
    if (!p) throw unauthorized(detail, 'invalid_token');
    return p;
  };
  return isPromise(principal) ? principal.then(known) : known(principal);
}

/**
 * Resolves the principal of a request's key (or OAuth access token), or throws the 401 it
 * deserves; at once when the verifier has the key cached. Access tokens are accepted only by
 * `/mcp` (`anyScope`) and the operations its tools run in-process: a token is what a user granted
 * an MCP client, not a key for the REST API.
 */
function authenticate(
  request: FastifyRequest,
  verifier: KeyVerifier,
  accessTokens: KeyVerifier | undefined,
): Principal | Promise<Principal> {
  const headers = authorizationHeaderCount(request);
  if (headers > 1) {
    throw unauthorized(
      `The request has ${headers} Authorization headers; send exactly one, with one API key.`,
      'invalid_request',
    );
  }
  const token = bearerToken(request);
  if (token === undefined) {
    throw unauthorized('Send an API key in the header Authorization: Bearer <key>.');
  }
  if (accessTokens && isAccessToken(token)) {
    if (request.routeOptions.config.anyScope !== true && !request.dispatched) {
      throw unauthorized(
        'OAuth access tokens work only on the MCP endpoint (/mcp); the REST API takes an API key.',
        'invalid_token',
      );
    }
    return found(
      accessTokens.verify(token, request.now),
      'The access token has expired or has been revoked.',
    );
  }
  if (environmentOfKey(token) === undefined) {
    throw unauthorized(
      'The Authorization header does not carry a firmwatch API key: keys are "Bearer svc_test_..." or "Bearer svc_live_..." followed by 32 characters.',
      'invalid_token',
    );
  }
  return found(verifier.verify(token, request.now), 'The API key is unknown or has been revoked.');
}

/** Admits the caller of an authenticated operation, or refuses a key without its scope. */
function admit(request: FastifyRequest, principal: Principal): void {
  const { scope } = request.routeOptions.config;
  if (scope && !principal.scopes.includes(scope)) throw insufficientScope(scope, principal);
  request.principal = principal;
  request.keyStatus = 'valid';
}

/** On a public operation: who is asking, if a valid key says so (never a refusal). */
function identify(request: FastifyRequest, principal: Principal | undefined): void {
  request.principal = principal;
  request.keyStatus = principal ? 'valid' : 'unrecognized';
}

/**
 * Authentication for every route: an operation declares `config.scope` (a key with that scope is
 * required) or `config.public` (no key needed). A route that declares neither is refused at
 * start-up, so no endpoint can be left open by omission.
 */
export function registerAuth(
  app: FastifyInstance,
  hooks: RequestHooks,
  verifier: KeyVerifier,
  accessTokens?: KeyVerifier,
): void {
  app.decorateRequest('principal', undefined);
  app.decorateRequest('keyStatus', 'none');

  app.addHook('onRoute', (route) => {
    const config = route.config as
      | { scope?: Scope; public?: boolean; anyScope?: boolean }
      | undefined;
    if (route.url.startsWith('/v1') && !needsKey(config ?? {}) && config?.public !== true) {
      throw new Error(`${route.method} ${route.url} must declare config.scope or config.public`);
    }
  });

  hooks.onRequest.add((request) => {
    // On every path, public or unknown too: a key in a URL may already sit in a proxy's log,
    // and only a refusal tells its owner to rotate it.
    if (containsApiKey(request.url)) {
      throw unauthorized(
        'API keys are accepted only in the Authorization header, never in the URL. A key sent in a URL may have been logged by proxies: revoke it and create a new one.',
        'invalid_request',
      );
    }
    const { config } = request.routeOptions;
    if (config.public) {
      // Public operations never fail on credentials; a valid key only tells them who is asking,
      // and two Authorization headers tell them nothing.
      if (request.dispatchedPrincipal) return identify(request, request.dispatchedPrincipal);
      const headers = authorizationHeaderCount(request);
      if (headers === 0) return;
      if (headers > 1) return identify(request, undefined);
      const token = bearerToken(request);
      if (!token || !environmentOfKey(token)) return identify(request, undefined);
      const principal = verifier.verify(token, request.now);
      if (isPromise(principal)) return principal.then((p) => identify(request, p));
      return identify(request, principal);
    }
    if (!needsKey(config)) return; // no route matched: 404/405 answer
    if (request.dispatchedPrincipal) return admit(request, request.dispatchedPrincipal);
    const principal = authenticate(request, verifier, accessTokens);
    if (isPromise(principal)) return principal.then((p) => admit(request, p));
    admit(request, principal);
  });
}
