import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EnvironmentName } from '../../db/schema.js';
import { errorPage, type Viewer } from '../layout.js';
import { callApi, idempotencyKeyOf, newIdempotencyKey } from './api.js';
import { type Check, checkDetailPage, checkHistoryPage, playgroundPage } from './checks.views.js';
import type { DashboardPageContext, RegisterPages } from './context.js';
import {
  ENVIRONMENT_QUERY,
  environmentOf,
  type Form,
  formField,
  urlIn,
} from './playground-parts.js';

const PLAYGROUND_QUERY = {
  type: 'object',
  properties: {
    ...ENVIRONMENT_QUERY,
    // Prefill from the sandbox examples' links.
    identifier_type: { type: 'string', maxLength: 40 },
    identifier: { type: 'string', maxLength: 128 },
    country: { type: 'string', maxLength: 2 },
  },
  additionalProperties: false,
} as const;
const HISTORY_QUERY = {
  type: 'object',
  properties: { ...ENVIRONMENT_QUERY, cursor: { type: 'string', maxLength: 2048 } },
  additionalProperties: false,
} as const;
const DETAIL_QUERY = {
  type: 'object',
  properties: ENVIRONMENT_QUERY,
  additionalProperties: false,
} as const;

type Query = Record<string, string | undefined>;

interface List<T> {
  data: T[];
  pagination: { has_more: boolean; next_cursor?: string };
}

/** The viewer and environment a request is about, or the page that says why there are none. */
async function scope(
  ctx: DashboardPageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  values: Query,
): Promise<{ viewer: Viewer; environment: EnvironmentName } | { refused: FastifyReply }> {
  const viewer = await ctx.viewerOf(request, values.workspace);
  if (!viewer) return { refused: ctx.noWorkspace(reply) };
  const environment = environmentOf(values.environment);
  if (!environment) {
    const page = { title: 'Refused', csrfToken: ctx.csrfToken(reply), viewer };
    const message = 'Choose the sandbox or the live environment.';
    return { refused: ctx.send(reply, errorPage(page, 'No such environment', message), 422) };
  }
  return { viewer, environment };
}

/**
 * The checks playground (POST /v1/checks as the signed-in person, so the REST rules answer: a
 * validation error comes back as the API's Problem and is shown next to its field, a live check
 * without paid access is the API's 402), the check history (GET /v1/checks with its cursor) and a
 * check's page (GET /v1/checks/:id), which is also where a check run here lands.
 */
export const registerCheckPages: RegisterPages = (app, ctx) => {
  const page = (reply: FastifyReply, viewer: Viewer, title: string) => ({
    title,
    csrfToken: ctx.csrfToken(reply),
    viewer,
  });

  app.get(
    '/checks',
    { ...ctx.guarded, schema: { querystring: PLAYGROUND_QUERY } },
    async (request, reply) => {
      const query = request.query as Query;
      const found = await scope(ctx, request, reply, query);
      if ('refused' in found) return found.refused;
      return ctx.send(
        reply,
        playgroundPage(page(reply, found.viewer, 'Checks playground'), {
          environment: found.environment,
          values: {
            identifier_type: query.identifier_type ?? 'vat_number',
            identifier: query.identifier ?? '',
            country: query.country ?? '',
          },
          idempotencyKey: newIdempotencyKey(),
        }),
      );
    },
  );

  app.post('/checks', ctx.guardedWrite, async (request, reply) => {
    const form = request.body as Form | undefined;
    const values = {
      identifier_type: formField(form, 'identifier_type'),
      identifier: formField(form, 'identifier'),
      country: formField(form, 'country'),
    };
    const found = await scope(ctx, request, reply, {
      workspace: formField(form, 'workspace'),
      environment: formField(form, 'environment'),
    });
    if ('refused' in found) return found.refused;
    const { viewer, environment } = found;
    // The form's values go to the API as they are: its validation is the only one.
    const result = await callApi<Check>(app, request, viewer, environment, {
      method: 'POST',
      url: '/v1/checks',
      body: {
        identifier_type: values.identifier_type,
        identifier: values.identifier,
        country_code: values.country,
      },
      idempotencyKey: idempotencyKeyOf(formField(form, 'idempotency_key')),
    });
    if (result.ok) {
      return reply.redirect(urlIn(`/dashboard/checks/${result.body.id}`, viewer, environment), 303);
    }
    return ctx.send(
      reply,
      playgroundPage(page(reply, viewer, 'Checks playground'), {
        environment,
        values,
        problem: result.problem,
        // A new key: the corrected form is another request, not a replay of the refused one.
        idempotencyKey: newIdempotencyKey(),
      }),
      result.problem.status,
    );
  });

  app.get(
    '/checks/history',
    { ...ctx.guarded, schema: { querystring: HISTORY_QUERY } },
    async (request, reply) => {
      const query = request.query as Query;
      const found = await scope(ctx, request, reply, query);
      if ('refused' in found) return found.refused;
      const params = new URLSearchParams({ limit: '20' });
      if (query.cursor) params.set('cursor', query.cursor);
      const result = await callApi<List<Check>>(app, request, found.viewer, found.environment, {
        method: 'GET',
        url: `/v1/checks?${params}`,
      });
      return ctx.send(
        reply,
        checkHistoryPage(page(reply, found.viewer, 'Check history'), {
          environment: found.environment,
          result,
        }),
        result.ok ? 200 : result.problem.status,
      );
    },
  );

  app.get(
    '/checks/:id',
    {
      ...ctx.guarded,
      schema: {
        querystring: DETAIL_QUERY,
        params: { type: 'object', properties: { id: { type: 'string', maxLength: 100 } } },
      },
    },
    async (request, reply) => {
      const found = await scope(ctx, request, reply, request.query as Query);
      if ('refused' in found) return found.refused;
      const id = (request.params as { id: string }).id;
      const result = await callApi<Check>(app, request, found.viewer, found.environment, {
        method: 'GET',
        url: `/v1/checks/${encodeURIComponent(id)}`,
      });
      return ctx.send(
        reply,
        checkDetailPage(page(reply, found.viewer, result.ok ? `Check ${id}` : 'Check not found'), {
          environment: found.environment,
          result,
        }),
        result.ok ? 200 : result.problem.status,
      );
    },
  );
};
