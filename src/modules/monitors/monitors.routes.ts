import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { requirePrincipal } from '../../http/auth.js';
import { completeOperation, IdempotencyKeyHeaders } from '../../http/idempotency.js';
import { ListSchema, listResponse, PaginationQueryProperties } from '../../http/pagination.js';
import { problemResponses } from '../../http/responses.js';
import type { MetricsDeps } from '../../lib/metrics.js';
import { answersInProcess } from '../../sources/registry-source.js';
import type { Check } from '../checks/checks.schemas.js';
import {
  MONITOR_HEALTHS,
  MONITOR_STATUSES,
  type Monitor,
  MonitorArchiveResponseSchema,
  MonitorCreateBody,
  MonitorParams,
  MonitorRunBody,
  MonitorUpdateBody,
} from './monitors.schemas.js';
import {
  archiveMonitor,
  createMonitor,
  getMonitor,
  listMonitors,
  type MonitorsDeps,
  prepareMonitorCreate,
  requireMonitor,
  updateMonitorSettings,
} from './monitors.service.js';
import { prepareRecheck, runMonitor } from './rechecks.service.js';

/** `GET /monitors`: its filters (issue 29, beyond the contract: docs/decisions.md) and the page. */
const MonitorListQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Array(Type.Enum([...MONITOR_STATUSES]), {
        minItems: 1,
        maxItems: MONITOR_STATUSES.length,
        uniqueItems: true,
        description: 'Only monitors in one of these statuses (in a URL, repeat the parameter).',
      }),
    ),
    health: Type.Optional(
      Type.Array(Type.Enum([...MONITOR_HEALTHS]), {
        minItems: 1,
        maxItems: MONITOR_HEALTHS.length,
        uniqueItems: true,
        description: 'Only monitors whose health is one of these (in a URL, repeat the parameter).',
      }),
    ),
    client_reference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: 'Only monitors with this `client_reference` (exact).',
      }),
    ),
    ...PaginationQueryProperties,
  },
  { additionalProperties: false },
);

