import Type from 'typebox';
import type { EnvironmentName } from '../../db/schema.js';
import { MONITOR_HEALTHS, MONITOR_STATUSES } from '../../modules/monitors/monitors.schemas.js';
import { type Html, html } from '../html.js';
import type { Viewer } from '../layout.js';
import { pageUrl } from './page-parts.js';

/**
 * The filters of the check history and the monitors list: the list operations' own query
 * parameters, passed on as typed (the API's validation is the only one, so a bad value is its
 * Problem, naming the field). The same values go into the page's next link and its "Download CSV"
 * link, so the download is what the filters show, every page of it.
 */

// Only a bound on length here: anything longer than the API takes is its 422, not a 400 of ours.
const filterValue = Type.Optional(Type.String({ maxLength: 2048 }));

export const CHECK_FILTER_FIELDS = {
  client_reference: filterValue,
  identifier: filterValue,
  country_code: filterValue,
  created_after: filterValue,
  created_before: filterValue,
};

export const MONITOR_FILTER_FIELDS = {
  status: filterValue,
  health: filterValue,
  client_reference: filterValue,
};

export type Filters = Record<string, string>;

/** The filters a query names; an empty field (a form sends every field) is no filter. */
export function filtersOf(query: Record<string, unknown>, fields: object): Filters {
  const filters: Filters = {};
  for (const name of Object.keys(fields)) {
    const value = query[name];
    if (typeof value === 'string' && value !== '') filters[name] = value;
  }
  return filters;
}

/** The list operation's query: its filters, a page size and the cursor of the page asked for. */
export function listQuery(filters: Filters, limit: number, cursor: string | undefined): string {
  const params = new URLSearchParams({ ...filters, limit: String(limit) });
  if (cursor) params.set('cursor', cursor);
  return params.toString();
}

interface FilterForm {
  /** The page the form shows again, filtered. */
  path: string;
  /** Where the download is. */
  download: string;
  viewer: Viewer;
  environment: EnvironmentName;
  filters: Filters;
  fields: Html;
}

/** A GET form of filters, a way to clear them and the download of what they select. */
function filterForm(form: FilterForm): Html {
  const { viewer, environment, filters } = form;
  const active = Object.keys(filters).length > 0;
  return html`<form class="filters" method="get" action="${form.path}" role="search" aria-label="Filters">
      <input type="hidden" name="workspace" value="${viewer.current.workspace_id}">
      <input type="hidden" name="environment" value="${environment}">
      ${form.fields}
      <button type="submit">Filter</button>
      ${active && html`<a href="${pageUrl(form.path, viewer, environment)}">Clear the filters</a>`}
    </form>
    <p><a id="download-csv" href="${pageUrl(form.download, viewer, environment, filters)}" download>Download CSV</a>
      (every ${active ? 'matching ' : ''}row, not only this page)</p>`;
}

const textFilter = (name: string, label: string, filters: Filters, hint?: string) =>
  html`<div><label for="filter-${name}">${label}</label>
    <input type="text" id="filter-${name}" name="${name}" value="${filters[name] ?? ''}" autocomplete="off" ${hint && html`aria-describedby="${hint}"`}></div>`;

function selectFilter(name: string, label: string, values: readonly string[], filters: Filters) {
  return html`<div><label for="filter-${name}">${label}</label>
    <select id="filter-${name}" name="${name}">
      <option value="">Any</option>
      ${values.map((value) => html`<option value="${value}" ${filters[name] === value ? html`selected` : ''}>${value.replaceAll('_', ' ')}</option>`)}
    </select></div>`;
}

export function checkFilterForm(viewer: Viewer, environment: EnvironmentName, filters: Filters) {
  return filterForm({
    path: '/dashboard/checks/history',
    download: '/dashboard/checks.csv',
    viewer,
    environment,
    filters,
    fields: html`${textFilter('client_reference', 'Client reference', filters)}
      ${textFilter('identifier', 'Identifier', filters)}
      ${textFilter('country_code', 'Country (two letters)', filters)}
      ${textFilter('created_after', 'Created after', filters, 'filter-time-hint')}
      ${textFilter('created_before', 'Created before', filters, 'filter-time-hint')}
      <p class="hint" id="filter-time-hint">Times in RFC 3339, such as 2026-11-01T00:00:00Z.</p>`,
  });
}

export function monitorFilterForm(viewer: Viewer, environment: EnvironmentName, filters: Filters) {
  return filterForm({
    path: '/dashboard/monitors',
    download: '/dashboard/monitors.csv',
    viewer,
    environment,
    filters,
    fields: html`${selectFilter('status', 'Status', MONITOR_STATUSES, filters)}
      ${selectFilter('health', 'Health', MONITOR_HEALTHS, filters)}
      ${textFilter('client_reference', 'Client reference', filters)}`,
  });
}
