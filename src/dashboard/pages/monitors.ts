import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Problem } from '../../http/problems.js';
import { WATCHED_FIELDS } from '../../modules/monitors/monitors.schemas.js';
import { recentTestDeliveries } from '../../modules/webhooks/test-events.service.js';
import { callApi, idempotencyKeyOf, newIdempotencyKey } from './api.js';
import type {
  List,
  Monitor,
  MonitorCreated,
  MonitorEvent,
  MonitorRun,
  MonitorUpdated,
} from './api-types.js';
import type { RegisterPages } from './context.js';
import { type Form, field, fields, formOf } from './form-parts.js';
import { doneMessage } from './monitor-messages.js';
import { webhookTools } from './monitor-webhook.views.js';
import { registerMonitorWebhookActions } from './monitor-webhook-actions.js';
import { registerMonitoringAssets } from './monitoring-assets.js';
import {
  archiveConfirmPage,
  type MonitorForm,
  monitorCreatedPage,
  monitorPage,
  monitorUrl,
  newMonitorPage,
  webhookChangedPage,
} from './monitors.views.js';
import { registerMonitorListPages } from './monitors-list.js';
import { IdParams, PageQuery, pageUrl } from './page-parts.js';
import { formScope, type PageScope, pageScope, problemPage } from './scope.js';

/** How many events of a monitor its page shows; the rest are on the events list. */
const TIMELINE_LENGTH = 20;

