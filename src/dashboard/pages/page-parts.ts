import Type, { type Static } from 'typebox';
import type { EnvironmentName } from '../../db/schema.js';
import { ID_CHARS } from '../../lib/ids.js';
import { type Html, html } from '../html.js';
import type { Viewer } from '../layout.js';

/** Links, timestamps and page furniture shared by the workspace pages (forms: form-parts.ts). */

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

/** Sandbox or live: the same page in the other environment. */
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

/** A timestamp as people read it: to the second, UTC. */
export function when(timestamp: string | null | undefined): string {
  if (!timestamp) return '—';
  return `${timestamp.slice(0, 19).replace('T', ' ')} UTC`;
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

/** Page-specific styles and scripts: linked from the body (the layout's head is shared). */
export function pageAssets(styles: string[], scripts: string[] = []): Html {
  return html`${styles.map((name) => html`<link rel="stylesheet" href="/dashboard/assets/${name}">`)}
  ${scripts.map((name) => html`<script src="/dashboard/assets/${name}" defer></script>`)}`;
}

/**
 * The wrapper that lets a wide table scroll sideways on a phone: focusable and named, so a
 * keyboard can scroll it too (axe: scrollable-region-focusable).
 */
export function tableWrap(label: string, table: Html): Html {
  return html`<div class="table-wrap" tabindex="0" role="group" aria-label="${label}">${table}</div>`;
}

/** `?workspace=`: the pages about a whole workspace (keys, usage, members, MCP clients). */
export const WorkspaceQuery = Type.Object(
  { workspace: Type.Optional(Type.String({ maxLength: 100 })) },
  { additionalProperties: false },
);

/** `?workspace=&environment=`: the properties of every page about one environment. */
export const ENVIRONMENT_QUERY_FIELDS = {
  workspace: Type.Optional(Type.String({ maxLength: 100 })),
  environment: Type.Optional(Type.Enum(['sandbox', 'live'], { type: 'string' })),
};

/** Query of the monitors' and events' pages: workspace, environment, and a page's own extras. */
export const PageQuery = Type.Object(
  {
    ...ENVIRONMENT_QUERY_FIELDS,
    cursor: Type.Optional(Type.String({ maxLength: 2000 })),
    monitor_id: Type.Optional(Type.String({ pattern: `^mon_${ID_CHARS}$` })),
    done: Type.Optional(Type.String({ maxLength: 40 })),
    event: Type.Optional(Type.String({ pattern: `^evt_${ID_CHARS}$` })),
    delivery: Type.Optional(Type.String({ pattern: `^dlv_${ID_CHARS}$` })),
  },
  { additionalProperties: false },
);

export type PageQuery = Static<typeof PageQuery>;

/** `/:id`: the monitor, event, key or MCP client a page is about (its page says if none is). */
export const IdParams = Type.Object({ id: Type.String() });
