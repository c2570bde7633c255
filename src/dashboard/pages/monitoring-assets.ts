import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { html } from '../html.js';

/** The monitors' and events' own styles (the layout's stylesheet has the shared ones). */
const CSS = `
.env-switch ul { list-style: none; display: flex; gap: 1rem; padding: 0; margin: 0 0 1rem; }
.field-error { color: var(--bad); margin: .25rem 0; }
.notice { border-left: 6px solid #1d7a3a; background: #eef8f0; padding: .5rem 1rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
.notice p { margin: .25rem 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; min-width: 0; }
@media (max-width: 30rem) { dl.facts { grid-template-columns: 1fr; } dl.facts dd { margin-bottom: .5rem; } }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; }
.actions form { margin: 0; }
a.button-link { display: inline-block; padding: .45rem 1rem; color: #fff; background: var(--accent); text-decoration: none; }
a.button-link.danger { background: var(--bad); }
pre.envelope { background: var(--soft); border: 1px solid var(--line); padding: .75rem; overflow-x: auto;
  white-space: pre-wrap; overflow-wrap: anywhere; max-width: 100%; }
/* An event type wraps only at the <wbr> after each dot: the shared code style breaks anywhere. */
code.event-type { overflow-wrap: normal; word-break: keep-all; }
section.delivery { border-top: 1px solid var(--line); margin-top: 1rem; }
details { margin: 1rem 0; }
summary { cursor: pointer; font-weight: 600; }
`;

const ETAG = `"${createHash('sha256').update(CSS).digest('base64url').slice(0, 22)}"`;
export const MONITORING_CSS_PATH = '/dashboard/assets/monitoring.css';

/** The stylesheet link the monitors' and events' pages put at the top of their content. */
export const monitoringStyles = () => html`<link rel="stylesheet" href="${MONITORING_CSS_PATH}">`;

/**
 * Served by a route of its own next to the dashboard's `/assets/:name` (a static path wins over
 * the parametric one), so these pages need no change to the shared asset table.
 */
export function registerMonitoringAssets(app: FastifyInstance): void {
  app.get('/assets/monitoring.css', async (request, reply) => {
    reply.header('etag', ETAG).header('cache-control', 'no-cache');
    if (request.headers['if-none-match'] === ETAG) return reply.code(304).send();
    return reply.type('text/css; charset=utf-8').send(CSS);
  });
}
