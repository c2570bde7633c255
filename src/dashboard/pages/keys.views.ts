import type { ApiKeySummary, CreatedApiKey } from '../../modules/accounts/accounts.service.js';
import { ALL_SCOPES } from '../../modules/accounts/scopes.js';
import { type Html, html } from '../html.js';
import { errorSummary, layout, type PageContext, type Viewer, withWorkspace } from '../layout.js';

/** To the minute, UTC: the key verifier records a use at most once a minute. */
function lastUsed(at: string | null): string {
  return at ? `${at.slice(0, 16).replace('T', ' ')} UTC` : 'Never';
}

/** Owners revoke keys: only their table has the action column. */
const revokes = (viewer: Viewer) => viewer.current.role === 'owner';

function keyRow(key: ApiKeySummary, viewer: Viewer): Html {
  return html`<tr class="${key.revoked_at ? 'revoked' : ''}">
    <td>${key.name ?? html`<span class="muted">(no name)</span>`}</td>
    <td>${key.environment}</td>
    <td><code>${key.display_prefix}…</code></td>
    <td>${key.scopes.join(', ')}</td>
    <td>${key.created_at.slice(0, 16).replace('T', ' ')} UTC</td>
    <td>${lastUsed(key.last_used_at)}</td>
    <td>${key.revoked_at ? html`revoked <span class="muted">${key.revoked_at.slice(0, 10)}</span>` : 'active'}</td>
    ${
      revokes(viewer) &&
      html`<td>${
        !key.revoked_at &&
        html`<a href="${withWorkspace(`/dashboard/keys/${key.id}/revoke`, viewer)}">Revoke<span class="skip"> ${key.name ?? key.display_prefix}</span></a>`
      }</td>`
    }
  </tr>`;
}

export function keysPage(
  page: PageContext & { viewer: Viewer },
  keys: ApiKeySummary[],
  error?: string,
): Html {
  const { viewer } = page;
  return layout(
    page,
    html`<h1>API keys</h1>
    ${errorSummary(error)}
    <p>Keys of the workspace <strong>${viewer.current.workspace_name}</strong>. A key is shown only once, when it is created.</p>
    ${
      keys.length === 0
        ? html`<p>No keys yet.</p>`
        : html`<div class="table-wrap"><table>
      <caption class="skip">API keys</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Environment</th><th scope="col">Prefix</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th>${revokes(viewer) && html`<th scope="col">Action</th>`}</tr></thead>
      <tbody>${keys.map((key) => keyRow(key, viewer))}</tbody>
    </table></div>`
    }
    <h2 id="create">Create a key</h2>
    <form class="stack" method="post" action="/dashboard/keys">
      <input type="hidden" name="_csrf" value="${page.csrfToken}">
      <input type="hidden" name="workspace" value="${viewer.current.workspace_id}">
      <div>
        <label for="key-name">Name</label>
        <p class="hint" id="key-name-hint">So that you recognise it later, for example "billing service".</p>
        <input type="text" id="key-name" name="name" maxlength="200" aria-describedby="key-name-hint">
      </div>
      <fieldset>
        <legend>Environment</legend>
        <div><input type="radio" id="env-sandbox" name="environment" value="sandbox" checked><label for="env-sandbox">Sandbox (svc_test_, fixtures, no credits)</label></div>
        <div><input type="radio" id="env-live" name="environment" value="live"><label for="env-live">Live (svc_live_, billed)</label></div>
      </fieldset>
      <fieldset>
        <legend>Scopes</legend>
        ${ALL_SCOPES.map(
          (scope) =>
            html`<div><input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}" checked><label for="scope-${scope}">${scope}</label></div>`,
        )}
      </fieldset>
      <button type="submit">Create key</button>
    </form>`,
  );
}

export function keyCreatedPage(page: PageContext & { viewer: Viewer }, key: CreatedApiKey): Html {
  return layout(
    page,
    html`<h1>Your new API key</h1>
    <div class="warning" role="note">
      <p><strong>Copy this key now. It will not be shown again:</strong> only its hash is stored. If you lose it, revoke it and create another.</p>
    </div>
    <p>${key.name ?? '(no name)'}, ${key.environment}, scopes ${key.scopes.join(', ')}.</p>
    <code class="key" id="new-key">${key.key}</code>
    <button type="button" data-copy-target="new-key" data-copy-status="copy-status">Copy the key</button>
    <p id="copy-status" role="status" aria-live="polite"></p>
    <p><a href="${withWorkspace('/dashboard/keys', page.viewer)}">Back to the API keys</a></p>`,
  );
}

export function revokeConfirmPage(
  page: PageContext & { viewer: Viewer },
  key: ApiKeySummary,
): Html {
  return layout(
    page,
    html`<h1>Revoke the key ${key.name ?? key.display_prefix}?</h1>
    <p>Requests with the key <code>${key.display_prefix}…</code> (${key.environment}) will be refused at once. This cannot be undone.</p>
    <form method="post" action="/dashboard/keys/${key.id}/revoke">
      <input type="hidden" name="_csrf" value="${page.csrfToken}">
      <input type="hidden" name="workspace" value="${page.viewer.current.workspace_id}">
      <button type="submit" class="danger">Revoke the key</button>
    </form>
    <p><a href="${withWorkspace('/dashboard/keys', page.viewer)}">Cancel</a></p>`,
  );
}
