import Type from 'typebox';
import { callApi } from './api.js';
import type { List, Monitor } from './api-types.js';
import type { RegisterPages } from './context.js';
import { DOWNLOAD_PAGE_SIZE, sendCsv } from './csv-download.js';
import { filtersOf, listQuery, MONITOR_FILTER_FIELDS } from './list-filters.js';
import { monitorCsvHeader, monitorCsvLine } from './monitor-csv.js';
import { doneMessage } from './monitor-messages.js';
import { monitorsListPage } from './monitors.views.js';
import { ENVIRONMENT_QUERY_FIELDS, PageQuery, pageUrl } from './page-parts.js';
import { pageScope } from './scope.js';

const ListQuery = Type.Object(
  { ...PageQuery.properties, ...MONITOR_FILTER_FIELDS },
  { additionalProperties: false },
);
const DownloadQuery = Type.Object(
  { ...ENVIRONMENT_QUERY_FIELDS, ...MONITOR_FILTER_FIELDS },
  { additionalProperties: false },
);

/**
 * The monitors list (GET /v1/monitors and its filters: status, health, client_reference) and its
 * download, every matching monitor as CSV. A refused filter shows the list's page with the
 * Problem and the filters, so the value can be corrected there; the download answers it the same.
 */
export const registerMonitorListPages: RegisterPages = (app, ctx) => {
  app.get(
    '/monitors',
    { ...ctx.guarded, schema: { querystring: ListQuery } },
    async (request, reply) => {
      const { query } = request;
      const scope = await pageScope(ctx, request, reply, query);
      if (!scope) return reply;
      const { viewer, environment } = scope;
      const filters = filtersOf(query, MONITOR_FILTER_FIELDS);
      const listed = await callApi<List<Monitor>>(app, request, viewer, environment, {
        method: 'GET',
        url: `/v1/monitors?${listQuery(filters, 25, query.cursor)}`,
      });
      const page = scope.page('Monitors');
      if (!listed.ok) {
        const refused = monitorsListPage(page, { monitors: [], filters, problem: listed.problem });
        return ctx.send(reply, refused, listed.problem.status);
      }
      const cursor = listed.body.pagination.next_cursor;
      return ctx.send(
        reply,
        monitorsListPage(page, {
          monitors: listed.body.data,
          filters,
          next:
            cursor && pageUrl('/dashboard/monitors', viewer, environment, { ...filters, cursor }),
          message: doneMessage(query),
        }),
      );
    },
  );

  app.get(
    '/monitors.csv',
    { ...ctx.guarded, schema: { querystring: DownloadQuery } },
    async (request, reply) => {
      const { query } = request;
      const scope = await pageScope(ctx, request, reply, query);
      if (!scope) return reply;
      const { viewer, environment } = scope;
      const filters = filtersOf(query, MONITOR_FILTER_FIELDS);
      return sendCsv(request, reply, {
        what: 'monitors',
        viewer,
        environment,
        header: monitorCsvHeader(),
        line: monitorCsvLine,
        page: (cursor) =>
          callApi<List<Monitor>>(app, request, viewer, environment, {
            method: 'GET',
            url: `/v1/monitors?${listQuery(filters, DOWNLOAD_PAGE_SIZE, cursor)}`,
          }),
        refused: (problem) => {
          const page = scope.page('Monitors');
          const refused = monitorsListPage(page, { monitors: [], filters, problem });
          return ctx.send(reply, refused, problem.status);
        },
      });
    },
  );
};
