import { IDENTIFIER_TYPES } from '../../formats/format-rule.js';
import type { Problem } from '../../http/problems.js';
import { monitorDisplayName } from '../../modules/monitors/monitor-names.js';
import {
  MONITOR_CADENCES,
  type MonitorSnapshot,
  WATCHED_FIELDS,
} from '../../modules/monitors/monitors.schemas.js';
import { type Html, html } from '../html.js';
import { errorSummary, layout } from '../layout.js';
import type { Monitor, MonitorEvent } from './api-types.js';
import { eventsTable } from './events.views.js';
import { describedBy, fieldError, fieldErrors, formBasics, problemSummary } from './form-parts.js';
import { type Filters, monitorFilterForm } from './list-filters.js';
import { monitoringStyles } from './monitoring-assets.js';
import { environmentSwitch, nextPageLink, notice, pageUrl, when } from './page-parts.js';
import type { ScopedPage } from './scope.js';

export type MonitorPage = ScopedPage;

const label = (text: string) => text.replaceAll('_', ' ');

export const monitorUrl = (page: MonitorPage, id: string, query = {}) =>
  pageUrl(`/dashboard/monitors/${id}`, page.viewer, page.environment, query);

function monitorName(monitor: Monitor): string {
  return monitorDisplayName({
    company_name: monitor.company_name,
    legal_name: monitor.latest_snapshot.legal_name,
    identifier: monitor.identifier.normalized,
  });
}

export interface MonitorsList {
  monitors: Monitor[];
  filters: Filters;
  /** The next page's address, when there is one. */
  next?: string;
  message?: string;
  /** The API's refusal of the filters: shown above them, with no rows. */
  problem?: Problem;
}

