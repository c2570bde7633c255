import type { EnvironmentName } from '../../db/schema.js';
import type { UsageSummary } from '../../modules/usage/usage.schemas.js';
import { creditBalance, dailyUsage, recentLedger } from '../../modules/usage/usage.service.js';
import { callApi } from './api.js';
import type { RegisterPages } from './context.js';
import { WorkspaceQuery } from './page-parts.js';
import { usagePage } from './usage.views.js';

/**
 * Usage and credits: this month's totals of each environment are GET /v1/usage run as the signed-in
 * person; the daily counts, the balance and the ledger have no REST operation and are read from
 * the usage service.
 */
export const registerUsagePages: RegisterPages = (app, ctx) => {
  app.get(
    '/usage',
    { ...ctx.guarded, schema: { querystring: WorkspaceQuery } },
    async (request, reply) => {
      const viewer = await ctx.viewerOf(request, request.query.workspace);
      if (!viewer) return ctx.noWorkspace(reply);
      const workspaceId = viewer.current.workspace_id;
      const environments = await Promise.all(
        (['sandbox', 'live'] as EnvironmentName[]).map(async (environment) => ({
          environment,
          summary: await callApi<UsageSummary>(app, request, viewer, environment, {
            method: 'GET',
            url: '/v1/usage',
          }),
          daily: await dailyUsage(ctx.db, ctx.deps, workspaceId, environment),
        })),
      );
      const [balance, ledger] = await Promise.all([
        creditBalance(ctx.db, workspaceId),
        recentLedger(ctx.db, workspaceId, 20),
      ]);
      return ctx.send(
        reply,
        usagePage(
          { title: 'Usage and credits', csrfToken: ctx.csrfToken(reply), viewer },
          { environments, balance, ledger },
        ),
      );
    },
  );
};
