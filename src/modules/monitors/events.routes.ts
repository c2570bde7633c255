import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { requirePrincipal } from '../../http/auth.js';
import { ListSchema, listResponse, PaginationQueryProperties } from '../../http/pagination.js';
import { problemResponses } from '../../http/responses.js';
import { FORMAT_DESCRIPTION } from '../../http/validation.js';
import { ID_CHARS } from '../../lib/ids.js';
import { getMonitorEvent, listMonitorEvents } from './events.service.js';
import { EVENT_TYPES, EventParams, type MonitorEvent } from './monitors.schemas.js';

const EventListQuery = Type.Object(
  {
    monitor_id: Type.Optional(
      Type.String({
        pattern: `^mon_${ID_CHARS}$`,
        [FORMAT_DESCRIPTION]: '`mon_` and 16 to 80 letters, digits, `_` or `-`',
        description: 'Only the events of this monitor (archived monitors included).',
      }),
    ),
    type: Type.Optional(
      Type.Array(Type.Enum([...EVENT_TYPES]), {
        minItems: 1,
        maxItems: EVENT_TYPES.length,
        uniqueItems: true,
        description:
          'Only events of these types: repeat the parameter for several (`type=vat.monitor.paused&type=vat.monitor.resumed`).',
      }),
    ),
    created_after: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Only events created after this instant (exclusive), RFC 3339.',
      }),
    ),
    created_before: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Only events created before this instant (exclusive), RFC 3339.',
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
      return listResponse(page);
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
