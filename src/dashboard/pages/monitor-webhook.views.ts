import { EVENT_TYPES } from '../../modules/monitors/monitors.schemas.js';
import type { TestDelivery } from '../../modules/webhooks/test-events.service.js';
import { type Html, html } from '../html.js';
import { layout } from '../layout.js';
import type { Monitor } from './api-types.js';
import { formBasics } from './form-parts.js';
import { monitoringStyles } from './monitoring-assets.js';
import { type MonitorPage, monitorUrl, secretOnce } from './monitors.views.js';
import { when } from './page-parts.js';

function testDeliveries(deliveries: TestDelivery[]): Html {
  if (deliveries.length === 0) return html`<p>No test event sent yet.</p>`;
  const outcome = (delivery: TestDelivery) =>
    delivery.attempts === 0
      ? 'waiting for the worker'
      : `${delivery.status}: ${delivery.last_response_status ?? delivery.last_error_code ?? ''}`;
  return html`<div class="table-wrap" role="region" tabindex="0" aria-label="Test deliveries"><table>
    <caption class="skip">Test deliveries</caption>
    <thead><tr><th scope="col">Sent</th><th scope="col">Test event</th><th scope="col">Outcome</th></tr></thead>
    <tbody>${deliveries.map(
      (delivery) =>
        html`<tr><td>${when(delivery.created_at)}</td><td><code>${delivery.event_id}</code></td><td>${outcome(delivery)}</td></tr>`,
    )}</tbody>
  </table></div>`;
}

/**
 * The monitor page's webhook tools, when it has a webhook URL: a test event through the real
 * delivery path, the latest test deliveries, and the rotation of its signing secret.
 */
export function webhookTools(
  page: MonitorPage,
  monitor: Monitor,
  deliveries: TestDelivery[],
): Html {
  if (!monitor.webhook_url) return html``;
  const basics = formBasics(page.csrfToken, page.viewer, page.environment);
  return html`<h3>Test the receiver</h3>
    <p class="hint">A test event is signed with the monitor's secret and sent once to its webhook URL. Its id starts with <code>evt_test_</code>, it lists no changes, and it never appears among the monitor's events.</p>
    <form class="inline" method="post" action="/dashboard/monitors/${monitor.id}/test-event">
      ${basics}
      <label for="test-type">Event type</label>
      <select id="test-type" name="type">${EVENT_TYPES.map((type) => html`<option value="${type}">${type}</option>`)}</select>
      <button type="submit">Send test event</button>
    </form>
    ${testDeliveries(deliveries)}
    <h3>Signing secret</h3>
    <p class="hint">Rotating makes a new secret, shown once; every delivery is signed with it from then on. Let your receiver accept both secrets before you rotate, so that none is refused.</p>
    <form method="post" action="/dashboard/monitors/${monitor.id}/rotate-secret">
      ${basics}
      <button type="submit">Rotate the signing secret</button>
    </form>`;
}

export function secretRotatedPage(page: MonitorPage, monitor: Monitor, secret: string): Html {
  return layout(
    page,
    html`${monitoringStyles()}<h1>Signing secret rotated</h1>
    <p>Deliveries to <code>${monitor.webhook_url ?? ''}</code> are signed with this secret from now on, retries of earlier events included. Deliveries your receiver refuses meanwhile are retried, so none is lost once it has the new secret.</p>
    ${secretOnce(secret)}
    <p><a href="${monitorUrl(page, monitor.id)}">Back to the monitor</a></p>`,
  );
}
