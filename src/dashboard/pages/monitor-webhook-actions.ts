import { problemStatus } from '../../http/problems.js';
import { DomainProblem } from '../../lib/problem.js';
import { rotateSigningSecret } from '../../modules/monitors/signing-secret.js';
import { sendTestEvent } from '../../modules/webhooks/test-events.service.js';
import type { Html } from '../html.js';
import { callApi } from './api.js';
import type { Monitor } from './api-types.js';
import type { RegisterPages } from './context.js';
import { type Form, field, formOf } from './form-parts.js';
import { secretRotatedPage } from './monitor-webhook.views.js';
import { monitorUrl } from './monitors.views.js';
import { IdParams } from './page-parts.js';
import { formScope, pageScope, problemPage, type ScopedPage } from './scope.js';

/**
 * The monitor page's webhook tools: "Send test event" and "Rotate the signing secret". Neither is
 * an API operation (docs/decisions.md), so, as redelivery, each reads the monitor through the API
 * first (the viewer's workspace and environment) and then calls its domain service, limited to
 * that workspace.
 */
export const registerMonitorWebhookActions: RegisterPages = (app, ctx) => {
  function webhookAction(
    path: string,
    run: (
      monitor: Monitor,
      scope: { workspaceId: string; page: (title: string) => ScopedPage },
      form: Form,
    ) => Promise<{ to: string } | { page: Html }>,
  ) {
    app.post(
      `/monitors/:id/${path}`,
      { ...ctx.guardedWrite, schema: { params: IdParams } },
      async (request, reply) => {
        const form = formOf(request.body);
        const scope = await pageScope(ctx, request, reply, formScope(form));
        if (!scope) return reply;
        const got = await callApi<Monitor>(app, request, scope.viewer, scope.environment, {
          method: 'GET',
          url: `/v1/monitors/${encodeURIComponent(request.params.id)}`,
        });
        const page = scope.page('Monitor');
        if (!got.ok) return problemPage(ctx, reply, page, got.problem);
        try {
          const workspaceId = scope.viewer.current.workspace_id;
          const next = await run(got.body, { workspaceId, page: scope.page }, form);
          if ('page' in next) return ctx.send(reply, next.page);
          return reply.redirect(next.to, 303);
        } catch (error) {
          // For example: the monitor lost its webhook URL meanwhile.
          if (!(error instanceof DomainProblem)) throw error;
          return problemPage(ctx, reply, page, {
            detail: error.message,
            status: problemStatus(error),
          });
        }
      },
    );
  }

  webhookAction('test-event', async (monitor, { workspaceId, page }, form) => {
    const sent = await app.context.transact((trx) =>
      sendTestEvent(trx, ctx.deps, {
        monitorId: monitor.id,
        type: field(form, 'type'),
        workspaceId,
      }),
    );
    const done = { done: 'test-sent', event: sent.event_id };
    return { to: monitorUrl(page('Monitor'), monitor.id, done) };
  });

  webhookAction('rotate-secret', async (monitor, { workspaceId, page }) => {
    const rotated = await app.context.transact((trx) =>
      rotateSigningSecret(trx, ctx.deps, monitor.id, workspaceId),
    );
    if (!rotated.rotated)
      throw new DomainProblem('not_found', {
        detail: `Monitor ${monitor.id} has no signing secret to rotate.`,
      });
    const rotatedPage = page('Signing secret rotated');
    return { page: secretRotatedPage(rotatedPage, monitor, rotated.webhook_signing_secret) };
  });
};
