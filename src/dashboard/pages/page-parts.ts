import type { EnvironmentName } from '../../db/schema.js';
import type { FieldError } from '../../http/problems.js';
import { ID_CHARS } from '../../lib/ids.js';
import { type Html, html } from '../html.js';
import type { Viewer } from '../layout.js';

export const ENVIRONMENTS: readonly EnvironmentName[] = ['sandbox', 'live'];

/** A dashboard path in the viewer's workspace and the page's environment, with more query. */
export function pageUrl(
  path: string,
  viewer: Viewer,
  environment: EnvironmentName,
  query: Record<string, string | undefined> = {},
): string {
  const params = new URLSearchParams({ workspace: viewer.current.workspace_id, environment });
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  return `${path}?${params}`;
}

/** Sandbox or live: the same page in the other environment (monitors and events are per environment). */
export function environmentSwitch(
  path: string,
  viewer: Viewer,
  environment: EnvironmentName,
): Html {
  return html`<nav class="env-switch" aria-label="Environment"><ul>
    ${ENVIRONMENTS.map((env) =>
      env === environment
        ? html`<li><a href="${pageUrl(path, viewer, env)}" aria-current="page"><strong>${env}</strong></a></li>`
        : html`<li><a href="${pageUrl(path, viewer, env)}">${env}</a></li>`,
    )}
  </ul></nav>`;
}

/** A timestamp as people read it: minutes, UTC. */
export function when(timestamp: string | null | undefined): string {
  if (!timestamp) return '—';
  return `${timestamp.slice(0, 19).replace('T', ' ')} UTC`;
}

/** The hidden fields every form of these pages posts. */
export function formBasics(
  csrfToken: string,
  viewer: Viewer,
  environment: EnvironmentName,
  idempotencyKey?: string,
): Html {
  return html`<input type="hidden" name="_csrf" value="${csrfToken}">
    <input type="hidden" name="workspace" value="${viewer.current.workspace_id}">
    <input type="hidden" name="environment" value="${environment}">
    ${idempotencyKey && html`<input type="hidden" name="idempotency_key" value="${idempotencyKey}">`}`;
}

/** A field's error from the API's Problem, shown next to it and named by aria-describedby. */
export function fieldError(id: string, error: FieldError | undefined): Html {
  if (!error) return html``;
  return html`<p class="field-error" id="${id}-error"><strong>Error:</strong> ${error.message}</p>`;
}

export function describedBy(id: string, error: FieldError | undefined, hint?: string): Html {
  const ids = [hint, error ? `${id}-error` : undefined].filter(Boolean).join(' ');
  return ids ? html`aria-describedby="${ids}"` : html``;
}

/** A confirmation of what a form just did, shown once on the page it redirected to. */
export function notice(message: string | undefined): Html {
  if (!message) return html``;
  return html`<div class="notice" role="status"><p>${message}</p></div>`;
}

/** The link to the next page of a cursor-paginated list. */
export function nextPageLink(url: string | undefined): Html {
  if (!url) return html``;
  return html`<p><a href="${url}" rel="next">Next page</a></p>`;
}

export type Form = Record<string, string | string[] | undefined>;

/** One value of a posted form ('' when absent). */
export function field(form: Form | undefined, name: string): string {
  const value = form?.[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** Every value of a repeated field (checkboxes). */
export function fields(form: Form | undefined, name: string): string[] {
  return [form?.[name] ?? []].flat();
}

/** The environment a form or a query names; anything else is the sandbox. */
export function environmentOf(value: string | undefined): EnvironmentName {
  return value === 'live' ? 'live' : 'sandbox';
}

/** Query of the monitors' and events' pages: workspace, environment, and a page's own extras. */
export const PAGE_QUERY = {
  type: 'object',
  properties: {
    workspace: { type: 'string', maxLength: 100 },
    environment: { type: 'string', enum: ['sandbox', 'live'] },
    cursor: { type: 'string', maxLength: 2000 },
    monitor_id: { type: 'string', pattern: `^mon_${ID_CHARS}$` },
    done: { type: 'string', maxLength: 40 },
    event: { type: 'string', pattern: `^evt_${ID_CHARS}$` },
    delivery: { type: 'string', pattern: `^dlv_${ID_CHARS}$` },
  },
  additionalProperties: false,
} as const;

export interface PageQuery {
  workspace?: string;
  environment?: EnvironmentName;
  cursor?: string;
  monitor_id?: string;
  done?: string;
  event?: string;
  delivery?: string;
}
