import type { EnvironmentName } from '../../db/schema.js';
import type { FieldError, Problem } from '../../http/problems.js';
import { type Html, html } from '../html.js';
import type { Viewer } from '../layout.js';

/** Shared by the usage, checks and companies pages. */

export type Form = Record<string, string | string[] | undefined>;

export function formField(form: Form | undefined, name: string): string {
  const value = form?.[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** `?environment=` of a page: sandbox unless live is asked for. */
export function environmentOf(value: string | undefined): EnvironmentName | undefined {
  if (value === undefined || value === '' || value === 'sandbox') return 'sandbox';
  return value === 'live' ? 'live' : undefined;
}

export const ENVIRONMENT_QUERY = {
  workspace: { type: 'string', maxLength: 100 },
  environment: { type: 'string', enum: ['sandbox', 'live'] },
} as const;

/** A dashboard path in the viewer's workspace and an environment, with more query parameters. */
export function urlIn(
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
export function environmentLinks(path: string, viewer: Viewer, current: EnvironmentName): Html {
  return html`<nav class="env-switch" aria-label="Environment"><ul>
    ${(['sandbox', 'live'] as const).map((env) =>
      env === current
        ? html`<li><a href="${urlIn(path, viewer, env)}" aria-current="page"><strong>${env}</strong></a></li>`
        : html`<li><a href="${urlIn(path, viewer, env)}">${env}</a></li>`,
    )}
  </ul></nav>`;
}

/** A timestamp as people read it: seconds, UTC. */
export function at(timestamp: string | null | undefined): string {
  return timestamp ? `${timestamp.slice(0, 19).replace('T', ' ')} UTC` : '—';
}

/** An API Problem on a page: its title and detail, never a stack trace. */
export function problemSummary(problem: Problem | undefined): Html {
  if (!problem) return html``;
  return html`<div class="error-summary" role="alert" tabindex="-1">
    <h2>${problem.title} (${problem.status})</h2>
    <p>${problem.detail}</p>
    ${
      problem.errors?.length
        ? html`<ul>${problem.errors.map((e) => html`<li><code>${e.pointer || '/'}</code>: ${e.message}</li>`)}</ul>`
        : ''
    }
  </div>`;
}

/** The field errors of a Problem by JSON pointer (`/identifier`). */
export function errorsByPointer(problem: Problem | undefined): Map<string, FieldError> {
  return new Map((problem?.errors ?? []).map((error) => [error.pointer, error]));
}

/** A field's error, next to it; the input names it with aria-describedby and aria-invalid. */
export function errorFor(id: string, error: FieldError | undefined): Html {
  if (!error) return html``;
  return html`<p class="field-error" id="${id}-error"><strong>Error:</strong> ${error.message}</p>`;
}

export function invalidAttributes(id: string, error: FieldError | undefined): Html {
  return error ? html`aria-invalid="true" aria-describedby="${id}-error"` : html``;
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