export function monitorsListPage(
  page: MonitorPage,
  { monitors, filters, next, message, problem }: MonitorsList,
): Html {
  const { viewer, environment } = page;
  const filtered = Object.keys(filters).length > 0;
  return layout(
    page,
    html`${monitoringStyles()}<h1>Monitors</h1>
    ${environmentSwitch('/dashboard/monitors', viewer, environment)}
    ${notice(message)}
    ${problemSummary(problem)}
    <p>Monitors of <strong>${viewer.current.workspace_name}</strong> in <strong>${environment}</strong>, most recently updated first.</p>
    <p><a href="${pageUrl('/dashboard/monitors/new', viewer, environment)}">Create a monitor</a></p>
    ${monitorFilterForm(viewer, environment, filters)}
    ${
      problem
        ? ''
        : monitors.length === 0
          ? html`<p>${filtered ? `No monitors in ${environment} match the filters.` : `No monitors in ${environment} yet.`}</p>`
          : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Monitors"><table>
      <caption class="skip">Monitors</caption>
      <thead><tr><th scope="col">Company</th><th scope="col">Identifier</th><th scope="col">Status</th><th scope="col">Health</th><th scope="col">Cadence</th><th scope="col">Webhook</th><th scope="col">Last checked</th></tr></thead>
      <tbody>${monitors.map(
        (monitor) => html`<tr>
        <td><a href="${monitorUrl(page, monitor.id)}">${monitorName(monitor)}</a></td>
        <td><code>${monitor.identifier.normalized}</code> (${monitor.identifier.country_code})</td>
        <td>${monitor.status}</td>
        <td>${label(monitor.health)}</td>
        <td>${monitor.cadence}</td>
        <td>${monitor.webhook_url ? 'yes' : 'no'}</td>
        <td>${when(monitor.last_checked_at)}</td>
      </tr>`,
      )}</tbody>
    </table></div>`
    }
    ${nextPageLink(next)}`,
  );
}

export interface MonitorForm {
  identifier_type: string;
  identifier: string;
  country_code: string;
  cadence: string;
  watched_fields: string[];
  webhook_url: string;
  idempotency_key: string;
}

export function newMonitorPage(page: MonitorPage, form: MonitorForm, problem?: Problem): Html {
  const errors = fieldErrors(problem);
  const textField = (
    id: keyof MonitorForm,
    text: string,
    attributes: Html,
    hint?: { id: string; text: string },
  ) => html`<div>
      <label for="${id}">${text}</label>
      ${hint && html`<p class="hint" id="${hint.id}">${hint.text}</p>`}
      ${fieldError(id, errors.get(`/${id}`))}
      <input type="text" id="${id}" name="${id}" value="${form[id] as string}" ${attributes} ${describedBy(id, errors.get(`/${id}`), hint?.id)}>
    </div>`;
  return layout(
    page,
    html`${monitoringStyles()}<h1>Create a monitor in ${page.environment}</h1>
    ${errorSummary(problem?.detail)}
    ${page.environment === 'live' ? html`<p class="warning">The baseline check is billable in live (one check), and so is every recheck.</p>` : html`<p>Sandbox monitors follow the fixture timelines of docs/sandbox.md, for example <code>GB999000341</code> (GB, VAT number): its first run records a change.</p>`}
    <form class="stack" method="post" action="/dashboard/monitors">
      ${formBasics(page.csrfToken, page.viewer, page.environment, form.idempotency_key)}
      <div>
        <label for="identifier_type">Identifier type</label>
        ${fieldError('identifier_type', errors.get('/identifier_type'))}
        <select id="identifier_type" name="identifier_type" ${describedBy('identifier_type', errors.get('/identifier_type'))}>
          ${IDENTIFIER_TYPES.map((type) => html`<option value="${type}" ${type === form.identifier_type ? html`selected` : ''}>${label(type)}</option>`)}
        </select>
      </div>
      ${textField('identifier', 'Identifier', html`required maxlength="128" autocomplete="off"`)}
      ${textField('country_code', 'Country', html`required maxlength="2" size="3" autocomplete="off"`, { id: 'country-hint', text: 'Two letters, for example GB or DE.' })}
      <div>
        <label for="cadence">Cadence</label>
        ${fieldError('cadence', errors.get('/cadence'))}
        <select id="cadence" name="cadence" ${describedBy('cadence', errors.get('/cadence'))}>
          ${MONITOR_CADENCES.map((cadence) => html`<option value="${cadence}" ${cadence === form.cadence ? html`selected` : ''}>${cadence}</option>`)}
        </select>
      </div>
      <fieldset ${describedBy('watched_fields', errors.get('/watched_fields'))}>
        <legend>Watched fields</legend>
        ${fieldError('watched_fields', errors.get('/watched_fields'))}
        ${WATCHED_FIELDS.map(
          (field) =>
            html`<div><input type="checkbox" id="watch-${field}" name="watched_fields" value="${field}" ${form.watched_fields.includes(field) ? html`checked` : ''}><label for="watch-${field}">${label(field)}</label></div>`,
        )}
      </fieldset>
      ${textField('webhook_url', 'Webhook URL (optional)', html`maxlength="2048" inputmode="url" autocomplete="off"`, { id: 'webhook-hint', text: 'A public https:// address; events are posted to it, signed. Leave it empty to read events here and through the API only.' })}
      <button type="submit">Create the monitor</button>
    </form>
    <p><a href="${pageUrl('/dashboard/monitors', page.viewer, page.environment)}">Back to the monitors</a></p>`,
  );
}

/** The signing secret, on the page of the request that returned it. */
export function secretOnce(secret: string): Html {
  return html`<h2>Webhook signing secret</h2>
    <div class="warning" role="note">
      <p><strong>Copy this secret now and keep it secret.</strong> Your receiver needs it to verify the <code>Service-Signature</code> header. The API returns it again whenever a request sets the webhook URL; <code>npx firmwatch monitors rotate-secret</code> replaces it.</p>
    </div>
    <code class="key" id="signing-secret">${secret}</code>
    <button type="button" data-copy-target="signing-secret" data-copy-status="copy-status">Copy the secret</button>
    <p id="copy-status" role="status" aria-live="polite"></p>`;
}

export function monitorCreatedPage(
  page: MonitorPage,
  monitor: Monitor,
  secret: string | undefined,
): Html {
  return layout(
    page,
    html`${monitoringStyles()}<h1>Monitor created</h1>
    <p>${monitorName(monitor)} (<code>${monitor.identifier.normalized}</code>) is monitored ${monitor.cadence}; the baseline check is <code>${monitor.baseline_check_id}</code>.</p>
    ${secret ? secretOnce(secret) : html`<p>It has no webhook URL: its events are listed on its page.</p>`}
    <p><a href="${monitorUrl(page, monitor.id)}">Go to the monitor</a></p>`,
  );
}

export function webhookChangedPage(page: MonitorPage, monitor: Monitor, secret: string): Html {
  return layout(
    page,
    html`${monitoringStyles()}<h1>Webhook URL changed</h1>
    <p>Events of ${monitorName(monitor)} are now posted to <code>${monitor.webhook_url ?? ''}</code>.</p>
    ${secretOnce(secret)}
    <p><a href="${monitorUrl(page, monitor.id)}">Back to the monitor</a></p>`,
  );
}

function snapshotList(snapshot: MonitorSnapshot): Html {
  const rows: Array<[string, Html | string]> = [
    ['Registry match', label(snapshot.registry_match_status)],
    ['Legal status', label(snapshot.company_legal_status)],
    ['Legal name', snapshot.legal_name ?? '—'],
    ['Registration number', snapshot.registration_number ?? '—'],
    ['VAT numbers', snapshot.vat_numbers.join(', ') || '—'],
    ['Registered address', snapshot.registered_address ?? '—'],
    ['Observed', when(snapshot.observed_at)],
    ['Check', html`<code>${snapshot.check_id}</code>`],
  ];
  return html`<dl class="facts">${rows.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>`;
}

export interface MonitorDetail {
  monitor: Monitor;
  events: MonitorEvent[];
  moreEvents: boolean;
}

export function monitorPage(
  page: MonitorPage,
  { monitor, events, moreEvents }: MonitorDetail,
  messages: { notice?: string; problem?: Problem; webhookForm: { url: string; key: string } },
  keys: { status: string; run: string },
  webhookTools: Html,
): Html {
  const { viewer, environment } = page;
  const errors = fieldErrors(messages.problem);
  const pauseOrResume = monitor.status === 'paused' ? 'active' : 'paused';
  return layout(
    page,
    html`${monitoringStyles()}<h1>${monitorName(monitor)}</h1>
    ${notice(messages.notice)}
    ${errorSummary(messages.problem?.detail)}
    <dl class="facts">
      <dt>Monitor</dt><dd><code>${monitor.id}</code> (${environment})</dd>
      <dt>Identifier</dt><dd><code>${monitor.identifier.normalized}</code>, ${label(monitor.identifier.type)}, ${monitor.identifier.country_code}</dd>
      <dt>Status</dt><dd>${monitor.status}</dd>
      <dt>Health</dt><dd>${label(monitor.health)}${monitor.last_error_code && html` (${monitor.last_error_code})`}</dd>
      <dt>Cadence</dt><dd>${monitor.cadence}; next check ${when(monitor.next_check_at)}</dd>
      <dt>Watched fields</dt><dd>${monitor.watched_fields.map(label).join(', ')}</dd>
      <dt>Webhook URL</dt><dd>${monitor.webhook_url ? html`<code>${monitor.webhook_url}</code>` : 'none'}</dd>
      <dt>Last checked</dt><dd>${when(monitor.last_checked_at)}</dd>
    </dl>

    <h2>Actions</h2>
    <div class="actions">
      <form method="post" action="/dashboard/monitors/${monitor.id}/status">
        ${formBasics(page.csrfToken, viewer, environment, keys.status)}
        <input type="hidden" name="status" value="${pauseOrResume}">
        <button type="submit">${pauseOrResume === 'paused' ? 'Pause' : 'Resume'} the monitor</button>
      </form>
      <form method="post" action="/dashboard/monitors/${monitor.id}/run">
        ${formBasics(page.csrfToken, viewer, environment, keys.run)}
        <button type="submit">Run now</button>
      </form>
      <a class="button-link danger" href="${pageUrl(`/dashboard/monitors/${monitor.id}/archive`, viewer, environment)}">Archive…</a>
    </div>
    ${environment === 'live' && html`<p class="hint">A run is billable in live (one check).</p>`}

    <h2 id="webhook">Webhook URL</h2>
    <form class="stack" method="post" action="/dashboard/monitors/${monitor.id}/webhook">
      ${formBasics(page.csrfToken, viewer, environment, messages.webhookForm.key)}
      <div>
        <label for="webhook_url">New webhook URL</label>
        <p class="hint" id="webhook-url-hint">Setting a URL shows the monitor's signing secret (made with its first URL). Leave it empty to stop deliveries.</p>
        ${fieldError('webhook_url', errors.get('/webhook_url'))}
        <input type="text" id="webhook_url" name="webhook_url" maxlength="2048" inputmode="url" autocomplete="off" value="${messages.webhookForm.url}" ${describedBy('webhook_url', errors.get('/webhook_url'), 'webhook-url-hint')}>
      </div>
      <button type="submit">Change the webhook URL</button>
    </form>
    ${webhookTools}

    <h2>Latest snapshot</h2>
    ${snapshotList(monitor.latest_snapshot)}

    <h2>Events</h2>
    ${events.length === 0 ? html`<p>No events yet.</p>` : eventsTable(page, events, 'Events of this monitor')}
    ${moreEvents && html`<p><a href="${pageUrl('/dashboard/events', viewer, environment, { monitor_id: monitor.id })}">All events of this monitor</a></p>`}
    <p><a href="${pageUrl('/dashboard/monitors', viewer, environment)}">Back to the monitors</a></p>`,
  );
}

export function archiveConfirmPage(page: MonitorPage, monitor: Monitor, key: string): Html {
  return layout(
    page,
    html`${monitoringStyles()}<h1>Archive ${monitorName(monitor)}?</h1>
    <p>Rechecks of <code>${monitor.identifier.normalized}</code> stop, no more events are delivered and its slot is freed. Its events stay readable. An archived monitor cannot be restored.</p>
    <form method="post" action="/dashboard/monitors/${monitor.id}/archive">
      ${formBasics(page.csrfToken, page.viewer, page.environment, key)}
      <button type="submit" class="danger">Archive the monitor</button>
    </form>
    <p><a href="${monitorUrl(page, monitor.id)}">Cancel</a></p>`,
  );
}
