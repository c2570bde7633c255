import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { ALL_SCOPES } from '../accounts/scopes.js';
import { parseAuthorizationRequest, registerClient } from './oauth.service.js';
import { findClientById } from './oauth.store.js';
import { AuthorizationRequestError, OAuthError } from './oauth-errors.js';
import {
  exchangeAuthorizationCode,
  refreshTokens,
  revokeToken,
  type TokenResult,
} from './oauth-tokens.service.js';

/** Where GET /oauth/authorize sends a valid request: the dashboard's consent page. */
export const CONSENT_PATH = '/dashboard/oauth/consent';

type Form = Record<string, unknown>;
// Public (no key), not API operations: kept out of the OpenAPI document.
const PUBLIC = { config: { public: true }, schema: { hide: true } } as const;
const ANY_QUERY = Type.Unsafe<Form>({ type: 'object', additionalProperties: true });
// Any body: the endpoints read their fields themselves and word the RFCs' errors, but a declared
// schema puts the body through the rules every request meets (U+0000 refused, nul-characters.ts).
const WRITE = { ...PUBLIC, schema: { ...PUBLIC.schema, body: {} } } as const;

/** The fields of a form (or of a JSON object); any other body has none. */
function formOf(body: unknown): Form {
  return isForm(body) ? body : {};
}

const isForm = (body: unknown): body is Form => typeof body === 'object' && body !== null;

function field(form: Form, name: string): string | undefined {
  const value = form[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') {
    throw new OAuthError('invalid_request', `${name} is given more than once or is not text.`);
  }
  return value;
}

function required(form: Form, name: string): string {
  const value = field(form, name);
  if (value === undefined) throw new OAuthError('invalid_request', `${name} is missing.`);
  return value;
}

/** RFC 6749 5.2: a JSON error, 401 for a client that cannot be identified, else 400. */
function sendOAuthError(reply: FastifyReply, error: OAuthError) {
  return reply
    .code(error.error === 'invalid_client' ? 401 : 400)
    .header('cache-control', 'no-store')
    .type('application/json')
    .send(JSON.stringify(error.toJSON()));
}

/**
 * The OAuth 2.1 authorization server for MCP clients (the MCP authorization specification):
 * metadata (RFC 8414), dynamic client registration (RFC 7591), the authorization endpoint (which
 * hands over to the dashboard's consent page), the token endpoint (authorization code with PKCE
 * S256, rotating refresh tokens) and revocation (RFC 7009). Answers are the RFCs' JSON, not
 * Problems, because OAuth clients (the MCP SDK's included) parse those.
 */
export const oauthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, transact, clock, newId, urls } = app.context;
  const deps = { clock, newId };
  // The issuer is the origin the MCP endpoint is served from.
  const issuer = () => urls.mcp().replace(/\/mcp$/, '');

  // Token and revocation requests are form-encoded (RFC 6749 4.1.3, RFC 7009 2.1); the parser is
  // registered in this plugin only, so the JSON API still refuses forms.
  await app.register(formbody);

  app.setErrorHandler((error: Error & { validation?: unknown }, request, reply) => {
    if (error instanceof OAuthError) return sendOAuthError(reply, error);
    // A shared validation rule (U+0000 in a field) is answered as the RFCs answer a bad field:
    // at registration, a bad redirect URI has its own code (RFC 7591 3.2.2).
    if (Array.isArray(error.validation)) {
      const inRedirectUris = (error.validation as Array<{ instancePath?: string }>).every((item) =>
        item.instancePath?.startsWith('/redirect_uris'),
      );
      const code =
        request.routeOptions.url !== '/oauth/register'
          ? 'invalid_request'
          : inRedirectUris
            ? 'invalid_redirect_uri'
            : 'invalid_client_metadata';
      return sendOAuthError(reply, new OAuthError(code, `${error.message}.`));
    }
    throw error;
  });

  app.get('/.well-known/oauth-authorization-server', PUBLIC, async () => ({
    issuer: issuer(),
    authorization_endpoint: `${issuer()}/oauth/authorize`,
    token_endpoint: `${issuer()}/oauth/token`,
    registration_endpoint: `${issuer()}/oauth/register`,
    revocation_endpoint: `${issuer()}/oauth/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: ALL_SCOPES,
    service_documentation: urls.documentation(),
  }));

  app.post('/oauth/register', WRITE, async (request, reply) => {
    const client = await transact((trx) => registerClient(trx, deps, request.body));
    return reply.code(201).header('cache-control', 'no-store').send(client);
  });

  app.get(
    '/oauth/authorize',
    { ...PUBLIC, schema: { ...PUBLIC.schema, querystring: ANY_QUERY } },
    async (request, reply) => {
      try {
        const valid = await parseAuthorizationRequest(db, request.query, urls.mcp());
        const consent = new URLSearchParams({
          response_type: 'code',
          client_id: valid.clientId,
          redirect_uri: valid.redirectUri,
          code_challenge: valid.codeChallenge,
          code_challenge_method: 'S256',
          scope: valid.scopes.join(' '),
          ...(valid.state !== undefined ? { state: valid.state } : {}),
          ...(valid.resource !== undefined ? { resource: valid.resource } : {}),
        });
        return reply.redirect(`${CONSENT_PATH}?${consent}`, 302);
      } catch (error) {
        if (!(error instanceof AuthorizationRequestError)) throw error;
        const location = error.redirectLocation();
        if (location) return reply.redirect(location, 302);
        // Not sent back to an unverified redirect URI: the person in the browser reads it.
        return reply
          .code(400)
          .type('text/plain; charset=utf-8')
          .send(
            `The application's sign-in request is not valid (${error.error}): ${error.description}`,
          );
      }
    },
  );

  app.post('/oauth/token', WRITE, async (request, reply) => {
    const form = formOf(request.body);
    const grantType = required(form, 'grant_type');
    const clientId = required(form, 'client_id');
    if (!(await findClientById(db, clientId))) {
      throw new OAuthError('invalid_client', 'No client is registered with this client_id.');
    }
    let result: TokenResult;
    if (grantType === 'authorization_code') {
      const input = {
        code: required(form, 'code'),
        codeVerifier: required(form, 'code_verifier'),
        redirectUri: required(form, 'redirect_uri'),
        clientId,
        resource: field(form, 'resource'),
      };
      result = await transact((trx) => exchangeAuthorizationCode(trx, deps, input));
    } else if (grantType === 'refresh_token') {
      const input = {
        refreshToken: required(form, 'refresh_token'),
        clientId,
        scope: field(form, 'scope'),
      };
      result = await transact((trx) => refreshTokens(trx, deps, input));
    } else {
      throw new OAuthError(
        'unsupported_grant_type',
        'grant_type is authorization_code or refresh_token.',
      );
    }
    if ('error' in result) return sendOAuthError(reply, result.error);
    return reply
      .header('cache-control', 'no-store')
      .header('pragma', 'no-cache')
      .send(result.tokens);
  });

  app.post('/oauth/revoke', WRITE, async (request, reply) => {
    const form = formOf(request.body);
    const input = { token: required(form, 'token'), clientId: field(form, 'client_id') };
    await transact((trx) => revokeToken(trx, deps, input));
    // RFC 7009 2.2: 200 whether or not the token was known.
    return reply.code(200).header('cache-control', 'no-store').send();
  });
};
