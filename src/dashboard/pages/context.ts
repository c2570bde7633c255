import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteShorthandOptions,
} from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { GuardedAttempt } from '../attempt-limits.js';
import type { Html } from '../html.js';
import type { Viewer } from '../layout.js';

/**
 * What the dashboard plugin hands to the page modules that slot into it (sign-in, keys, ...):
 * its session guard, its way of finding the signed-in person's workspace, its CSRF tokens and its
 * way of sending a page. A page module registers its routes on the dashboard's own (encapsulated)
 * instance, so the cookie, form, CSRF and helmet plugins apply to them too.
 */
export interface DashboardPageContext {
  db: Kysely<Database>;
  deps: { clock: Clock; newId: IdGenerator };
  /** Route options of a page behind the session guard. */
  guarded: RouteShorthandOptions;
  /** Route options of a form post: the session guard, then the CSRF check. */
  guardedWrite: RouteShorthandOptions;
  /** The signed-in person's view of the workspace asked for (or their first), or undefined. */
  viewerOf(request: FastifyRequest, workspaceId: string | undefined): Promise<Viewer | undefined>;
  csrfToken(reply: FastifyReply): string;
  send(reply: FastifyReply, page: Html, status?: number): FastifyReply;
  /** Whether cookies are Secure (the public address is https), for the session cookie. */
  secureCookies(): boolean;
  /** Whether a password may be checked now (src/dashboard/attempt-limits.ts); it pays for it. */
  attemptAllowed(request: FastifyRequest, attempt: GuardedAttempt): Promise<boolean>;
  /** The 404 page for a workspace the person is not a member of. */
  noWorkspace(reply: FastifyReply): FastifyReply;
}

/**
 * The dashboard's instance, typed by TypeBox as the modules' plugins are: a page's `request.query`
 * and `request.params` are the types of its schemas. A form's body has no schema of its own (the
 * shell gives it an open one); the page reads it with `formOf` (form-parts.ts).
 */
export type DashboardApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export type RegisterPages = (app: DashboardApp, ctx: DashboardPageContext) => void;
