import { type Html, html } from './html.js';

export interface Viewer {
  email: string;
  workspaces: Array<{ workspace_id: string; workspace_name: string; role: string }>;
  current: { workspace_id: string; workspace_name: string; role: string };
}

export interface PageContext {
  title: string;
  csrfToken: string;
  /** Absent on pages shown to signed-out people (sign-in, errors). */
  viewer?: Viewer;
}

/** The navigation; later pages (usage, playground, monitors, events) add themselves here. */
const NAV = [
  { href: '/dashboard/keys', label: 'API keys' },
  { href: '/dashboard/usage', label: 'Usage' },
  { href: '/dashboard/checks', label: 'Checks' },
  { href: '/dashboard/companies', label: 'Companies' },
  { href: '/dashboard/monitors', label: 'Monitors' },
  { href: '/dashboard/events', label: 'Events' },
  { href: '/dashboard/oauth/clients', label: 'MCP clients' },
  { href: '/dashboard/members', label: 'Members' },
];

export function withWorkspace(path: string, viewer: Viewer): string {
  return `${path}?workspace=${encodeURIComponent(viewer.current.workspace_id)}`;
}

function workspaceSwitcher(viewer: Viewer): Html {
  if (viewer.workspaces.length < 2) {
    return html`<span>${viewer.current.workspace_name}</span>`;
  }
  // A GET form: switching is navigation, not a write, so it needs no CSRF token and works
  // without JavaScript (the button submits it).
  return html`<form method="get" action="/dashboard/keys">
    <label for="workspace-switch" class="skip">Workspace</label>
    <select id="workspace-switch" name="workspace">
      ${viewer.workspaces.map(
        (w) =>
          html`<option value="${w.workspace_id}" ${w.workspace_id === viewer.current.workspace_id ? html`selected` : ''}>${w.workspace_name}</option>`,
      )}
    </select>
    <button type="submit">Switch</button>
  </form>`;
}

export function layout(page: PageContext, body: Html): Html {
  const { viewer } = page;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} – firmwatch dashboard</title>
<link rel="icon" href="/favicon.ico" sizes="32x32">
<link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script src="/dashboard/assets/copy.js" defer></script>
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
<header class="top">
  <a class="brand" href="/dashboard">firmwatch</a>
  ${
    viewer &&
    html`<nav aria-label="Main"><ul>
      ${NAV.map((item) => html`<li><a href="${withWorkspace(item.href, viewer)}">${item.label}</a></li>`)}
    </ul></nav>
    ${workspaceSwitcher(viewer)}
    <span class="account"><a href="${withWorkspace('/dashboard/account', viewer)}" title="Your account: ${viewer.email}">${viewer.email}</a> <span>(${viewer.current.role})</span></span>
    <form method="post" action="/dashboard/sign-out">
      <input type="hidden" name="_csrf" value="${page.csrfToken}">
      <button type="submit">Sign out</button>
    </form>`
  }
</header>
<main id="content">
${body}
</main>
</body>
</html>`;
}

export function errorSummary(message: string | undefined): Html {
  if (!message) return html``;
  return html`<div class="error-summary" role="alert" tabindex="-1">
    <h2>There is a problem</h2>
    <p>${message}</p>
  </div>`;
}

export function errorPage(page: PageContext, heading: string, message: string): Html {
  return layout(
    page,
    html`<h1>${heading}</h1><p>${message}</p><p><a href="/dashboard">Back to the dashboard</a></p>`,
  );
}
