import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemStatus } from '../../http/problems.js';
import { DomainProblem } from '../../lib/problem.js';
import { monitorNames } from '../../modules/monitors/monitor-names.js';
import { deliveredEnvelope, deliveryLog } from '../../modules/webhooks/deliveries.service.js';
import { redeliverEvent } from '../../modules/webhooks/redelivery.service.js';
import { callApi } from './api.js';
import type { List, MonitorEvent } from './api-types.js';
import type { RegisterPages } from './context.js';
import { eventPage, eventsListPage } from './events.views.js';
import { formOf } from './form-parts.js';
import { IdParams, PageQuery, pageUrl } from './page-parts.js';
import { formScope, type PageScope, pageScope, problemPage } from './scope.js';

/** What the redirect after a redelivery says (by the `done` query value, never text from the URL). */
function doneMessage(query: PageQuery, urlOf: (deliveryId: string) => string | undefined) {
  const delivery = query.delivery;
  if (!delivery) return undefined;
  const to = urlOf(delivery) ?? 'the webhook URL';
  if (query.done === 'redelivered')
    return `A new delivery ${delivery} to ${to} was queued: the webhook worker sends it.`;
  if (query.done === 'brought-forward')
    return `The delivery ${delivery} to ${to} was already queued: its next attempt is due now, and no delivery was added.`;
  return undefined;
}

/** Monitoring events: list, detail with the delivered envelope, the delivery log, redelivery. */
export const registerEventPages: RegisterPages = (app, ctx) => {
  app.get(
    '/events',
    { ...ctx.guarded, schema: { querystring: PageQuery } },
    async (request, reply) => {
      const { query } = request;
      const scope = await pageScope(ctx, request, reply, query);
      if (!scope) return reply;
      const params = new URLSearchParams({ limit: '25' });
      if (query.monitor_id) params.set('monitor_id', query.monitor_id);
      if (query.cursor) params.set('cursor', query.cursor);
      const listed = await callApi<List<MonitorEvent>>(
        app,
        request,
        scope.viewer,
        scope.environment,
        { method: 'GET', url: `/v1/monitoring-events?${params}` },
      );
      const page = scope.page('Monitoring events');
      if (!listed.ok) return problemPage(ctx, reply, page, listed.problem);
      const next = listed.body.pagination.next_cursor;
      // One query for the page's companies, in the workspace and environment of the list.
      const names = await monitorNames(
        ctx.db,
        { workspaceId: scope.viewer.current.workspace_id, environment: scope.environment },
        listed.body.data.map((event) => event.monitor_id),
      );
      return ctx.send(
        reply,
        eventsListPage(page, listed.body.data, names, {
          monitorId: query.monitor_id,
          next:
            next &&
            pageUrl('/dashboard/events', scope.viewer, scope.environment, {
              monitor_id: query.monitor_id,
              cursor: next,
            }),
        }),
      );
    },
  );

  /**
   * The event page. The event is read through the API first, so that one of another workspace or
   * environment is a 404 here too; only then are its deliveries (which have no REST operation) read.
   */
  async function showEvent(
    request: FastifyRequest,
    reply: FastifyReply,
    scope: PageScope,
    eventId: string,
    messages: { query?: PageQuery; error?: { detail: string; status: number } } = {},
  ) {
    const got = await callApi<MonitorEvent>(app, request, scope.viewer, scope.environment, {
      method: 'GET',
      url: `/v1/monitoring-events/${encodeURIComponent(eventId)}`,
    });
    const page = scope.page('Monitoring event');
    if (!got.ok) return problemPage(ctx, reply, page, got.problem);
    const deliveries = await deliveryLog(ctx.db, got.body.id);
    const body = await deliveredEnvelope(ctx.db, got.body.id);
    const notice =
      messages.query &&
      doneMessage(messages.query, (id) => deliveries.find((d) => d.id === id)?.url);
    return ctx.send(
      reply,
      eventPage(
        page,
        { event: got.body, deliveries, body },
        { notice, error: messages.error?.detail },
      ),
      messages.error?.status ?? 200,
    );
  }

  app.get(
    '/events/:id',
    { ...ctx.guarded, schema: { querystring: PageQuery, params: IdParams } },
    async (request, reply) => {
      const scope = await pageScope(ctx, request, reply, request.query);
      if (!scope) return reply;
      return showEvent(request, reply, scope, request.params.id, { query: request.query });
    },
  );

  // Not an API operation, so it has no idempotency key: a second post while the first delivery
  // is still open finds that one (redeliverEvent never doubles a delivery, even at the same instant).
  app.post(
    '/events/:id/redeliver',
    { ...ctx.guardedWrite, schema: { params: IdParams } },
    async (request, reply) => {
      const scope = await pageScope(ctx, request, reply, formScope(formOf(request.body)));
      if (!scope) return reply;
      const eventId = request.params.id;
      const got = await callApi<MonitorEvent>(app, request, scope.viewer, scope.environment, {
        method: 'GET',
        url: `/v1/monitoring-events/${encodeURIComponent(eventId)}`,
      });
      if (!got.ok) return problemPage(ctx, reply, scope.page('Monitoring event'), got.problem);
      let result: Awaited<ReturnType<typeof redeliverEvent>>;
      try {
        result = await app.context.transact((trx) => redeliverEvent(trx, ctx.deps, got.body.id));
      } catch (error) {
        // For example: the monitor has no webhook URL any more, or the event's redelivery limit.
        if (!(error instanceof DomainProblem)) throw error;
        if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter));
        return showEvent(request, reply, scope, got.body.id, {
          error: { detail: error.message, status: problemStatus(error) },
        });
      }
      const target = pageUrl(`/dashboard/events/${got.body.id}`, scope.viewer, scope.environment, {
        done: result.brought_forward ? 'brought-forward' : 'redelivered',
        delivery: result.delivery_id,
      });
      return reply.redirect(target, 303);
    },
  );
};
