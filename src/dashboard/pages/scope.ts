import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EnvironmentName } from '../../db/schema.js';
import { errorPage, type PageContext, type Viewer } from '../layout.js';
import type { DashboardPageContext } from './context.js';
import { environmentOf, type Form, field } from './form-parts.js';

/** A page about one workspace and one environment (monitors and events live in one). */
export type ScopedPage = PageContext & { viewer: Viewer; environment: EnvironmentName };

export interface PageScope {
  viewer: Viewer;
  environment: EnvironmentName;
  page(title: string): ScopedPage;
}

/** The workspace and environment a GET's query or a form post (its hidden basics) names. */
export interface ScopeValues {
  workspace?: string;
  environment?: string;
}

/** The workspace and environment a form post names in its hidden basics (formBasics). */
export function formScope(form: Form): ScopeValues {
  return { workspace: field(form, 'workspace'), environment: field(form, 'environment') };
}

/**
 * The signed-in person's workspace and the environment a GET's query or a form post names
 * (`formScope`), or undefined once the "no such workspace" page has been sent.
 */
export async function pageScope(
  ctx: DashboardPageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  source: ScopeValues,
): Promise<PageScope | undefined> {
  const viewer = await ctx.viewerOf(request, source.workspace || undefined);
  if (!viewer) {
    ctx.noWorkspace(reply);
    return undefined;
  }
  // An unknown environment in a form post is the sandbox here (the query's schema allows no other).
  const environment = environmentOf(source.environment) ?? 'sandbox';
  const page = (title: string) => ({ title, csrfToken: ctx.csrfToken(reply), viewer, environment });
  return { viewer, environment, page };
}

/** A Problem that leaves nothing else to show (an unknown or archived monitor, a bad cursor). */
export function problemPage(
  ctx: DashboardPageContext,
  reply: FastifyReply,
  page: ScopedPage,
  problem: { status: number; detail: string },
) {
  const heading = problem.status === 404 ? 'Not found' : 'The request was refused';
  return ctx.send(reply, errorPage(page, heading, problem.detail), problem.status);
}

/**
 * The viewer and environment a request is about, or the page that says why there are none: the
 * checks playground and the company search refuse an unknown environment (422) rather than run a
 * check or a search in the sandbox that was meant for live.
 */
export async function refusingScope(
  ctx: DashboardPageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  values: ScopeValues,
): Promise<{ viewer: Viewer; environment: EnvironmentName } | { refused: FastifyReply }> {
  const viewer = await ctx.viewerOf(request, values.workspace);
  if (!viewer) return { refused: ctx.noWorkspace(reply) };
  const environment = environmentOf(values.environment);
  if (!environment) {
    const page = { title: 'Refused', csrfToken: ctx.csrfToken(reply), viewer };
    const message = 'Choose the sandbox or the live environment.';
    return { refused: ctx.send(reply, errorPage(page, 'No such environment', message), 422) };
  }
  return { viewer, environment };
}
