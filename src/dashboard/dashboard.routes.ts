import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database, EnvironmentName } from '../db/schema.js';
import { problemHeaders, problemStatus } from '../http/problems.js';
import type { Clock } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import { DomainProblem } from '../lib/problem.js';
import type { TokenBucketStore } from '../lib/token-bucket.js';
import {
  AccountsError,
  createApiKey,
  listApiKeys,
  revokeApiKey,
} from '../modules/accounts/accounts.service.js';
import {
  authenticate,
  createSession,
  InvalidCredentials,
  listMemberships,
  normalizeEmail,
  resolveSession,
  revokeSession,
  type User,
} from '../modules/users/users.service.js';
import { ASSETS } from './assets.js';
import { ATTEMPT_LIMITS, type GuardedAttempt, mayAttempt } from './attempt-limits.js';
import type { Html } from './html.js';
import { errorPage, type Viewer } from './layout.js';
import { registerOAuthPages } from './oauth-pages.js';
import type { DashboardPageContext } from './pages/context.js';
import { type Form, field } from './pages/form-parts.js';
import { PAGE_MODULES } from './pages/index.js';
import { WORKSPACE_QUERY } from './pages/page-parts.js';
import { accountPath, DASHBOARD_HOME, returnPath } from './return-path.js';
import { keyCreatedPage, keysPage, revokeConfirmPage, signInPage } from './views.js';

export interface DashboardOptions {
  db: Kysely<Database>;
  clock: Clock;
  newId: IdGenerator;
  /** The API's base URL (PUBLIC_BASE_URL): cookies are Secure when it is https. */
  publicBaseUrl: () => string;
  rateLimitStore: TokenBucketStore;
  attemptLimits?: typeof ATTEMPT_LIMITS;
}

export const SESSION_COOKIE = 'fw_session';
const COOKIE_PATH = '/dashboard';
const UNIFORM_SIGN_IN_ERROR = 'The email address or password is not right.';

const NEXT_QUERY = {
  type: 'object',
  properties: { next: { type: 'string', maxLength: 4000 } },
  additionalProperties: false,
} as const;

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

/**
 * The developer dashboard under /dashboard: server-rendered pages over the same services as the
 * API. Its cookie, form, CSRF and security-header plugins are registered inside this plugin, so
 * the JSON API under /v1 never parses forms or reads cookies.
 */
