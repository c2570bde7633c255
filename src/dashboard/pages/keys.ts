import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EnvironmentName } from '../../db/schema.js';
import {
  AccountsError,
  createApiKey,
  listApiKeys,
  revokeApiKey,
} from '../../modules/accounts/accounts.service.js';
import { errorPage } from '../layout.js';
import type { DashboardPageContext, RegisterPages } from './context.js';
import { field, formOf } from './form-parts.js';
import { keyCreatedPage, keysPage, revokeConfirmPage } from './keys.views.js';
import { IdParams, WorkspaceQuery } from './page-parts.js';

/** The key of the viewer's workspace that an owner may revoke, or a page saying why not. */
async function revocableKey(
  ctx: DashboardPageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  { workspaceId, keyId }: { workspaceId: string; keyId: string },
) {
  const viewer = await ctx.viewerOf(request, workspaceId);
  if (!viewer) return { refused: ctx.noWorkspace(reply) };
  const key = (await listApiKeys(ctx.db, viewer.current.workspace_id)).find((k) => k.id === keyId);
  const page = { title: 'Revoke a key', csrfToken: ctx.csrfToken(reply), viewer };
  if (!key) {
    return {
      refused: ctx.send(
        reply,
        errorPage(page, 'No such key', 'This workspace has no such key.'),
        404,
      ),
    };
  }
  if (viewer.current.role !== 'owner') {
    return {
      refused: ctx.send(
        reply,
        errorPage(page, 'Only owners revoke keys', 'Ask an owner of the workspace to revoke it.'),
        403,
      ),
    };
  }
  return { key, page };
}

/** API keys: the workspace's keys, creating one (shown once), and an owner revoking one. */
export const registerKeyPages: RegisterPages = (app, ctx) => {
  const { db, deps, guarded, guardedWrite } = ctx;

  app.get(
    '/keys',
    { ...guarded, schema: { querystring: WorkspaceQuery } },
    async (request, reply) => {
      const viewer = await ctx.viewerOf(request, request.query.workspace);
      if (!viewer) return ctx.noWorkspace(reply);
      const keys = await listApiKeys(db, viewer.current.workspace_id);
      return ctx.send(
        reply,
        keysPage({ title: 'API keys', csrfToken: ctx.csrfToken(reply), viewer }, keys),
      );
    },
  );

  // The created key is answered on this POST's own page, not after a redirect: it exists only in
  // this response (only its hash is stored), so there is nothing a later GET could show.
  app.post('/keys', guardedWrite, async (request, reply) => {
    const form = formOf(request.body);
    const viewer = await ctx.viewerOf(request, field(form, 'workspace'));
    if (!viewer) return ctx.noWorkspace(reply);
    const page = { title: 'API keys', csrfToken: ctx.csrfToken(reply), viewer };
    const environment = field(form, 'environment');
    const scopes = [form.scopes ?? []].flat();
    const name = field(form, 'name').trim();
    const refuse = async (message: string) =>
      ctx.send(
        reply,
        keysPage(page, await listApiKeys(db, viewer.current.workspace_id), message),
        422,
      );
    if (environment !== 'sandbox' && environment !== 'live') {
      return refuse('Choose the sandbox or the live environment.');
    }
    if (scopes.length === 0) return refuse('Choose at least one scope.');
    if (name.length > 200) return refuse('A name has at most 200 characters.');
    try {
      const key = await createApiKey(db, deps, {
        workspaceId: viewer.current.workspace_id,
        environment: environment as EnvironmentName,
        scopes,
        ...(name ? { name } : {}),
      });
      return ctx.send(reply, keyCreatedPage({ ...page, title: 'Your new API key' }, key), 201);
    } catch (error) {
      if (error instanceof AccountsError) return refuse(error.message);
      throw error;
    }
  });

  app.get(
    '/keys/:id/revoke',
    { ...guarded, schema: { querystring: WorkspaceQuery, params: IdParams } },
    async (request, reply) => {
      const found = await revocableKey(ctx, request, reply, {
        workspaceId: request.query.workspace ?? '',
        keyId: request.params.id,
      });
      if (!found.key) return found.refused;
      return ctx.send(reply, revokeConfirmPage(found.page, found.key));
    },
  );

  app.post(
    '/keys/:id/revoke',
    { ...guardedWrite, schema: { params: IdParams } },
    async (request, reply) => {
      const workspaceId = field(formOf(request.body), 'workspace');
      const found = await revocableKey(ctx, request, reply, {
        workspaceId,
        keyId: request.params.id,
      });
      if (!found.key) return found.refused;
      await revokeApiKey(db, deps, found.key.id);
      return reply.redirect(`/dashboard/keys?workspace=${encodeURIComponent(workspaceId)}`, 303);
    },
  );
};
