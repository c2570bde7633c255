import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../http/auth.js';
import { completeOperation, IdempotencyKeyHeaders } from '../../http/idempotency.js';
import { listResponse, singlePage } from '../../http/pagination.js';
import { problemResponses } from '../../http/responses.js';
import type { MetricsDeps } from '../../lib/metrics.js';
import { answersInProcess } from '../../sources/registry-source.js';
import type { ChecksDeps } from '../checks/checks.service.js';
import { assertCanPay } from '../usage/usage.service.js';
import {
  CompanyParams,
  CompanySearchBody,
  CompanySearchResponseSchema,
} from './companies.schemas.js';
import {
  checkSearchRequest,
  findCandidates,
  getCompany,
  recordSearch,
  runLastWrites,
} from './companies.service.js';

export const companiesRoutes: FastifyPluginAsyncTypebox<{
  deps: ChecksDeps & MetricsDeps;
}> = async (app, { deps }) => {
  const { db, transact } = app.context;

  app.post(
    '/v1/companies/search',
    {
      config: {
        scope: 'companies:read',
        idempotency: 'companies.search',
        idempotencyWithOperation: (principal) => answersInProcess(deps.sourceFor(principal)),
      },
      schema: {
        operationId: 'searchCompanies',
        summary: 'Search company records',
        description:
          'At least one of name, registration_number, vat_number, tax_identifier; vat_number and tax_identifier never together; tax_identifier only, and vat_number never, for US. At most 100 candidates, each stored as a company snapshot. In live it costs one credit when a register answered (with or without candidates); a 502 costs nothing, and so does a search answered without asking a register (a number that cannot be one the register could hold, a VAT number the register does not record).',
        tags: ['Companies'],
        headers: IdempotencyKeyHeaders,
        body: CompanySearchBody,
        response: {
          200: CompanySearchResponseSchema,
          ...problemResponses(400, 401, 402, 403, 409, 413, 415, 422, 429, 500, 502, 503),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      const source = deps.sourceFor(principal);
      const body = request.body;
      checkSearchRequest(principal, source, body);
      await assertCanPay(db, principal, 'companies.search');
      const candidates = await findCandidates(source, body);
      return completeOperation(request, reply, transact, 200, async (trx) => {
        const result = await recordSearch(trx, deps, principal, candidates, request.channel);
        return {
          body: {
            ...listResponse(singlePage(result.companies)),
            credits_used: result.credits_used,
          },
          last: (trx) => runLastWrites(trx, result.last),
          committed: () => deps.metrics.creditsDebited(result.credits_used),
        };
      });
    },
  );

  app.get(
    '/v1/companies/:company_id',
    {
      config: { scope: 'companies:read' },
      schema: {
        operationId: 'getCompany',
        summary: 'Get a stored company snapshot',
        tags: ['Companies'],
        params: CompanyParams,
        response: {
          200: { $ref: 'Company#', description: 'The company snapshot.' },
          ...problemResponses(401, 403, 404, 429, 500, 503),
        },
      },
    },
    async (request) => getCompany(db, requirePrincipal(request), request.params.company_id),
  );
};
