import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { requirePrincipal } from '../../http/auth.js';
import { ListSchema, PaginationQueryProperties } from '../../http/pagination.js';
import { problemResponses } from '../../http/responses.js';
import { FORMAT_DESCRIPTION } from '../../http/validation.js';
import { ID_CHARS } from '../../lib/ids.js';
import { getMonitorEvent, listMonitorEvents } from './events.service.js';
import { EventParams, type MonitorEvent } from './monitors.schemas.js';

const EventListQuery = Type.Object(
  {
    monitor_id: Type.Optional(
      Type.String({
        pattern: `^mon_${ID_CHARS}$`,
        [FORMAT_DESCRIPTION]: '`mon_` and 16 to 80 letters, digits, `_` or `-`',
        description: 'Only the events of this monitor (archived monitors included).',
      }),
    ),
    ...PaginationQueryProperties,
  },
  { additionalProperties: false },
);

export const eventsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, paginator } = app.context;

  app.get(
    '/v1/monitoring-events',
    {
      config: { scope: 'events:read' },
      schema: {
        operationId: 'listMonitoringEvents',
        summary: 'List monitoring events, newest first',
        tags: ['Monitoring events'],
        querystring: EventListQuery,
        response: {
          200: ListSchema(Type.Unsafe<MonitorEvent>({ $ref: 'MonitorEvent#' })),
          ...problemResponses(400, 401, 403, 422, 429, 500),
        },
      },
    },
    async (request) => {
      const page = await listMonitorEvents(db, paginator, requirePrincipal(request), request.query);
      return { object: 'list' as const, data: page.rows, pagination: page.pagination };
    },
  );

  app.get(
    '/v1/monitoring-events/:event_id',
    {
      config: { scope: 'events:read' },
      schema: {
        operationId: 'getMonitoringEvent',
        summary: 'Get a monitoring event',
        tags: ['Monitoring events'],
        params: EventParams,
        response: {
          200: { $ref: 'MonitorEvent#', description: 'The event.' },
          ...problemResponses(401, 403, 404, 429, 500),
        },
      },
    },
    async (request) => getMonitorEvent(db, requirePrincipal(request), request.params.event_id),
  );
};
