import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EnvironmentName } from '../../db/schema.js';
import { errorPage, type PageContext, type Viewer } from '../layout.js';
import type { DashboardPageContext } from './context.js';
import { environmentOf, type Form, field, type PageQuery } from './page-parts.js';

/** A page about one workspace and one environment (monitors and events live in one). */
export type ScopedPage = PageContext & { viewer: Viewer; environment: EnvironmentName };

export interface PageScope {
  viewer: Viewer;
  environment: EnvironmentName;
  page(title: string): ScopedPage;
}

/**
 * The signed-in person's workspace and the environment a GET's query or a form post names, or
 * undefined once the "no such workspace" page has been sent.
 */
export async function pageScope(
  ctx: DashboardPageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  from: 'query' | 'form',
): Promise<PageScope | undefined> {
  const form = request.body as Form | undefined;
  const source =
    from === 'query'
      ? (request.query as PageQuery)
      : { workspace: field(form, 'workspace'), environment: field(form, 'environment') };
  const viewer = await ctx.viewerOf(request, source.workspace || undefined);
  if (!viewer) {
    ctx.noWorkspace(reply);
    return undefined;
  }
  const environment = environmentOf(source.environment);
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
