import type { AuthorizationRequest } from '../modules/oauth/oauth.service.js';
import type { AuthorizedClient } from '../modules/oauth/oauth-tokens.service.js';
import { type Html, html } from './html.js';
import { errorSummary, layout, type PageContext, type Viewer } from './layout.js';

const when = (timestamp: string | null) =>
  timestamp ? `${timestamp.slice(0, 16).replace('T', ' ')} UTC` : 'Never';

/** The request's parameters, carried again by the consent form (and checked again on POST). */
function requestFields(request: AuthorizationRequest): Html {
  const fields: Record<string, string | undefined> = {
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    response_type: 'code',
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
    scope: request.scopes.join(' '),
    state: request.state,
    resource: request.resource,
  };
  return html`${Object.entries(fields).map(([name, value]) =>
    value === undefined ? '' : html`<input type="hidden" name="${name}" value="${value}">`,
  )}`;
}

export function consentPage(
  page: PageContext & { viewer: Viewer },
  request: AuthorizationRequest,
  error?: string,
): Html {
  const { viewer } = page;
  const receiver = new URL(request.redirectUri).host;
  return layout(
    page,
    html`<h1>Allow ${request.clientName} to use firmwatch?</h1>
    ${errorSummary(error)}
    <p><strong>${request.clientName}</strong> (an MCP client; it will receive its access at <code>${receiver}</code>) asks to call the firmwatch tools as you. Choose what it may do. You can revoke it at any time under MCP clients.</p>
    <form class="stack" method="post" action="/dashboard/oauth/consent">
      <input type="hidden" name="_csrf" value="${page.csrfToken}">
      ${requestFields(request)}
      <div>
        <label for="consent-workspace">Workspace the client works in</label>
        <select id="consent-workspace" name="workspace">
          ${viewer.workspaces.map(
            (w) =>
              html`<option value="${w.workspace_id}" ${w.workspace_id === viewer.current.workspace_id ? html`selected` : ''}>${w.workspace_name}</option>`,
          )}
        </select>
      </div>
      <fieldset>
        <legend>Environment</legend>
        <div><input type="radio" id="consent-sandbox" name="environment" value="sandbox" checked><label for="consent-sandbox">Sandbox (fixtures, no credits)</label></div>
        <div><input type="radio" id="consent-live" name="environment" value="live"><label for="consent-live">Live (billed)</label></div>
      </fieldset>
      <fieldset>
        <legend>Scopes</legend>
        ${request.scopes.map(
          (scope) =>
            html`<div><input type="checkbox" id="consent-scope-${scope}" name="scopes" value="${scope}" checked><label for="consent-scope-${scope}">${scope}</label></div>`,
        )}
      </fieldset>
      <div>
        <button type="submit" name="decision" value="approve">Allow</button>
        <button type="submit" name="decision" value="deny" class="danger">Deny</button>
      </div>
    </form>`,
  );
}

export function authorizedClientsPage(
  page: PageContext & { viewer: Viewer },
  clients: AuthorizedClient[],
): Html {
  return layout(
    page,
    html`<h1>MCP clients</h1>
    <p>MCP clients you allowed to use firmwatch by signing in (OAuth). Revoking one ends its access at once, in every workspace it was given.</p>
    ${
      clients.length === 0
        ? html`<p>No MCP client is authorized.</p>`
        : html`<div class="table-wrap"><table>
      <caption class="skip">Authorized MCP clients</caption>
      <thead><tr><th scope="col">Client</th><th scope="col">Workspace</th><th scope="col">Environment</th><th scope="col">Scopes</th><th scope="col">Authorized</th><th scope="col">Last used</th><th scope="col">Action</th></tr></thead>
      <tbody>${clients.map(
        (c) => html`<tr>
        <td>${c.client_name}</td>
        <td>${c.workspace_name}</td>
        <td>${c.environment}</td>
        <td>${c.scopeList.join(', ')}</td>
        <td>${when(c.created_at)}</td>
        <td>${when(c.last_used_at)}</td>
        <td><form method="post" action="/dashboard/oauth/clients/${c.id}/revoke">
          <input type="hidden" name="_csrf" value="${page.csrfToken}">
          <button type="submit" class="danger">Revoke<span class="skip"> ${c.client_name} (${c.workspace_name}, ${c.environment})</span></button>
        </form></td>
      </tr>`,
      )}</tbody>
    </table></div>`
    }`,
  );
}
