import type { EnvironmentName } from '../../db/schema.js';
import type { Problem } from '../../http/problems.js';
import type { FieldError } from '../../lib/problem.js';
import { type Html, html } from '../html.js';
import type { Viewer } from '../layout.js';

/** Posted forms: reading their fields, their hidden basics, and a refused form's field errors. */

export type Form = Record<string, string | string[] | undefined>;

/**
 * The fields of a posted form. @fastify/formbody gives text and lists of text; anything else (no
 * body, a JSON body's other values) is no field of a form.
 */
export function formOf(body: unknown): Form {
  const form: Form = {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return form;
  for (const [name, value] of Object.entries(body)) {
    if (typeof value === 'string' || (Array.isArray(value) && value.every(isText))) {
      form[name] = value;
    }
  }
  return form;
}

const isText = (value: unknown): value is string => typeof value === 'string';

/** One value of a posted form ('' when absent). */
export function field(form: Form | undefined, name: string): string {
  const value = form?.[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** Every value of a repeated field (checkboxes). */
export function fields(form: Form | undefined, name: string): string[] {
  return [form?.[name] ?? []].flat();
}

/**
 * The environment a form or a query names: sandbox when none is named, undefined for anything
 * but sandbox or live. The checks playground and the company search refuse an unknown one (422);
 * the monitors' and events' pages treat it as the sandbox (`?? 'sandbox'`).
 */
export function environmentOf(value: string | undefined): EnvironmentName | undefined {
  if (value === undefined || value === '' || value === 'sandbox') return 'sandbox';
  return value === 'live' ? 'live' : undefined;
}

/** The hidden fields every form of the workspace pages posts. */
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

/** A Problem's field errors by JSON pointer (`/webhook_url`), to show next to their fields. */
export function fieldErrors(problem: Problem | undefined): Map<string, FieldError> {
  return new Map((problem?.errors ?? []).map((error) => [error.pointer, error]));
}

/** A field's error from the API's Problem, shown next to it and named by aria-describedby. */
export function fieldError(id: string, error: FieldError | undefined): Html {
  if (!error) return html``;
  return html`<p class="field-error" id="${id}-error"><strong>Error:</strong> ${error.message}</p>`;
}

/** aria-describedby of a field: its hint and its error, when there are any. */
export function describedBy(id: string, error: FieldError | undefined, hint?: string): Html {
  const ids = [hint, error ? `${id}-error` : undefined].filter(Boolean).join(' ');
  return ids ? html`aria-describedby="${ids}"` : html``;
}

/** aria-invalid and aria-describedby of a field with an error (the playground styles them). */
export function invalidAttributes(id: string, error: FieldError | undefined): Html {
  return error ? html`aria-invalid="true" ${describedBy(id, error)}` : html``;
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