export const dashboardRoutes: FastifyPluginAsync<DashboardOptions> = async (app, options) => {
  const { db, clock } = options;
  const deps = { clock, newId: options.newId };
  const secure = () => options.publicBaseUrl().startsWith('https:');
  const attemptAllowed = (request: FastifyRequest, attempt: GuardedAttempt) =>
    mayAttempt(
      options.rateLimitStore,
      options.attemptLimits ?? ATTEMPT_LIMITS,
      request.ip,
      attempt,
    );
  const cookieOptions = () => ({
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: secure(),
  });

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
  await app.register(csrf, { cookieOpts: { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax' } });
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

  const csrfToken = (reply: FastifyReply) => reply.generateCsrf({ secure: secure() });
  const send = (reply: FastifyReply, page: Html, status = 200) =>
    reply.code(status).type('text/html; charset=utf-8').send(page.value);

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
      return send(
        reply,
        errorPage(
          page,
          'The form has expired',
          'Go back, reload the page and send the form again.',
        ),
        403,
      );
    }
    return send(
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
    send(
      reply,
      errorPage(
        { title: 'Not found', csrfToken: '' },
        'Page not found',
        'There is no page at this address.',
      ),
      404,
    ),
  );

  /** Every page but sign-in needs a live session: GETs are sent to sign in, writes are refused. */
  async function requireSession(request: FastifyRequest, reply: FastifyReply) {
    const token = request.cookies[SESSION_COOKIE];
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
    if (token) reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH });
    if (request.method === 'GET' || request.method === 'HEAD') {
      // A page someone arrives at from elsewhere (OAuth consent) is where sign-in returns to,
      // when its address passes the return-path rule like any other `next`.
      const next = request.routeOptions.config.returnAfterSignIn
        ? returnPath(request.url)
        : undefined;
      const back = next ? `?next=${encodeURIComponent(next)}` : '';
      return reply.redirect(`/dashboard/sign-in${back}`, 303);
    }
    return send(
      reply,
      errorPage({ title: 'Signed out', csrfToken: '' }, 'You are signed out', 'Sign in again.'),
      401,
    );
  }

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

  const guarded = { preHandler: [requireSession] };
  const guardedWrite = { preHandler: [requireSession, app.csrfProtection] };

  app.get(
    '/assets/:name',
    { schema: { params: { type: 'object', properties: { name: { type: 'string' } } } } },
    async (request, reply) => {
      const asset = ASSETS[(request.params as { name: string }).name];
      if (!asset) return reply.callNotFound();
      reply.header('etag', asset.etag).header('cache-control', asset.cacheControl ?? 'no-cache');
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
      return reply.type(asset.type).send(asset.body);
    },
  );

  app.get('/sign-in', { schema: { querystring: NEXT_QUERY } }, async (request, reply) => {
    const next = returnPath((request.query as { next?: string }).next);
    return send(reply, signInPage({ title: 'Sign in', csrfToken: csrfToken(reply) }, { next }));
  });

  app.post('/sign-in', { preHandler: app.csrfProtection }, async (request, reply) => {
    const form = request.body as Form | undefined;
    const email = normalizeEmail(field(form, 'email'));
    const password = field(form, 'password');
    const next = returnPath(field(form, 'next'));
    const again = (error: string, status: number) =>
      send(
        reply,
        signInPage({ title: 'Sign in', csrfToken: csrfToken(reply) }, { email, error, next }),
        status,
      );
    if (!(await attemptAllowed(request, { action: 'sign-in', email }))) {
      return again('Too many sign-in attempts. Wait a minute, then try again.', 429);
    }
    let user: User;
    try {
      user = await authenticate(db, email, password);
    } catch (error) {
      if (error instanceof InvalidCredentials) return again(UNIFORM_SIGN_IN_ERROR, 401);
      throw error;
    }
    const session = await createSession(db, deps, user.id);
    reply.setCookie(SESSION_COOKIE, session.token, {
      ...cookieOptions(),
      expires: session.expiresAt,
    });
    if (user.must_change_password) return reply.redirect(accountPath(next), 303);
    return reply.redirect(next ?? DASHBOARD_HOME, 303);
  });

  app.post('/sign-out', { preHandler: app.csrfProtection }, async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token) await revokeSession(db, deps, token);
    reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH });
    return reply.redirect('/dashboard/sign-in', 303);
  });

  app.get('/', guarded, async (_request, reply) => reply.redirect(DASHBOARD_HOME, 303));

  const noWorkspace = (reply: FastifyReply) =>
    send(
      reply,
      errorPage(
        { title: 'No workspace', csrfToken: csrfToken(reply) },
        'No such workspace',
        'You are not a member of this workspace. Ask one of its owners to add you.',
      ),
      404,
    );

  app.get(
    '/keys',
    { ...guarded, schema: { querystring: WORKSPACE_QUERY } },
    async (request, reply) => {
      const viewer = await viewerOf(request, (request.query as { workspace?: string }).workspace);
      if (!viewer) return noWorkspace(reply);
      const keys = await listApiKeys(db, viewer.current.workspace_id);
      return send(
        reply,
        keysPage({ title: 'API keys', csrfToken: csrfToken(reply), viewer }, keys),
      );
    },
  );

  // The created key is answered on this POST's own page, not after a redirect: it exists only in
  // this response (only its hash is stored), so there is nothing a later GET could show.
  app.post('/keys', guardedWrite, async (request, reply) => {
    const form = request.body as Form | undefined;
    const viewer = await viewerOf(request, field(form, 'workspace'));
    if (!viewer) return noWorkspace(reply);
    const page = { title: 'API keys', csrfToken: csrfToken(reply), viewer };
    const environment = field(form, 'environment');
    const scopes = [form?.scopes ?? []].flat();
    const name = field(form, 'name').trim();
    const refuse = async (message: string) =>
      send(reply, keysPage(page, await listApiKeys(db, viewer.current.workspace_id), message), 422);
    if (environment !== 'sandbox' && environment !== 'live') {
      return refuse('Choose the sandbox or the live environment.');
    }
    if (scopes.length === 0) return refuse('Choose at least one scope.');
    if (name.length > 200) return refuse('A name has at most 200 characters.');
    try {
      const key = await createApiKey(db, deps, {
        workspaceId: viewer.current.workspace_id,
        environment: environment as EnvironmentName,
        scopes,
        ...(name ? { name } : {}),
      });
      return send(reply, keyCreatedPage({ ...page, title: 'Your new API key' }, key), 201);
    } catch (error) {
      if (error instanceof AccountsError) return refuse(error.message);
      throw error;
    }
  });

  /** The key of the viewer's workspace that an owner may revoke, or a page saying why not. */
  async function revocableKey(request: FastifyRequest, reply: FastifyReply, workspaceId: string) {
    const viewer = await viewerOf(request, workspaceId);
    if (!viewer) return { refused: noWorkspace(reply) };
    const keyId = (request.params as { id: string }).id;
    const key = (await listApiKeys(db, viewer.current.workspace_id)).find((k) => k.id === keyId);
    const page = { title: 'Revoke a key', csrfToken: csrfToken(reply), viewer };
    if (!key) {
      return {
        refused: send(
          reply,
          errorPage(page, 'No such key', 'This workspace has no such key.'),
          404,
        ),
      };
    }
    if (viewer.current.role !== 'owner') {
      return {
        refused: send(
          reply,
          errorPage(page, 'Only owners revoke keys', 'Ask an owner of the workspace to revoke it.'),
          403,
        ),
      };
    }
    return { key, page };
  }

  app.get(
    '/keys/:id/revoke',
    { ...guarded, schema: { querystring: WORKSPACE_QUERY } },
    async (request, reply) => {
      const found = await revocableKey(
        request,
        reply,
        (request.query as { workspace?: string }).workspace ?? '',
      );
      if (!found.key) return found.refused;
      return send(reply, revokeConfirmPage(found.page, found.key));
    },
  );

  app.post('/keys/:id/revoke', guardedWrite, async (request, reply) => {
    const workspaceId = field(request.body as Form | undefined, 'workspace');
    const found = await revocableKey(request, reply, workspaceId);
    if (!found.key) return found.refused;
    await revokeApiKey(db, deps, found.key.id);
    return reply.redirect(`/dashboard/keys?workspace=${encodeURIComponent(workspaceId)}`, 303);
  });

  // The other areas' pages (src/dashboard/pages/), with this plugin's guard, viewer and CSRF.
  const pages: DashboardPageContext = {
    db,
    attemptAllowed,
    deps,
    guarded,
    guardedWrite,
    viewerOf,
    csrfToken,
    send,
    noWorkspace,
  };
  for (const register of PAGE_MODULES) register(app, pages);
  registerOAuthPages(app, pages);
};
