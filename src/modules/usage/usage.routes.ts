import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../http/auth.js';
import { problemResponses } from '../../http/responses.js';
import { summarizeUsage, type UsageDeps } from './usage.service.js';

export const usageRoutes: FastifyPluginAsyncTypebox<{ deps: UsageDeps }> = async (
  app,
  { deps },
) => {
  app.get(
    '/v1/usage',
    {
      config: { scope: 'usage:read' },
      schema: {
        operationId: 'getUsage',
        summary: "Usage of the key's environment in the current period",
        description:
          'Completed operations and billable units of the current calendar month (UTC), by source channel and by operation.',
        tags: ['Usage'],
        response: {
          200: { $ref: 'UsageSummary#', description: 'The usage summary.' },
          ...problemResponses(401, 403, 429, 500),
        },
      },
    },
    async (request) => {
      const principal = requirePrincipal(request);
      return summarizeUsage(app.context.db, deps, principal.workspaceId, principal.environment);
    },
  );
};