export const monitorsRoutes: FastifyPluginAsyncTypebox<{
  deps: MonitorsDeps & MetricsDeps;
}> = async (app, { deps }) => {
  const { db, transact, paginator } = app.context;

  app.post(
    '/v1/monitors',
    {
      config: {
        scope: 'monitors:write',
        idempotency: 'monitors.create',
        idempotencyWithOperation: (principal) => answersInProcess(deps.sourceFor(principal)),
      },
      schema: {
        operationId: 'createMonitor',
        summary: 'Monitor a company record',
        description:
          'Runs the baseline check (billable in live as a check: one credit only when a register answered) and starts rechecking at the cadence. Refused with 422 when the number could never be monitored: an invalid format, no registry source for the country and type, or a number that several companies carry.',
        tags: ['Monitors'],
        headers: IdempotencyKeyHeaders,
        body: MonitorCreateBody,
        response: {
          201: {
            $ref: 'MonitorCreateResponse#',
            description: 'The monitor and its baseline check.',
          },
          ...problemResponses(400, 401, 402, 403, 409, 413, 415, 422, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      const lookup = await prepareMonitorCreate(db, deps, principal, request.body);
      return completeOperation(request, reply, transact, 201, async (trx) => {
        const body = await createMonitor(
          trx,
          deps,
          principal,
          request.body,
          lookup,
          request.channel,
        );
        const check = { ...(body.baseline_check as Check), environment: principal.environment };
        return { body, committed: () => deps.metrics.checkCommitted(check) };
      });
    },
  );

  app.get(
    '/v1/monitors',
    {
      config: { scope: 'monitors:read' },
      schema: {
        operationId: 'listMonitors',
        summary: 'List monitors, most recently updated first',
        tags: ['Monitors'],
        querystring: MonitorListQuery,
        response: {
          200: ListSchema(Type.Unsafe<Monitor>({ $ref: 'Monitor#' })),
          ...problemResponses(400, 401, 403, 422, 429, 500),
        },
      },
    },
    async (request) => {
      const page = await listMonitors(db, paginator, requirePrincipal(request), request.query);
      return listResponse(page);
    },
  );

  app.get(
    '/v1/monitors/:monitor_id',
    {
      config: { scope: 'monitors:read' },
      schema: {
        operationId: 'getMonitor',
        summary: 'Get a monitor',
        tags: ['Monitors'],
        params: MonitorParams,
        response: {
          200: { $ref: 'Monitor#', description: 'The monitor.' },
          ...problemResponses(401, 403, 404, 429, 500),
        },
      },
    },
    async (request) => getMonitor(db, requirePrincipal(request), request.params.monitor_id),
  );

  app.patch(
    '/v1/monitors/:monitor_id',
    {
      config: {
        scope: 'monitors:write',
        idempotency: 'monitors.update',
        // Database work only, in any environment.
        idempotencyWithOperation: () => true,
      },
      schema: {
        operationId: 'updateMonitor',
        summary: 'Pause, resume or change a monitor',
        description:
          'At least one property. `status` pauses or resumes; `webhook_url` null disables delivery. The signing secret is returned when a non-null `webhook_url` is supplied.',
        tags: ['Monitors'],
        headers: IdempotencyKeyHeaders,
        params: MonitorParams,
        body: MonitorUpdateBody,
        response: {
          200: { $ref: 'MonitorUpdateResponse#', description: 'The monitor after the update.' },
          ...problemResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      const id = request.params.monitor_id;
      return completeOperation(request, reply, transact, 200, async (trx) => ({
        body: await updateMonitorSettings(trx, deps, principal, id, request.body),
      }));
    },
  );

  app.delete(
    '/v1/monitors/:monitor_id',
    {
      config: {
        scope: 'monitors:write',
        idempotency: 'monitors.archive',
        // Database work only, in any environment.
        idempotencyWithOperation: () => true,
      },
      schema: {
        operationId: 'archiveMonitor',
        summary: 'Archive a monitor',
        description:
          'Rechecks stop and the slot is freed; the monitor then answers 404, and its events stay readable.',
        tags: ['Monitors'],
        headers: IdempotencyKeyHeaders,
        params: MonitorParams,
        response: {
          200: MonitorArchiveResponseSchema,
          ...problemResponses(400, 401, 403, 404, 409, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      const id = request.params.monitor_id;
      return completeOperation(request, reply, transact, 200, async (trx) => ({
        body: await archiveMonitor(trx, deps, principal, id),
      }));
    },
  );

  app.post(
    '/v1/monitors/:monitor_id/run',
    {
      config: {
        scope: 'monitors:write',
        idempotency: 'monitors.run',
        idempotencyWithOperation: (principal) => answersInProcess(deps.sourceFor(principal)),
      },
      schema: {
        operationId: 'runMonitor',
        summary: 'Recheck a monitor now',
        description:
          'Billable in live as a check: one credit only when a register answered, 0 when it was `unavailable`. Compares the new snapshot with the latest one on the watched fields and records an event when something changed.',
        tags: ['Monitors'],
        headers: IdempotencyKeyHeaders,
        params: MonitorParams,
        body: MonitorRunBody,
        response: {
          200: { $ref: 'MonitorRunResponse#', description: 'The recheck and what it found.' },
          ...problemResponses(400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      const id = request.params.monitor_id;
      const row = await requireMonitor(db, principal, id);
      // One that cannot be paid for answers 402, once the monitor has recorded it needs credits.
      const recheck = await prepareRecheck(db, transact, deps, row);
      if (!recheck.paid) throw recheck.problem;
      return completeOperation(request, reply, transact, 200, async (trx) => {
        const body = await runMonitor(trx, deps, principal, id, recheck.lookup, request.channel);
        const check = { ...(body.check as Check), environment: principal.environment };
        return { body, committed: () => deps.metrics.checkCommitted(check) };
      });
    },
  );
};
