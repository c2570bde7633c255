import type { Member } from '../../modules/users/members.service.js';
import type { AddedUser } from '../../modules/users/users.service.js';
import { type Html, html } from '../html.js';
import { errorSummary, layout, type PageContext, type Viewer, withWorkspace } from '../layout.js';
import { monitoringStyles } from './monitoring-assets.js';
import { notice, when } from './page-parts.js';

/** A members page: the viewer's workspace, and who the viewer is (their row says "you"). */
export type Page = PageContext & { viewer: Viewer; youId: string };

export interface InviteForm {
  email: string;
  role: string;
  error?: { field?: 'email' | 'role'; message: string };
}

const DONE: Record<string, string> = {
  role: 'The role has been changed.',
  removed: 'The member has been removed from the workspace.',
};

function hidden(page: Page): Html {
  return html`<input type="hidden" name="_csrf" value="${page.csrfToken}">
    <input type="hidden" name="workspace" value="${page.viewer.current.workspace_id}">`;
}

function roleSelect(id: string, selected: string, describedBy?: string): Html {
  return html`<select id="${id}" name="role" ${describedBy ? html`aria-describedby="${describedBy}"` : ''}>
    ${['member', 'owner'].map(
      (role) =>
        html`<option value="${role}" ${role === selected ? html`selected` : ''}>${role}</option>`,
    )}
  </select>`;
}

function memberRow(page: Page, member: Member, isOwner: boolean): Html {
  const you = member.user_id === page.youId;
  const action = (what: string) => `/dashboard/members/${member.user_id}/${what}`;
  return html`<tr>
    <td>${member.email}${you ? html` <span class="muted">(you)</span>` : ''}</td>
    <td>${member.role}</td>
    <td>${when(member.created_at)}</td>
    ${
      isOwner
        ? html`<td><div class="actions">
      <form method="post" action="${action('role')}">
        ${hidden(page)}
        <label class="skip" for="role-${member.user_id}">Role of ${member.email}</label>
        ${roleSelect(`role-${member.user_id}`, member.role)}
        <button type="submit">Change role<span class="skip"> of ${member.email}</span></button>
      </form>
      <a class="button-link danger" href="${withWorkspace(action('remove'), page.viewer)}">Remove<span class="skip"> ${member.email}</span></a>
    </div></td>`
        : ''
    }
  </tr>`;
}

export function membersPage(
  page: Page,
  members: Member[],
  state: { done?: string; error?: string; invite?: InviteForm } = {},
): Html {
  const isOwner = page.viewer.current.role === 'owner';
  const invite = state.invite ?? { email: '', role: 'member' };
  const emailError = invite.error?.field === 'email' ? invite.error.message : undefined;
  return layout(
    page,
    html`${monitoringStyles()}
    <h1>Members</h1>
    ${notice(state.done ? DONE[state.done] : undefined)}
    ${errorSummary(state.error ?? invite.error?.message)}
    <p>The people who can sign in to <strong>${page.viewer.current.workspace_name}</strong>.
    Owners invite people, change roles and remove members; members see this list.</p>
    <div class="table-wrap" role="region" tabindex="0" aria-label="Members"><table>
      <caption class="skip">Members</caption>
      <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Member since</th>${isOwner ? html`<th scope="col">Actions</th>` : ''}</tr></thead>
      <tbody>${members.map((m) => memberRow(page, m, isOwner))}</tbody>
    </table></div>
    ${
      isOwner
        ? html`<h2 id="invite">Invite someone</h2>
    <p>No email is sent. Someone without an account gets one with a one-time password, shown to you
    once on the next page: give it to them yourself. They choose their own password when they first
    sign in. Someone who already has an account is added with their own password.</p>
    <form class="stack" method="post" action="/dashboard/members">
      ${hidden(page)}
      <div>
        <label for="invite-email">Email address</label>
        ${emailError ? html`<p class="field-error" id="invite-email-error"><strong>Error:</strong> ${emailError}</p>` : ''}
        <input type="email" id="invite-email" name="email" required maxlength="254" value="${invite.email}"
          ${emailError ? html`aria-invalid="true" aria-describedby="invite-email-error"` : ''}>
      </div>
      <div>
        <label for="invite-role">Role</label>
        <p class="hint" id="invite-role-hint">Owners also revoke keys and manage members.</p>
        ${roleSelect('invite-role', invite.role, 'invite-role-hint')}
      </div>
      <button type="submit">Invite</button>
    </form>`
        : ''
    }`,
  );
}

export function invitedPage(page: Page, added: AddedUser): Html {
  const back = withWorkspace('/dashboard/members', page.viewer);
  return layout(
    page,
    html`${monitoringStyles()}
    <h1>${added.password ? 'Account created' : 'Member added'}</h1>
    <p><strong>${added.user.email}</strong> is now ${added.role === 'owner' ? 'an owner' : 'a member'} of ${page.viewer.current.workspace_name}.</p>
    ${
      added.password
        ? html`<div class="warning" role="note">
      <p><strong>Give this one-time password to ${added.user.email} now. It will not be shown again</strong>
      (only its hash is stored) and no email has been sent. They will be asked to choose their own
      password when they first sign in.</p>
    </div>
    <code class="key" id="one-time-password">${added.password}</code>
    <button type="button" data-copy-target="one-time-password" data-copy-status="copy-status">Copy the password</button>
    <p id="copy-status" role="status" aria-live="polite"></p>`
        : html`<p>They already had an account: they sign in with their own password.</p>`
    }
    <p><a href="${back}">Back to the members</a></p>`,
  );
}

export function removeConfirmPage(page: Page, member: Member): Html {
  const you = member.user_id === page.youId;
  return layout(
    page,
    html`<h1>Remove ${member.email}?</h1>
    <p>${you ? 'You' : member.email} will no longer see ${page.viewer.current.workspace_name}, and the
    MCP clients ${you ? 'you' : 'they'} authorized for it stop working at once. The account itself
    stays, with its other workspaces. API keys belong to the workspace and keep working: revoke
    them on the API keys page if needed.</p>
    <form method="post" action="/dashboard/members/${member.user_id}/remove">
      ${hidden(page)}
      <button type="submit" class="danger">Remove ${you ? 'yourself' : 'the member'}</button>
    </form>
    <p><a href="${withWorkspace('/dashboard/members', page.viewer)}">Cancel</a></p>`,
  );
}
