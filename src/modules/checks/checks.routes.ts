import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { requirePrincipal } from '../../http/auth.js';
import { completeOperation, IdempotencyKeyHeaders } from '../../http/idempotency.js';
import { ListSchema, listResponse, PaginationQueryProperties } from '../../http/pagination.js';
import { problemResponses } from '../../http/responses.js';
import type { MetricsDeps } from '../../lib/metrics.js';
import { answersInProcess } from '../../sources/registry-source.js';
import { CountryCodeInputOf } from '../companies/companies.schemas.js';
import { runLastWrites } from '../companies/companies.service.js';
import { assertCanPay } from '../usage/usage.service.js';
import { type Check, CheckCreateBody, CheckParams } from './checks.schemas.js';
import {
  type ChecksDeps,
  getCheck,
  listChecks,
  lookUpIdentifier,
  writeCheck,
} from './checks.service.js';

/** `GET /checks`: its filters (issue 29, beyond the contract: docs/decisions.md) and the page. */
const CheckListQuery = Type.Object(
  {
    client_reference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: 'Only checks with this `client_reference` (exact).',
      }),
    ),
    identifier: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description:
          "Only checks of this number, normalized as a check normalizes it (also by the country's rules, with `country_code`).",
      }),
    ),
    country_code: Type.Optional(
      CountryCodeInputOf('Only checks of numbers of this country: two letters, either case.'),
    ),
    created_after: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Only checks created after this instant (exclusive), RFC 3339.',
      }),
    ),
    created_before: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Only checks created before this instant (exclusive), RFC 3339.',
      }),
    ),
    ...PaginationQueryProperties,
  },
  { additionalProperties: false },
);

export const checksRoutes: FastifyPluginAsyncTypebox<{
  deps: ChecksDeps & MetricsDeps;
}> = async (app, { deps }) => {
  const { db, transact, paginator, urls } = app.context;

  app.post(
    '/v1/checks',
    {
      config: {
        scope: 'checks:write',
        idempotency: 'checks.create',
        replayStored: getCheck,
        idempotencyWithOperation: (principal) => answersInProcess(deps.sourceFor(principal)),
      },
      schema: {
        operationId: 'createCheck',
        summary: 'Check an identifier',
        description:
          'Computes four separate findings: format, registry match, tax authority (never a live call) and company legal status. An invalid format or a missing registry association is still a 201 check. In live it needs paid access and a positive balance, and costs one credit (`credits_used`) only when a register answered (`matched`, `not_matched`, `ambiguous`); `not_supported`, an invalid format (`not_checked`) and `unavailable` cost 0.',
        tags: ['Checks'],
        headers: IdempotencyKeyHeaders,
        body: CheckCreateBody,
        response: {
          201: { $ref: 'Check#', description: 'The completed check.' },
          ...problemResponses(400, 401, 402, 403, 409, 413, 415, 422, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      const body = request.body;
      await assertCanPay(db, principal, 'checks.create');
      const lookup = await lookUpIdentifier(deps, principal, body);
      return completeOperation(request, reply, transact, 201, async (trx) => {
        const { check, last } = await writeCheck(trx, deps, principal, body, lookup, {
          source: request.channel,
          operation: 'checks.create',
        });
        return {
          body: check,
          headers: { location: `${urls.base()}/checks/${check.id}` },
          storedAs: check.id,
          last: (trx) => runLastWrites(trx, last),
          committed: () =>
            deps.metrics.checkCommitted({ ...check, environment: principal.environment }),
        };
      });
    },
  );

  app.get(
    '/v1/checks',
    {
      config: { scope: 'checks:read' },
      schema: {
        operationId: 'listChecks',
        summary: 'List checks, newest first',
        tags: ['Checks'],
        querystring: CheckListQuery,
        response: {
          200: ListSchema(Type.Unsafe<Check>({ $ref: 'Check#' })),
          ...problemResponses(400, 401, 403, 422, 429, 500, 503),
        },
      },
    },
    async (request) => {
      const page = await listChecks(db, paginator, requirePrincipal(request), request.query);
      return listResponse(page);
    },
  );

  app.get(
    '/v1/checks/:check_id',
    {
      config: { scope: 'checks:read' },
      schema: {
        operationId: 'getCheck',
        summary: 'Get a check as it was created',
        tags: ['Checks'],
        params: CheckParams,
        response: {
          200: { $ref: 'Check#', description: 'The check.' },
          ...problemResponses(401, 403, 404, 429, 500, 503),
        },
      },
    },
    async (request) => getCheck(db, requirePrincipal(request), request.params.check_id),
  );
};
