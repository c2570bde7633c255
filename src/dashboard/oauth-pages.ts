import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import {
  type AuthorizationRequest,
  approveAuthorization,
  parseAuthorizationRequest,
} from '../modules/oauth/oauth.service.js';
import {
  AuthorizationRequestError,
  OAuthError,
  redirectWith,
} from '../modules/oauth/oauth-errors.js';
import { listAuthorizedClients, revokeGrantOfUser } from '../modules/oauth/oauth-tokens.service.js';
import type { User } from '../modules/users/users.service.js';
import { errorPage } from './layout.js';
import { authorizedClientsPage, consentPage } from './oauth-views.js';
import type { RegisterPages } from './pages/context.js';
import { field, formOf } from './pages/form-parts.js';
import { IdParams, WorkspaceQuery } from './pages/page-parts.js';

/** The authorization request's parameters, as GET /oauth/authorize handed them over. */
const ANY_QUERY = Type.Record(Type.String(), Type.Unknown(), { additionalProperties: true });

/**
 * The dashboard's share of OAuth: the consent page that GET /oauth/authorize hands over to (the
 * person picks the workspace, the environment and the scopes), and the list of authorized MCP
 * clients with a revoke button. Consent is a CSRF-protected form like every other.
 */
export const registerOAuthPages: RegisterPages = (app, ctx) => {
  const { db, deps, guarded, guardedWrite, viewerOf, csrfToken, send } = ctx;
  const resource = () => app.context.urls.mcp();

  /**
   * The consent form's answer redirects to the client, and CSP form-action also governs where a
   * form submission may be redirected: the page allows its own origin and that client's only.
   */
  function allowFormRedirectTo(reply: FastifyReply, redirectUri: string) {
    const policy = reply.getHeader('content-security-policy');
    if (typeof policy !== 'string') return;
    const origin = new URL(redirectUri).origin;
    reply.header(
      'content-security-policy',
      policy.replace("form-action 'self'", `form-action 'self' ${origin}`),
    );
  }

  /** The request, or the answer already sent for an invalid one. */
  async function checkedRequest(parameters: Record<string, unknown>, reply: FastifyReply) {
    try {
      return { request: await parseAuthorizationRequest(db, parameters, resource()) };
    } catch (error) {
      if (!(error instanceof AuthorizationRequestError)) throw error;
      const location = error.redirectLocation();
      if (location) return { answered: reply.redirect(location, 303) };
      const page = { title: 'Invalid request', csrfToken: '' };
      return {
        answered: send(
          reply,
          errorPage(page, 'This sign-in request is not valid', error.description),
          400,
        ),
      };
    }
  }

  async function showConsent(
    request: Parameters<typeof viewerOf>[0],
    reply: FastifyReply,
    authorization: AuthorizationRequest,
    workspaceId?: string,
    error?: string,
  ) {
    const viewer = await viewerOf(request, workspaceId);
    if (!viewer) return ctx.noWorkspace(reply);
    allowFormRedirectTo(reply, authorization.redirectUri);
    const page = { title: 'Allow an MCP client', csrfToken: csrfToken(reply), viewer };
    return send(reply, consentPage(page, authorization, error), error ? 422 : 200);
  }

  app.get(
    '/oauth/consent',
    { ...guarded, config: { returnAfterSignIn: true }, schema: { querystring: ANY_QUERY } },
    async (request, reply) => {
      const checked = await checkedRequest(request.query, reply);
      if (!checked.request) return checked.answered;
      return showConsent(request, reply, checked.request);
    },
  );

  app.post('/oauth/consent', guardedWrite, async (request, reply) => {
    const form = formOf(request.body);
    const { _csrf, decision, workspace, environment, scopes, ...parameters } = form;
    const checked = await checkedRequest(parameters, reply);
    if (!checked.request) return checked.answered;
    const authorization = checked.request;
    if (field(form, 'decision') !== 'approve') {
      return reply.redirect(
        redirectWith(authorization.redirectUri, {
          error: 'access_denied',
          error_description: 'The user denied the request.',
          state: authorization.state,
        }),
        303,
      );
    }
    const user = request.dashboardUser as User;
    try {
      const code = await approveAuthorization(db, deps, authorization, {
        userId: user.id,
        workspaceId: field(form, 'workspace'),
        environment: field(form, 'environment'),
        scopes: [scopes ?? []].flat(),
      });
      return reply.redirect(
        redirectWith(authorization.redirectUri, { code, state: authorization.state }),
        303,
      );
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      return showConsent(
        request,
        reply,
        authorization,
        field(form, 'workspace'),
        error.description,
      );
    }
  });

  app.get(
    '/oauth/clients',
    { ...guarded, schema: { querystring: WorkspaceQuery } },
    async (request, reply) => {
      const viewer = await viewerOf(request, request.query.workspace);
      if (!viewer) return ctx.noWorkspace(reply);
      const clients = await listAuthorizedClients(db, (request.dashboardUser as User).id);
      const page = { title: 'MCP clients', csrfToken: csrfToken(reply), viewer };
      return send(reply, authorizedClientsPage(page, clients));
    },
  );

  app.post(
    '/oauth/clients/:id/revoke',
    { ...guardedWrite, schema: { params: IdParams } },
    async (request, reply) => {
      const user = request.dashboardUser as User;
      const revoked = await revokeGrantOfUser(db, deps, user.id, request.params.id);
      if (!revoked) {
        const page = { title: 'Not found', csrfToken: csrfToken(reply) };
        return send(
          reply,
          errorPage(page, 'No such MCP client', 'It is not authorized (any more).'),
          404,
        );
      }
      return reply.redirect('/dashboard/oauth/clients', 303);
    },
  );
};
