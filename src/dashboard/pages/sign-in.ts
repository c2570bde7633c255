import Type from 'typebox';
import {
  authenticate,
  createSession,
  InvalidCredentials,
  normalizeEmail,
  revokeSession,
  type User,
} from '../../modules/users/users.service.js';
import { accountPath, DASHBOARD_HOME, returnPath } from '../return-path.js';
import { clearSessionCookie, sessionToken, setSessionCookie } from '../session-cookie.js';
import type { RegisterPages } from './context.js';
import { field, formOf } from './form-parts.js';
import { signInPage } from './sign-in.views.js';

const UNIFORM_SIGN_IN_ERROR = 'The email address or password is not right.';

const NextQuery = Type.Object(
  { next: Type.Optional(Type.String({ maxLength: 4000 })) },
  { additionalProperties: false },
);

/**
 * Signing in and out, the only pages open without a session, and the dashboard's root, which
 * sends a signed-in person to the home page (a signed-out one, through the guard, to sign in).
 */
export const registerSignInPages: RegisterPages = (app, ctx) => {
  const { db, deps } = ctx;

  app.get('/sign-in', { schema: { querystring: NextQuery } }, async (request, reply) => {
    const next = returnPath(request.query.next);
    return ctx.send(
      reply,
      signInPage({ title: 'Sign in', csrfToken: ctx.csrfToken(reply) }, { next }),
    );
  });

  app.post('/sign-in', { preHandler: app.csrfProtection }, async (request, reply) => {
    const form = formOf(request.body);
    const email = normalizeEmail(field(form, 'email'));
    const password = field(form, 'password');
    const next = returnPath(field(form, 'next'));
    const again = (error: string, status: number) =>
      ctx.send(
        reply,
        signInPage({ title: 'Sign in', csrfToken: ctx.csrfToken(reply) }, { email, error, next }),
        status,
      );
    if (!(await ctx.attemptAllowed(request, { action: 'sign-in', email }))) {
      return again('Too many sign-in attempts. Wait a minute, then try again.', 429);
    }
    let user: User;
    try {
      user = await authenticate(db, email, password);
    } catch (error) {
      if (error instanceof InvalidCredentials) return again(UNIFORM_SIGN_IN_ERROR, 401);
      throw error;
    }
    setSessionCookie(reply, await createSession(db, deps, user.id), ctx.secureCookies());
    if (user.must_change_password) return reply.redirect(accountPath(next), 303);
    return reply.redirect(next ?? DASHBOARD_HOME, 303);
  });

  app.post('/sign-out', { preHandler: app.csrfProtection }, async (request, reply) => {
    const token = sessionToken(request);
    if (token) await revokeSession(db, deps, token);
    clearSessionCookie(reply);
    return reply.redirect('/dashboard/sign-in', 303);
  });

  app.get('/', ctx.guarded, async (_request, reply) => reply.redirect(DASHBOARD_HOME, 303));
};
