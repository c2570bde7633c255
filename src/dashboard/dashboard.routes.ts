import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { problemHeaders, problemStatus } from '../http/problems.js';
import type { Clock } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import { DomainProblem } from '../lib/problem.js';
import type { TokenBucketStore } from '../lib/token-bucket.js';
import { listMemberships, resolveSession, type User } from '../modules/users/users.service.js';
import { registerAssetRoute } from './asset-route.js';
import { ATTEMPT_LIMITS, type GuardedAttempt, mayAttempt } from './attempt-limits.js';
import type { Html } from './html.js';
import { errorPage, type Viewer } from './layout.js';
import type { DashboardPageContext } from './pages/context.js';
import { PAGE_MODULES } from './pages/index.js';
import { accountPath, returnPath } from './return-path.js';
import { clearSessionCookie, DASHBOARD_COOKIE_PATH, sessionToken } from './session-cookie.js';

export interface DashboardOptions {
  db: Kysely<Database>;
  clock: Clock;
  newId: IdGenerator;
  /** The API's base URL (PUBLIC_BASE_URL): cookies are Secure when it is https. */
  publicBaseUrl: () => string;
  rateLimitStore: TokenBucketStore;
  attemptLimits?: typeof ATTEMPT_LIMITS;
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboardUser?: User;
    /** The id of the signed-in session (a password change keeps it and ends the others). */
    dashboardSessionId?: string;
  }
  interface FastifyContextConfig {
    /** A signed-out visitor of this page is sent to sign in and then back here. */
    returnAfterSignIn?: boolean;
    /** Reachable while the password is still a one-time password (the account page). */
    beforePasswordChange?: boolean;
  }
}

const sendPage = (reply: FastifyReply, page: Html, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(page.value);

/**
 * The developer dashboard under /dashboard: server-rendered pages over the same services as the
 * API. Its cookie, form, CSRF and security-header plugins are registered inside this plugin, so
 * the JSON API under /v1 never parses forms or reads cookies. This shell holds those plugins, the
 * error pages and the session guard; the pages are the modules of `pages/` (`pages/index.ts`).
 */
export const dashboardRoutes: FastifyPluginAsyncTypebox<DashboardOptions> = async (
  app,
  options,
) => {
  const secure = () => options.publicBaseUrl().startsWith('https:');
  await registerPlugins(app);
  registerErrorPages(app);
  registerAssetRoute(app);
  const pages = pageContext(app, options, secure);
  for (const register of PAGE_MODULES) register(app, pages);
};

async function registerPlugins(app: FastifyInstance) {
  // Pages are not API operations: keep them out of the OpenAPI document. A form without a body
  // schema gets an open one, so its fields meet the rules every request meets (U+0000 refused,
  // see nul-characters.ts; PostgreSQL cannot even look such an email up).
  app.addHook('onRoute', (route) => {
    const write = [route.method].flat().some((method) => method !== 'GET' && method !== 'HEAD');
    const body = write && route.schema?.body === undefined ? { body: {} } : {};
    route.schema = { ...route.schema, ...body, hide: true };
  });
  await app.register(cookie);
  await app.register(formbody);
  await app.register(csrf, {
    cookieOpts: { path: DASHBOARD_COOKIE_PATH, httpOnly: true, sameSite: 'lax' },
  });
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    referrerPolicy: { policy: 'same-origin' },
  });
  // A callback hook: an async one costs a promise per response for a header.
  app.addHook('onSend', (_request, reply, payload, done) => {
    // Pages can hold a key shown once: never keep them in a cache or the back-forward cache.
    if (!reply.getHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}

function registerErrorPages(app: FastifyInstance) {
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    // A problem the shared hooks raise (a key in the URL, a rate limit) keeps its status and
    // headers; the dashboard only renders it as a page.
    if (error instanceof DomainProblem) {
      reply.headers(problemHeaders(error));
      if (error.retryable) {
        reply.header('retry-after', String(error.retryAfter ?? 1));
      }
    }
    const status =
      error instanceof DomainProblem ? problemStatus(error) : (error.statusCode ?? 500);
    if (status >= 500) request.log.error({ err: error }, 'dashboard error');
    const page = { title: 'Error', csrfToken: '' };
    if (error.code?.startsWith('FST_CSRF')) {
      return sendPage(
        reply,
        errorPage(
          page,
          'The form has expired',
          'Go back, reload the page and send the form again.',
        ),
        403,
      );
    }
    return sendPage(
      reply,
      errorPage(
        page,
        status >= 500 ? 'Something went wrong' : 'The request was refused',
        status >= 500 ? `Quote request id ${request.id} when reporting it.` : error.message,
      ),
      status,
    );
  });
  app.setNotFoundHandler((_request, reply) =>
    sendPage(
      reply,
      errorPage(
        { title: 'Not found', csrfToken: '' },
        'Page not found',
        'There is no page at this address.',
      ),
      404,
    ),
  );
}

