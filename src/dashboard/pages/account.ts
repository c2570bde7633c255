import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import { changePassword, type User, UsersError } from '../../modules/users/users.service.js';
import { returnPath } from '../return-path.js';
import { type AccountForm, accountPage } from './account.views.js';
import type { DashboardPageContext, RegisterPages } from './context.js';
import { field, formOf } from './form-parts.js';

const Query = Type.Object(
  {
    workspace: Type.Optional(Type.String({ maxLength: 100 })),
    next: Type.Optional(Type.String({ maxLength: 4000 })),
    done: Type.Optional(Type.Enum(['password'], { type: 'string' })),
  },
  { additionalProperties: false },
);

/** The same answer whether the address or the account ran out of attempts. */
const TOO_MANY = 'Too many attempts to change the password. Wait a minute, then try again.';

// The one page reachable while the password is a one-time password.
const OPEN_BEFORE_CHANGE = { beforePasswordChange: true };

/**
 * The signed-in person's page. Shown with the usual header when the person has a workspace and
 * has chosen a password; while the one-time password is still in use, with no navigation (every
 * other page would send them back here anyway) and a sign-out button of its own.
 */
async function pageFor(
  ctx: DashboardPageContext,
  request: FastifyRequest,
  csrfToken: string,
  workspaceId: string | undefined,
) {
  const user = request.dashboardUser as User;
  const viewer = user.must_change_password ? undefined : await ctx.viewerOf(request, workspaceId);
  return { title: 'Your account', csrfToken, ...(viewer ? { viewer } : {}) };
}

/** Your account: change the password (argon2id; the other sessions end). */
export const registerAccountPages: RegisterPages = (app, ctx) => {
  app.get(
    '/account',
    { ...ctx.guarded, config: OPEN_BEFORE_CHANGE, schema: { querystring: Query } },
    async (request, reply) => {
      const { query } = request;
      const user = request.dashboardUser as User;
      const page = await pageFor(ctx, request, ctx.csrfToken(reply), query.workspace);
      return ctx.send(
        reply,
        accountPage(page, {
          email: user.email,
          forced: user.must_change_password,
          next: returnPath(query.next),
          done: query.done,
        }),
      );
    },
  );

  app.post(
    '/account/password',
    { ...ctx.guardedWrite, config: OPEN_BEFORE_CHANGE },
    async (request, reply) => {
      const form = formOf(request.body);
      const user = request.dashboardUser as User;
      const next = returnPath(field(form, 'next'));
      const refuse = async (error: NonNullable<AccountForm['error']>, status: number) =>
        ctx.send(
          reply,
          accountPage(await pageFor(ctx, request, ctx.csrfToken(reply), undefined), {
            email: user.email,
            forced: user.must_change_password,
            next,
            error,
          }),
          status,
        );
      // Checked before anything else: the form is a way to guess the current password.
      if (!(await ctx.attemptAllowed(request, { action: 'password-change', userId: user.id }))) {
        return refuse({ field: 'current', message: TOO_MANY }, 429);
      }
      const newPassword = field(form, 'new');
      if (newPassword !== field(form, 'again')) {
        return refuse({ field: 'again', message: 'The two new passwords are not the same.' }, 422);
      }
      try {
        await changePassword(ctx.db, ctx.deps, {
          userId: user.id,
          currentPassword: field(form, 'current'),
          newPassword,
          keepSessionId: request.dashboardSessionId,
        });
      } catch (error) {
        if (error instanceof UsersError && error.code === 'wrong_password') {
          return refuse({ field: 'current', message: error.message }, 422);
        }
        if (error instanceof UsersError && error.code === 'weak_password') {
          return refuse({ field: 'new', message: error.message }, 422);
        }
        throw error;
      }
      // Back to this page, which confirms the change and links on to where the person was going
      // (a forced change interrupted them there), rather than dropping them there unannounced.
      const done = new URLSearchParams({ done: 'password', ...(next ? { next } : {}) });
      return reply.redirect(`/dashboard/account?${done}`, 303);
    },
  );
};
