import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { checkCsvHeader, checkCsvLine } from '../../kit/check-csv.js';
import type { Viewer } from '../layout.js';
import { callApi, idempotencyKeyOf, newIdempotencyKey } from './api.js';
import type { Check as CheckResource, List } from './api-types.js';
import { type Check, checkDetailPage, checkHistoryPage, playgroundPage } from './checks.views.js';
import type { RegisterPages } from './context.js';
import { DOWNLOAD_PAGE_SIZE, sendCsv } from './csv-download.js';
import { field, formOf } from './form-parts.js';
import { CHECK_FILTER_FIELDS, filtersOf, listQuery } from './list-filters.js';
import { ENVIRONMENT_QUERY_FIELDS, pageUrl } from './page-parts.js';
import { formScope, refusingScope } from './scope.js';

const PlaygroundQuery = Type.Object(
  {
    ...ENVIRONMENT_QUERY_FIELDS,
    // Prefill from the sandbox examples' links.
    identifier_type: Type.Optional(Type.String({ maxLength: 40 })),
    identifier: Type.Optional(Type.String({ maxLength: 128 })),
    country: Type.Optional(Type.String({ maxLength: 2 })),
  },
  { additionalProperties: false },
);
const HistoryQuery = Type.Object(
  {
    ...ENVIRONMENT_QUERY_FIELDS,
    ...CHECK_FILTER_FIELDS,
    cursor: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false },
);
const DownloadQuery = Type.Object(
  { ...ENVIRONMENT_QUERY_FIELDS, ...CHECK_FILTER_FIELDS },
  { additionalProperties: false },
);
const DetailQuery = Type.Object(ENVIRONMENT_QUERY_FIELDS, { additionalProperties: false });
const CheckPageParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

/**
 * The checks playground (POST /v1/checks as the signed-in person, so the REST rules answer: a
 * validation error comes back as the API's Problem and is shown next to its field, a live check
 * without paid access is the API's 402), the check history (GET /v1/checks with its cursor) and a
 * check's page (GET /v1/checks/:id), which is also where a check run here lands. The history's
 * filters are GET /v1/checks's own; its download is every matching check, as
 * `firmwatch checks export` writes them.
 */
export const registerCheckPages: RegisterPages = (app, ctx) => {
  const page = (reply: FastifyReply, viewer: Viewer, title: string) => ({
    title,
    csrfToken: ctx.csrfToken(reply),
    viewer,
  });

  app.get(
    '/checks',
    { ...ctx.guarded, schema: { querystring: PlaygroundQuery } },
    async (request, reply) => {
      const { query } = request;
      const found = await refusingScope(ctx, request, reply, query);
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
    const form = formOf(request.body);
    const values = {
      identifier_type: field(form, 'identifier_type'),
      identifier: field(form, 'identifier'),
      country: field(form, 'country'),
    };
    const found = await refusingScope(ctx, request, reply, formScope(form));
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
      idempotencyKey: idempotencyKeyOf(field(form, 'idempotency_key')),
    });
    if (result.ok) {
      return reply.redirect(
        pageUrl(`/dashboard/checks/${result.body.id}`, viewer, environment),
        303,
      );
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
    { ...ctx.guarded, schema: { querystring: HistoryQuery } },
    async (request, reply) => {
      const { query } = request;
      const found = await refusingScope(ctx, request, reply, query);
      if ('refused' in found) return found.refused;
      const filters = filtersOf(query, CHECK_FILTER_FIELDS);
      const result = await callApi<List<Check>>(app, request, found.viewer, found.environment, {
        method: 'GET',
        url: `/v1/checks?${listQuery(filters, 20, query.cursor)}`,
      });
      return ctx.send(
        reply,
        checkHistoryPage(page(reply, found.viewer, 'Check history'), {
          environment: found.environment,
          filters,
          result,
        }),
        result.ok ? 200 : result.problem.status,
      );
    },
  );

  app.get(
    '/checks.csv',
    { ...ctx.guarded, schema: { querystring: DownloadQuery } },
    async (request, reply) => {
      const { query } = request;
      const found = await refusingScope(ctx, request, reply, query);
      if ('refused' in found) return found.refused;
      const { viewer, environment } = found;
      const filters = filtersOf(query, CHECK_FILTER_FIELDS);
      return sendCsv(request, reply, {
        what: 'checks',
        viewer,
        environment,
        header: checkCsvHeader(),
        line: checkCsvLine,
        page: (cursor) =>
          callApi<List<CheckResource>>(app, request, viewer, environment, {
            method: 'GET',
            url: `/v1/checks?${listQuery(filters, DOWNLOAD_PAGE_SIZE, cursor)}`,
          }),
        // A refused filter is answered as the history page answers it: with its Problem.
        refused: (problem) => {
          const history = checkHistoryPage(page(reply, viewer, 'Check history'), {
            environment,
            filters,
            result: { ok: false, problem },
          });
          return ctx.send(reply, history, problem.status);
        },
      });
    },
  );

  app.get(
    '/checks/:id',
    {
      ...ctx.guarded,
      schema: { querystring: DetailQuery, params: CheckPageParams },
    },
    async (request, reply) => {
      const found = await refusingScope(ctx, request, reply, request.query);
      if ('refused' in found) return found.refused;
      const { id } = request.params;
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
