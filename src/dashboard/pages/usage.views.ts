import type { CreditLedgerTable, EnvironmentName } from '../../db/schema.js';
import type { UsageSummary } from '../../modules/usage/usage.schemas.js';
import type { DailyUsage } from '../../modules/usage/usage.service.js';
import { Html, html } from '../html.js';
import { layout, type PageContext, type Viewer } from '../layout.js';
import type { ApiResult } from './api.js';
import { problemSummary } from './form-parts.js';
import { pageAssets, tableWrap, when } from './page-parts.js';

export interface EnvironmentUsage {
  environment: EnvironmentName;
  summary: ApiResult<UsageSummary>;
  daily: { period: { start: string; end: string }; days: DailyUsage[] };
}

const month = (start: string) =>
  new Date(start).toLocaleDateString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/**
 * JSON for a `<script type="application/json">`: the element's text is never entity-decoded, so
 * the characters that could end it or start markup are written as JSON escapes instead.
 */
function jsonBlock(id: string, value: unknown): Html {
  const json = JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return html`<script type="application/json" id="${id}">${new Html(json)}</script>`;
}

const caption = (text: string) => html`<caption>${text}</caption>`;

function countsTable(
  title: string,
  first: string,
  rows: Array<{ label: string; requests: number; billable_units: number }>,
): Html {
  if (rows.length === 0) return html`<p>${title}: nothing this month.</p>`;
  return tableWrap(
    title,
    html`<table>
    ${caption(title)}
    <thead><tr><th scope="col">${first}</th><th scope="col">Requests</th><th scope="col">Billable units</th></tr></thead>
    <tbody>${rows.map(
      (r) =>
        html`<tr><th scope="row">${r.label}</th><td>${r.requests}</td><td>${r.billable_units}</td></tr>`,
    )}</tbody>
  </table>`,
  );
}

function environmentSection(usage: EnvironmentUsage): Html {
  const { environment, summary, daily } = usage;
  const id = `usage-${environment}`;
  const name = environment === 'live' ? 'Live' : 'Sandbox';
  if (!summary.ok) {
    return html`<section aria-labelledby="${id}"><h2 id="${id}">${name}</h2>${problemSummary(summary.problem)}</section>`;
  }
  const s = summary.body;
  return html`<section aria-labelledby="${id}">
    <h2 id="${id}">${name}: ${month(s.period.start)}</h2>
    <ul class="totals">
      <li><strong>${s.totals.requests}</strong> requests</li>
      <li><strong>${s.totals.billable_units}</strong> billable units</li>
      <li class="muted">as of ${when(s.as_of)}</li>
    </ul>
    <figure class="chart">
      <figcaption id="${id}-chart-caption">Requests and billable units per day (UTC), ${environment}. The table “Per day” has the same numbers.</figcaption>
      <div class="plot" data-usage-chart data-source="${id}-data" aria-hidden="true"></div>
    </figure>
    ${jsonBlock(`${id}-data`, { environment, days: daily.days })}
    ${countsTable(
      `By source, ${environment}`,
      'Source',
      s.by_source.map((r) => ({ ...r, label: r.source })),
    )}
    ${countsTable(
      `By operation, ${environment}`,
      'Operation (source)',
      s.by_operation.map((r) => ({ ...r, label: `${r.operation} (${r.source})` })),
    )}
    <details>
      <summary>Per day, ${environment}</summary>
      ${countsTable(
        `Per day, ${environment}`,
        'Day (UTC)',
        daily.days.map((d) => ({ ...d, label: d.date })),
      )}
    </details>
  </section>`;
}

function ledgerTable(ledger: CreditLedgerTable[]): Html {
  if (ledger.length === 0) return html`<p>No grants or debits yet.</p>`;
  return tableWrap(
    'Credit ledger',
    html`<table>
    ${caption('Credit ledger, newest first')}
    <thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Units</th><th scope="col">Operation or note</th></tr></thead>
    <tbody>${ledger.map(
      (e) =>
        html`<tr><td>${when(e.created_at)}</td><td>${e.kind}</td><td>${e.units > 0 ? `+${e.units}` : e.units}</td><td>${e.operation ?? e.note ?? ''}</td></tr>`,
    )}</tbody>
  </table>`,
  );
}

export function usagePage(
  page: PageContext & { viewer: Viewer },
  data: {
    environments: EnvironmentUsage[];
    balance: { balance: number; paid_access: boolean };
    ledger: CreditLedgerTable[];
  },
): Html {
  const { balance } = data;
  return layout(
    page,
    html`${pageAssets(['uplot.css', 'playground.css'], ['uplot.js', 'usage-chart.js'])}
    <h1>Usage and credits</h1>
    <p>Operations of the workspace <strong>${page.viewer.current.workspace_name}</strong> this calendar month (UTC), from every channel: the API, MCP, this dashboard and monitoring.</p>
    <section aria-labelledby="credits">
      <h2 id="credits">Credits and paid access</h2>
      <dl class="facts">
        <dt>Credit balance</dt><dd id="credit-balance">${balance.balance} credits</dd>
        <dt>Paid access</dt><dd id="paid-access">${
          balance.paid_access
            ? 'On: live checks, searches and monitor runs cost 1 credit each.'
            : 'Off: billable live operations are refused (402). The operator of this service turns it on; the sandbox is free.'
        }</dd>
      </dl>
      ${ledgerTable(data.ledger)}
    </section>
    ${data.environments.map(environmentSection)}`,
  );
}
