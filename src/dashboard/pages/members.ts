import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import {
  changeMemberRole,
  inviteMember,
  listMembers,
  removeMember,
} from '../../modules/users/members.service.js';
import { type User, UsersError } from '../../modules/users/users.service.js';
import { errorPage } from '../layout.js';
import type { RegisterPages } from './context.js';
import { type Form, field, formOf } from './form-parts.js';
import {
  type InviteForm,
  invitedPage,
  membersPage,
  type Page,
  removeConfirmPage,
} from './members.views.js';

const Query = Type.Object(
  {
    workspace: Type.Optional(Type.String({ maxLength: 100 })),
    done: Type.Optional(Type.Enum(['role', 'removed'], { type: 'string' })),
  },
  { additionalProperties: false },
);

const MemberParams = Type.Object({ userId: Type.String({ maxLength: 100 }) });

/**
 * Members and invitations. Membership has no REST operation (people are not API resources): the
 * pages call the users service, which holds the rules (roles, never the last owner).
 */
export const registerMemberPages: RegisterPages = (app, ctx) => {
  /** The page context of the workspace asked for, or the 404 page already sent. */
  async function pageOf(request: FastifyRequest, reply: FastifyReply, workspaceId?: string) {
    const viewer = await ctx.viewerOf(request, workspaceId);
    if (!viewer) return { refused: ctx.noWorkspace(reply) };
    const youId = (request.dashboardUser as User).id;
    return { page: { title: 'Members', csrfToken: ctx.csrfToken(reply), viewer, youId } };
  }

  /** A write of an owner only, in the workspace its form names; members get a 403 page. */
  async function ownerPageOf(request: FastifyRequest, reply: FastifyReply, form: Form) {
    const found = await pageOf(request, reply, field(form, 'workspace'));
    if (!found.page) return found;
    if (found.page.viewer.current.role !== 'owner') {
      return {
        refused: ctx.send(
          reply,
          errorPage(
            found.page,
            'Only owners manage members',
            'Ask an owner of the workspace to invite, change or remove a member.',
          ),
          403,
        ),
      };
    }
    return found;
  }

  const list = async (page: Page, reply: FastifyReply, status: number, state = {}) =>
    ctx.send(
      reply,
      membersPage(page, await listMembers(ctx.db, page.viewer.current.workspace_id), state),
      status,
    );

  const backToList = (page: Page, done: string) =>
    `/dashboard/members?workspace=${encodeURIComponent(page.viewer.current.workspace_id)}&done=${done}`;

  app.get(
    '/members',
    { ...ctx.guarded, schema: { querystring: Query } },
    async (request, reply) => {
      const { query } = request;
      const found = await pageOf(request, reply, query.workspace);
      if (!found.page) return found.refused;
      return list(found.page, reply, 200, { done: query.done });
    },
  );

  // A created account's one-time password is shown on this POST's own page (as a created key is):
  // only its hash is stored, so no later GET could show it.
  app.post('/members', ctx.guardedWrite, async (request, reply) => {
    const form = formOf(request.body);
    const found = await ownerPageOf(request, reply, form);
    if (!found.page) return found.refused;
    const invite: InviteForm = { email: field(form, 'email').trim(), role: field(form, 'role') };
    try {
      const added = await inviteMember(ctx.db, ctx.deps, {
        workspaceId: found.page.viewer.current.workspace_id,
        email: invite.email,
        role: invite.role,
      });
      return ctx.send(reply, invitedPage({ ...found.page, title: 'Member invited' }, added), 201);
    } catch (error) {
      if (!(error instanceof UsersError)) throw error;
      const message =
        error.code === 'invalid_email'
          ? 'Enter an email address, like name@example.com.'
          : error.message;
      const at = error.code === 'invalid_role' ? 'role' : 'email';
      return list(found.page, reply, error.code === 'already_member' ? 409 : 422, {
        invite: { ...invite, error: { field: at, message } },
      });
    }
  });

  app.post(
    '/members/:userId/role',
    { ...ctx.guardedWrite, schema: { params: MemberParams } },
    async (request, reply) => {
      const form = formOf(request.body);
      const found = await ownerPageOf(request, reply, form);
      if (!found.page) return found.refused;
      const { userId } = request.params;
      const workspaceId = found.page.viewer.current.workspace_id;
      try {
        await app.context.transact((trx) =>
          changeMemberRole(trx, { workspaceId, userId, role: field(form, 'role') }),
        );
      } catch (error) {
        if (!(error instanceof UsersError)) throw error;
        return list(found.page, reply, error.code === 'not_a_member' ? 404 : 409, {
          error: error.message,
        });
      }
      return reply.redirect(backToList(found.page, 'role'), 303);
    },
  );

  /** The member of the viewer's workspace an owner may remove, or the page saying why not. */
  async function removable(userId: string, reply: FastifyReply, found: { page: Page }) {
    const members = await listMembers(ctx.db, found.page.viewer.current.workspace_id);
    const member = members.find((m) => m.user_id === userId);
    if (!member) {
      return {
        refused: ctx.send(
          reply,
          errorPage(found.page, 'No such member', 'This workspace has no such member.'),
          404,
        ),
      };
    }
    return { member };
  }

  app.get(
    '/members/:userId/remove',
    { ...ctx.guarded, schema: { querystring: Query, params: MemberParams } },
    async (request, reply) => {
      const found = await pageOf(request, reply, request.query.workspace);
      if (!found.page) return found.refused;
      if (found.page.viewer.current.role !== 'owner') {
        return ctx.send(
          reply,
          errorPage(found.page, 'Only owners manage members', 'Ask an owner of the workspace.'),
          403,
        );
      }
      const target = await removable(request.params.userId, reply, found);
      if (!target.member) return target.refused;
      return ctx.send(
        reply,
        removeConfirmPage({ ...found.page, title: 'Remove a member' }, target.member),
      );
    },
  );

  app.post(
    '/members/:userId/remove',
    { ...ctx.guardedWrite, schema: { params: MemberParams } },
    async (request, reply) => {
      const found = await ownerPageOf(request, reply, formOf(request.body));
      if (!found.page) return found.refused;
      const page = found.page;
      const target = await removable(request.params.userId, reply, { page });
      if (!target.member) return target.refused;
      const { user_id: userId } = target.member;
      try {
        await app.context.transact((trx) =>
          removeMember(trx, ctx.deps, { workspaceId: page.viewer.current.workspace_id, userId }),
        );
      } catch (error) {
        if (!(error instanceof UsersError)) throw error;
        return list(page, reply, 409, { error: error.message });
      }
      // Someone who removed themselves no longer sees the workspace.
      if (userId === page.youId) return reply.redirect('/dashboard', 303);
      return reply.redirect(backToList(page, 'removed'), 303);
    },
  );
};
