import type { MonitorChange } from '../../modules/monitors/monitors.schemas.js';
import type { DeliveryLogEntry } from '../../modules/webhooks/deliveries.service.js';
import { REDELIVERY_LIMIT } from '../../modules/webhooks/redelivery.service.js';
import { type Html, html } from '../html.js';
import { errorSummary, layout } from '../layout.js';
import type { MonitorEvent } from './api-types.js';
import { formBasics } from './form-parts.js';
import { monitoringStyles } from './monitoring-assets.js';
import { environmentSwitch, nextPageLink, notice, pageUrl, when } from './page-parts.js';
import type { ScopedPage } from './scope.js';

export type EventPage = ScopedPage;

const eventUrl = (page: EventPage, id: string) =>
  pageUrl(`/dashboard/events/${id}`, page.viewer, page.environment);

function deliverySummary(event: MonitorEvent): string {
  const { status, attempts, response_status } = event.delivery;
  const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  if (status === 'not_configured') return 'no webhook';
  return `${status.replaceAll('_', ' ')}, ${tries}${response_status ? `, last ${response_status}` : ''}`;
}

const FIELD_LABELS: Record<MonitorChange['field'], string> = {
  registry_match_status: 'Registry match',
  company_legal_status: 'Legal status',
  legal_name: 'Legal name',
  registration_number: 'Registration number',
  vat_numbers: 'VAT numbers',
  registered_address: 'Registered address',
};

/** What an event without changes is about (the monitor's own state). */
const TYPE_SUMMARIES: Record<MonitorEvent['type'], string> = {
  'vat.monitor.change_detected': 'A change was detected',
  'vat.monitor.source_degraded': 'The register could not be reached',
  'vat.monitor.source_restored': 'The register answers again',
  'vat.monitor.needs_credits': 'Not checked: no credits left',
  'vat.monitor.paused': 'Monitor paused',
  'vat.monitor.resumed': 'Monitor resumed',
};

