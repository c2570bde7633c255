import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../modules/users/users.service.js';
import { type Html, html } from '../html.js';
import { errorSummary, layout, type PageContext } from '../layout.js';
import { monitoringStyles } from './monitoring-assets.js';

export interface AccountForm {
  email: string;
  /** The password is a one-time password: this page is the only one reachable. */
  forced: boolean;
  next?: string;
  error?: { field: 'current' | 'new' | 'again'; message: string };
  done?: string;
}

function fieldError(id: string, message: string | undefined): Html {
  if (!message) return html``;
  return html`<p class="field-error" id="${id}-error"><strong>Error:</strong> ${message}</p>`;
}

function passwordField(
  id: string,
  label: string,
  autocomplete: string,
  error: string | undefined,
  hint?: { id: string; text: string },
): Html {
  const describedBy = [hint?.id, error ? `${id}-error` : undefined].filter(Boolean).join(' ');
  return html`<div>
    <label for="${id}">${label}</label>
    ${hint && html`<p class="hint" id="${hint.id}">${hint.text}</p>`}
    ${fieldError(id, error)}
    <input type="password" id="${id}" name="${id}" autocomplete="${autocomplete}" required
      maxlength="${String(PASSWORD_MAX_LENGTH)}" ${autocomplete === 'new-password' ? html`minlength="${String(PASSWORD_MIN_LENGTH)}"` : ''}
      ${describedBy ? html`aria-describedby="${describedBy}"` : ''} ${error ? html`aria-invalid="true"` : ''}>
  </div>`;
}

/** The change confirmed, and the way on: the page the person was going to, or the dashboard. */
function changedNotice(next: string | undefined): Html {
  return html`<div class="notice" role="status">
    <p>Your password has been changed. Your other sessions have been signed out.</p>
    <p>${next ? html`<a href="${next}">Continue to the page you asked for</a>` : html`<a href="/dashboard/keys">Continue to the dashboard</a>`}</p>
  </div>`;
}

export function accountPage(page: PageContext, form: AccountForm): Html {
  const error = form.error;
  const at = (name: 'current' | 'new' | 'again') =>
    error?.field === name ? error.message : undefined;
  return layout(
    page,
    html`${monitoringStyles()}
    <h1>Your account</h1>
    ${form.done === 'password' && changedNotice(form.next)}
    ${
      form.forced
        ? html`<div class="warning" role="note">
      <p><strong>Choose your own password before you go on.</strong> You signed in with a one-time
      password that was generated for you and shown to whoever created your account; until you
      replace it, this is the only page of the dashboard you can open.</p>
    </div>`
        : ''
    }
    ${errorSummary(error?.message)}
    <p>Signed in as <strong>${form.email}</strong>.</p>
    <h2>Change your password</h2>
    <form class="stack" method="post" action="/dashboard/account/password">
      <input type="hidden" name="_csrf" value="${page.csrfToken}">
      ${form.next && html`<input type="hidden" name="next" value="${form.next}">`}
      <input type="text" name="username" value="${form.email}" autocomplete="username" hidden>
      ${passwordField('current', 'Current password', 'current-password', at('current'))}
      ${passwordField('new', 'New password', 'new-password', at('new'), {
        id: 'new-hint',
        text: `At least ${PASSWORD_MIN_LENGTH} characters; a passphrase of several words is fine. Your other sessions are signed out when it changes.`,
      })}
      ${passwordField('again', 'New password again', 'new-password', at('again'))}
      <button type="submit">Change password</button>
    </form>
    ${
      form.forced
        ? html`<form method="post" action="/dashboard/sign-out">
      <input type="hidden" name="_csrf" value="${page.csrfToken}">
      <button type="submit">Sign out</button>
    </form>`
        : ''
    }`,
  );
}