/** Every page but sign-in needs a live session: GETs are sent to sign in, writes are refused. */
function sessionGuard(db: Kysely<Database>, deps: { clock: Clock }) {
  return async function requireSession(request: FastifyRequest, reply: FastifyReply) {
    const token = sessionToken(request);
    const session = token ? await resolveSession(db, deps, token) : undefined;
    if (session) {
      request.dashboardUser = session.user;
      request.dashboardSessionId = session.sessionId;
      // A one-time password was seen by someone else (the operator, an inviting owner): nothing
      // but the account page until its holder has chosen their own.
      if (session.user.must_change_password && !request.routeOptions.config.beforePasswordChange) {
        const back = request.method === 'GET' ? request.url : undefined;
        return reply.redirect(accountPath(back), 303);
      }
      return;
    }
    if (token) clearSessionCookie(reply);
    if (request.method === 'GET' || request.method === 'HEAD') {
      // A page someone arrives at from elsewhere (OAuth consent) is where sign-in returns to,
      // when its address passes the return-path rule like any other `next`.
      const next = request.routeOptions.config.returnAfterSignIn
        ? returnPath(request.url)
        : undefined;
      const back = next ? `?next=${encodeURIComponent(next)}` : '';
      return reply.redirect(`/dashboard/sign-in${back}`, 303);
    }
    return sendPage(
      reply,
      errorPage({ title: 'Signed out', csrfToken: '' }, 'You are signed out', 'Sign in again.'),
      401,
    );
  };
}

/** What the page modules get: this plugin's guard, viewer, CSRF tokens and way of sending. */
function pageContext(
  app: FastifyInstance,
  options: DashboardOptions,
  secure: () => boolean,
): DashboardPageContext {
  const { db } = options;
  const deps = { clock: options.clock, newId: options.newId };
  const requireSession = sessionGuard(db, deps);
  const csrfToken = (reply: FastifyReply) => reply.generateCsrf({ secure: secure() });

  /** The signed-in person's view of the workspace asked for (or their first), or a 404 page. */
  async function viewerOf(request: FastifyRequest, workspaceId: string | undefined) {
    const user = request.dashboardUser as User;
    const workspaces = await listMemberships(db, user.id);
    const current = workspaceId
      ? workspaces.find((w) => w.workspace_id === workspaceId)
      : workspaces[0];
    if (!current) return undefined;
    return { email: user.email, workspaces, current } satisfies Viewer;
  }

  return {
    db,
    deps,
    guarded: { preHandler: [requireSession] },
    guardedWrite: { preHandler: [requireSession, app.csrfProtection] },
    viewerOf,
    csrfToken,
    send: sendPage,
    secureCookies: secure,
    attemptAllowed: (request: FastifyRequest, attempt: GuardedAttempt) =>
      mayAttempt(
        options.rateLimitStore,
        options.attemptLimits ?? ATTEMPT_LIMITS,
        request.ip,
        attempt,
      ),
    noWorkspace: (reply: FastifyReply) =>
      sendPage(
        reply,
        errorPage(
          { title: 'No workspace', csrfToken: csrfToken(reply) },
          'No such workspace',
          'You are not a member of this workspace. Ask one of its owners to add you.',
        ),
        404,
      ),
  };
}