/** Monitors: create (with the signing secret), detail and its actions; the list is monitors-list.ts. */
export const registerMonitorPages: RegisterPages = (app, ctx) => {
  registerMonitoringAssets(app);
  registerMonitorWebhookActions(app, ctx);
  registerMonitorListPages(app, ctx);
  app.get(
    '/monitors/new',
    { ...ctx.guarded, schema: { querystring: PageQuery } },
    async (request, reply) => {
      const scope = await pageScope(ctx, request, reply, request.query);
      if (!scope) return reply;
      const form: MonitorForm = {
        identifier_type: 'vat_number',
        identifier: '',
        country_code: '',
        cadence: 'daily',
        watched_fields: [...WATCHED_FIELDS],
        webhook_url: '',
        idempotency_key: newIdempotencyKey(),
      };
      return ctx.send(reply, newMonitorPage(scope.page('Create a monitor'), form));
    },
  );

  // The created monitor's secret is answered on this POST's own page: it is never shown again.
  app.post('/monitors', ctx.guardedWrite, async (request, reply) => {
    const body = formOf(request.body);
    const scope = await pageScope(ctx, request, reply, formScope(body));
    if (!scope) return reply;
    const form: MonitorForm = {
      identifier_type: field(body, 'identifier_type'),
      identifier: field(body, 'identifier').trim(),
      country_code: field(body, 'country_code').trim(),
      cadence: field(body, 'cadence'),
      watched_fields: fields(body, 'watched_fields'),
      webhook_url: field(body, 'webhook_url').trim(),
      idempotency_key: idempotencyKeyOf(field(body, 'idempotency_key')),
    };
    const created = await callApi<MonitorCreated>(app, request, scope.viewer, scope.environment, {
      method: 'POST',
      url: '/v1/monitors',
      idempotencyKey: form.idempotency_key,
      body: {
        identifier_type: form.identifier_type,
        identifier: form.identifier,
        country_code: form.country_code,
        cadence: form.cadence,
        // No box ticked is sent as none, so the API's own rule (at least one) answers it.
        watched_fields: form.watched_fields,
        ...(form.webhook_url ? { webhook_url: form.webhook_url } : {}),
      },
    });
    if (!created.ok) {
      // A corrected form is a new request: it gets a new key, whatever the API kept of this one.
      const again = { ...form, idempotency_key: newIdempotencyKey() };
      const page = scope.page('Create a monitor');
      return ctx.send(reply, newMonitorPage(page, again, created.problem), created.problem.status);
    }
    const { monitor, webhook_signing_secret } = created.body;
    return ctx.send(
      reply,
      monitorCreatedPage(scope.page('Monitor created'), monitor, webhook_signing_secret),
      201,
    );
  });

  /** The detail page, with what an action just said (a notice or its Problem). */
  async function showMonitor(
    request: FastifyRequest,
    reply: FastifyReply,
    scope: PageScope,
    monitorId: string,
    messages: { notice?: string; problem?: Problem; webhookUrl?: string } = {},
  ) {
    const got = await callApi<Monitor>(app, request, scope.viewer, scope.environment, {
      method: 'GET',
      url: `/v1/monitors/${encodeURIComponent(monitorId)}`,
    });
    if (!got.ok) return problemPage(ctx, reply, scope.page('Monitor'), got.problem);
    const events = await callApi<List<MonitorEvent>>(
      app,
      request,
      scope.viewer,
      scope.environment,
      {
        method: 'GET',
        url: `/v1/monitoring-events?monitor_id=${got.body.id}&limit=${TIMELINE_LENGTH}`,
      },
    );
    if (!events.ok) return problemPage(ctx, reply, scope.page('Monitor'), events.problem);
    const monitor = got.body;
    const scoped = scope.page(
      monitor.company_name ?? monitor.latest_snapshot.legal_name ?? 'Monitor',
    );
    const tests = monitor.webhook_url ? await recentTestDeliveries(ctx.db, monitor.id) : [];
    const page = monitorPage(
      scoped,
      { monitor, events: events.body.data, moreEvents: events.body.pagination.has_more },
      {
        ...messages,
        webhookForm: { url: messages.webhookUrl ?? '', key: newIdempotencyKey() },
      },
      { status: newIdempotencyKey(), run: newIdempotencyKey() },
      webhookTools(scoped, monitor, tests),
    );
    return ctx.send(reply, page, messages.problem?.status ?? 200);
  }

  app.get(
    '/monitors/:id',
    { ...ctx.guarded, schema: { querystring: PageQuery, params: IdParams } },
    async (request, reply) => {
      const scope = await pageScope(ctx, request, reply, request.query);
      if (!scope) return reply;
      return showMonitor(request, reply, scope, request.params.id, {
        notice: doneMessage(request.query),
      });
    },
  );

  /** Where an action goes after it succeeded. */
  type After =
    | { to: 'monitor' | 'list'; query: Record<string, string | undefined> }
    | { to: 'secret' };

  /** Runs an action's operation; on success goes on as `after` says, else shows the Problem. */
  function action(
    path: string,
    operation: (form: Form) => { method: string; suffix?: string; body?: unknown },
    after: (form: Form, result: unknown) => After,
  ) {
    app.post(
      `/monitors/:id/${path}`,
      { ...ctx.guardedWrite, schema: { params: IdParams } },
      async (request, reply) => {
        const form = formOf(request.body);
        const scope = await pageScope(ctx, request, reply, formScope(form));
        if (!scope) return reply;
        const monitorId = request.params.id;
        const { method, suffix = '', body } = operation(form);
        const result = await callApi(app, request, scope.viewer, scope.environment, {
          method,
          url: `/v1/monitors/${encodeURIComponent(monitorId)}${suffix}`,
          body,
          idempotencyKey: idempotencyKeyOf(field(form, 'idempotency_key')),
        });
        if (!result.ok) {
          return showMonitor(request, reply, scope, monitorId, {
            problem: result.problem,
            webhookUrl: field(form, 'webhook_url'),
          });
        }
        const next = after(form, result.body);
        if (next.to === 'secret') {
          // Shown on this POST's own page, which has it from the API's answer.
          const { monitor, webhook_signing_secret } = result.body as MonitorUpdated;
          const page = scope.page('Webhook URL changed');
          return ctx.send(reply, webhookChangedPage(page, monitor, webhook_signing_secret ?? ''));
        }
        const target =
          next.to === 'list'
            ? pageUrl('/dashboard/monitors', scope.viewer, scope.environment, next.query)
            : monitorUrl(scope.page(''), monitorId, next.query);
        return reply.redirect(target, 303);
      },
    );
  }

  action(
    'status',
    (form) => ({ method: 'PATCH', body: { status: field(form, 'status') } }),
    (form) => ({
      to: 'monitor',
      query: { done: field(form, 'status') === 'paused' ? 'paused' : 'resumed' },
    }),
  );
  action(
    'run',
    () => ({ method: 'POST', suffix: '/run', body: {} }),
    (_form, result) => ({
      to: 'monitor',
      query: { done: 'ran', event: (result as MonitorRun).event_id ?? undefined },
    }),
  );
  action(
    'webhook',
    // An empty field removes the URL (null), as the API spells it.
    (form) => ({
      method: 'PATCH',
      body: { webhook_url: field(form, 'webhook_url').trim() || null },
    }),
    (form) =>
      field(form, 'webhook_url').trim()
        ? { to: 'secret' }
        : { to: 'monitor', query: { done: 'webhook-removed' } },
  );
  action(
    'archive',
    () => ({ method: 'DELETE' }),
    () => ({ to: 'list', query: { done: 'archived' } }),
  );

  app.get(
    '/monitors/:id/archive',
    { ...ctx.guarded, schema: { querystring: PageQuery, params: IdParams } },
    async (request, reply) => {
      const scope = await pageScope(ctx, request, reply, request.query);
      if (!scope) return reply;
      const got = await callApi<Monitor>(app, request, scope.viewer, scope.environment, {
        method: 'GET',
        url: `/v1/monitors/${encodeURIComponent(request.params.id)}`,
      });
      if (!got.ok) return problemPage(ctx, reply, scope.page('Archive a monitor'), got.problem);
      return ctx.send(
        reply,
        archiveConfirmPage(scope.page('Archive a monitor'), got.body, newIdempotencyKey()),
      );
    },
  );
};