/** A value as one short piece of a line: a long address is cut, not wrapped over rows. */
function shortValue(value: MonitorChange['current']): string {
  const text = value === null ? 'none' : Array.isArray(value) ? value.join(', ') || 'none' : value;
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/** One line about an event: its first change ("Legal status: active → liquidation", "+2 more"). */
function eventSummary(event: Pick<MonitorEvent, 'type' | 'changes'>): string {
  const [first, ...rest] = event.changes;
  if (!first) return TYPE_SUMMARIES[event.type];
  const line = `${FIELD_LABELS[first.field]}: ${shortValue(first.previous)} → ${shortValue(first.current)}`;
  return rest.length > 0 ? `${line} (+${rest.length} more)` : line;
}

/**
 * An event type that wraps only after its dots: the shared `code` style may break anywhere, which
 * cut "change_detected" mid-word in a narrow column.
 */
function eventType(type: string): Html {
  const parts = type.split('.');
  return html`<code class="event-type">${parts.map((part, i) => (i < parts.length - 1 ? html`${part}.<wbr>` : part))}</code>`;
}

/**
 * Events, newest first, each linking to its page (shared by the events list and a monitor's page).
 * With `names` (monitor id to company name) a Company column links each event to its monitor;
 * a monitor's own page has no need of it.
 */
export function eventsTable(
  page: EventPage,
  events: MonitorEvent[],
  caption: string,
  names?: ReadonlyMap<string, string>,
): Html {
  return html`<div class="table-wrap" role="region" tabindex="0" aria-label="${caption}"><table>
    <caption class="skip">${caption}</caption>
    <thead><tr><th scope="col">Recorded</th>${names && html`<th scope="col">Company</th>`}<th scope="col">What changed</th><th scope="col">Type</th><th scope="col">Severity</th><th scope="col">Delivery</th></tr></thead>
    <tbody>${events.map(
      (event) => html`<tr>
      <td><a href="${eventUrl(page, event.id)}">${when(event.created_at)}<span class="skip"> ${event.type}</span></a></td>
      ${names && html`<td><a href="${pageUrl(`/dashboard/monitors/${event.monitor_id}`, page.viewer, page.environment)}">${names.get(event.monitor_id) ?? event.monitor_id}</a></td>`}
      <td>${eventSummary(event)}</td>
      <td>${eventType(event.type)}</td>
      <td>${event.severity}</td>
      <td>${deliverySummary(event)}</td>
    </tr>`,
    )}</tbody>
  </table></div>`;
}

export function eventsListPage(
  page: EventPage,
  events: MonitorEvent[],
  names: ReadonlyMap<string, string>,
  filter: { monitorId?: string; next?: string },
): Html {
  const { viewer, environment } = page;
  return layout(
    page,
    html`${monitoringStyles()}<h1>Monitoring events</h1>
    ${environmentSwitch('/dashboard/events', viewer, environment)}
    <p>Events of <strong>${viewer.current.workspace_name}</strong> in <strong>${environment}</strong>${filter.monitorId && html`, of the monitor <code>${filter.monitorId}</code> (<a href="${pageUrl('/dashboard/events', viewer, environment)}">all monitors</a>)`}, newest first.</p>
    ${events.length === 0 ? html`<p>No events yet.</p>` : eventsTable(page, events, 'Monitoring events', names)}
    ${nextPageLink(filter.next)}`,
  );
}

function changeValue(value: MonitorChange['current']): Html {
  if (value === null) return html`<span class="muted">none</span>`;
  return html`<code>${Array.isArray(value) ? JSON.stringify(value) : value}</code>`;
}

function attemptsTable(delivery: DeliveryLogEntry): Html {
  if (delivery.log.length === 0) return html`<p>No attempt yet.</p>`;
  return html`<div class="table-wrap" role="region" tabindex="0" aria-label="Attempts of the delivery ${delivery.id}"><table>
    <caption class="skip">Attempts of the delivery ${delivery.id}</caption>
    <thead><tr><th scope="col">#</th><th scope="col">Time</th><th scope="col">Address</th><th scope="col">Status or error</th><th scope="col">Duration</th><th scope="col">Response excerpt</th></tr></thead>
    <tbody>${delivery.log.map(
      (attempt) => html`<tr>
      <td>${attempt.number}</td>
      <td>${when(attempt.attempted_at)}</td>
      <td>${attempt.address ? html`<code>${attempt.address}</code>` : '—'}</td>
      <td>${attempt.response_status ?? html`<code>${attempt.error_code ?? ''}</code> ${attempt.error_message ?? ''}`}</td>
      <td>${attempt.duration_ms} ms</td>
      <td>${attempt.response_excerpt ? html`<code>${attempt.response_excerpt}</code>` : '—'}</td>
    </tr>`,
    )}</tbody>
  </table></div>`;
}

function deliveriesSection(deliveries: DeliveryLogEntry[]): Html {
  if (deliveries.length === 0)
    return html`<p>No webhook deliveries: the monitor had no webhook URL when the event was recorded.</p>`;
  return html`${deliveries.map(
    (delivery) => html`<section class="delivery" aria-labelledby="h-${delivery.id}">
      <h3 id="h-${delivery.id}">Delivery <code>${delivery.id}</code></h3>
      <p>To <code>${delivery.url}</code>: <strong>${delivery.status}</strong>, ${delivery.attempts} ${delivery.attempts === 1 ? 'attempt' : 'attempts'}; created ${when(delivery.created_at)}${delivery.completed_at && `, finished ${when(delivery.completed_at)}`}${delivery.next_attempt_at && `, next attempt ${when(delivery.next_attempt_at)}`}.</p>
      ${attemptsTable(delivery)}
    </section>`,
  )}`;
}

/** The stored body, pretty-printed; the bytes sent are the compact form, shown as they are too. */
function envelopeSection(body: string | undefined): Html {
  if (body === undefined) return html`<p>Nothing was delivered, so there is no stored body.</p>`;
  let pretty = body;
  try {
    pretty = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    // A stored body is JSON we wrote; if it ever is not, show it as it is.
  }
  return html`<p>This is the stored body of the delivery, the exact bytes every attempt sends (${Buffer.byteLength(body)} bytes, signed afresh at each attempt), pretty-printed for reading.</p>
    <pre class="envelope" tabindex="0" aria-label="Envelope, pretty-printed"><code>${pretty}</code></pre>
    <details><summary>The bytes as sent</summary><pre class="envelope" tabindex="0" aria-label="Envelope as sent"><code id="envelope-raw">${body}</code></pre></details>`;
}

export interface EventDetail {
  event: MonitorEvent;
  deliveries: DeliveryLogEntry[];
  /** The stored body of the event's deliveries (every delivery of an event has the same bytes). */
  body: string | undefined;
}

export function eventPage(
  page: EventPage,
  { event, deliveries, body }: EventDetail,
  messages: { notice?: string; error?: string },
): Html {
  const { viewer, environment } = page;
  return layout(
    page,
    html`${monitoringStyles()}<h1>Event ${eventType(event.type)}</h1>
    ${notice(messages.notice)}
    ${errorSummary(messages.error)}
    <dl class="facts">
      <dt>Event</dt><dd><code>${event.id}</code> (${environment})</dd>
      <dt>Recorded</dt><dd>${when(event.created_at)}</dd>
      <dt>Severity</dt><dd>${event.severity}</dd>
      <dt>Monitor</dt><dd><a href="${pageUrl(`/dashboard/monitors/${event.monitor_id}`, viewer, environment)}"><code>${event.monitor_id}</code></a></dd>
      <dt>Check</dt><dd>${event.check_id ? html`<code>${event.check_id}</code>` : '—'}</dd>
      <dt>Delivery</dt><dd>${deliverySummary(event)}</dd>
      <dt>Acknowledged</dt><dd>${when(event.acknowledged_at)}</dd>
    </dl>
    <h2>Changes</h2>
    ${
      event.changes.length === 0
        ? html`<p>None: this event is about the monitor's own state.</p>`
        : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Changes"><table>
      <caption class="skip">Changes</caption>
      <thead><tr><th scope="col">Field</th><th scope="col">Before</th><th scope="col">Now</th></tr></thead>
      <tbody>${event.changes.map((change) => html`<tr><td>${FIELD_LABELS[change.field]}</td><td>${changeValue(change.previous)}</td><td>${changeValue(change.current)}</td></tr>`)}</tbody>
    </table></div>`
    }
    <h2>Envelope</h2>
    ${envelopeSection(body)}
    <h2>Delivery attempts</h2>
    ${deliveriesSection(deliveries)}
    <h2>Redeliver</h2>
    <p>Sends the same body again to the monitor's current webhook URL, signed afresh. A delivery that is still queued or being retried is not doubled: its next attempt is brought forward to now. An event can be redelivered at most ${REDELIVERY_LIMIT.redeliveries} times an hour.</p>
    <form method="post" action="/dashboard/events/${event.id}/redeliver">
      ${formBasics(page.csrfToken, viewer, environment)}
      <button type="submit">Redeliver the event</button>
    </form>
    <p><a href="${pageUrl('/dashboard/events', viewer, environment)}">Back to the events</a></p>`,
  );
}
