import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { addUserToWorkspace } from '../../src/modules/users/users.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addDashboardUser } from '../helpers/dashboard-users.js';
import { DIALECTS } from '../helpers/databases.js';

/** The sign-in form's CSRF cookie and token, as a browser would get them. */
async function signInForm(origin: string, next?: string) {
  const query = next === undefined ? '' : `?${new URLSearchParams({ next })}`;
  const response = await fetch(`${origin}/dashboard/sign-in${query}`);
  const cookie = (response.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
  const page = await response.text();
  const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] as string;
  return { response, cookie, token, page };
}

function postSignIn(origin: string, form: { cookie: string; token: string }, body: string) {
  return fetch(`${origin}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
    body: `_csrf=${encodeURIComponent(form.token)}&${body}`,
  });
}

describe('the dashboard over HTTP', () => {
  let t: TestApp;
  let origin: string;
  let password: string;

  beforeAll(async () => {
    // As behind a TLS-terminating proxy: cookies must then be Secure.
    t = await startTestApp({ publicBaseUrl: 'https://firmwatch.example/v1' });
    origin = new URL(t.baseUrl).origin;
    const deps = { clock: t.clock, newId: t.newId };
    const ws = await createWorkspace(t.database.db, deps, { name: 'Acme' });
    const added = await addDashboardUser(t.database.db, deps, {
      email: 'ada@example.com',
      workspaceId: ws.id,
    });
    password = added.password as string;
  });
  afterAll(() => t.close());

  it('pages carry a strict Content-Security-Policy and security headers; the API does not change', async () => {
    const { response } = await signInForm(origin);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('no-store');

    const api = await fetch(`${t.baseUrl}/`);
    expect(api.headers.get('content-security-policy')).toBeNull();
    // The API still takes JSON only: the dashboard's form parser is not the API's.
    const { key } = await t.createKey();
    const form = await fetch(`${t.baseUrl}/checks`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'a=b',
    });
    expect(form.status).toBe(415);
  });

  it('serves its assets from the package, with validators', async () => {
    const css = await fetch(`${origin}/dashboard/assets/dashboard.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const etag = css.headers.get('etag') as string;
    const again = await fetch(`${origin}/dashboard/assets/dashboard.css`, {
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    const js = await fetch(`${origin}/dashboard/assets/copy.js`);
    expect(await js.text()).toContain('navigator.clipboard');
    expect((await fetch(`${origin}/dashboard/assets/nope.js`)).status).toBe(404);
  });

  it('answers /favicon.ico at the site root and the icon the pages link, without a session, cached for long', async () => {
    // Browsers ask for /favicon.ico at the root of the origin, whatever page they are on.
    const ico = await fetch(`${origin}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/x-icon');
    expect(ico.headers.get('cache-control')).toBe('public, max-age=604800');
    expect(ico.headers.getSetCookie()).toEqual([]);
    const bytes = new Uint8Array(await ico.arrayBuffer());
    // An ICO file: reserved 0, type 1 (icon), at least one image.
    expect([...bytes.slice(0, 4)]).toEqual([0, 0, 1, 0]);
    expect(bytes[4]).toBeGreaterThan(0);
    const etag = ico.headers.get('etag') as string;
    expect(
      (await fetch(`${origin}/favicon.ico`, { headers: { 'if-none-match': etag } })).status,
    ).toBe(304);
    expect((await fetch(`${origin}/favicon.ico`, { method: 'HEAD' })).status).toBe(200);

    // Every page links the icons, the sign-in page too; the SVG is served the same way.
    const page = await (await fetch(`${origin}/dashboard/sign-in`)).text();
    const links = [...page.matchAll(/<link rel="icon"[^>]*href="([^"]+)"/g)].map((m) => m[1]);
    expect(links).toEqual(['/favicon.ico', '/dashboard/assets/favicon.svg']);
    const svg = await fetch(`${origin}/dashboard/assets/favicon.svg`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(svg.headers.get('cache-control')).toBe('public, max-age=604800');
    expect(await svg.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    // Not an API operation: the OpenAPI document does not list it.
    const openapi = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(openapi.paths).some((path) => path.includes('favicon'))).toBe(false);
  });

  it('sets the session and CSRF cookies HttpOnly, SameSite=Lax, Path=/dashboard and Secure over https', async () => {
    const form = await signInForm(origin);
    expect(form.response.headers.getSetCookie()[0]).toMatch(
      /^_csrf=.*; Path=\/dashboard; HttpOnly; Secure; SameSite=Lax$/,
    );
    const signedIn = await postSignIn(
      origin,
      form,
      `email=ADA%40example.com&password=${encodeURIComponent(password)}`,
    );
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/dashboard/keys');
    const session = signedIn.headers.getSetCookie().find((c) => c.startsWith('fw_session='));
    const attributes = (session ?? '').split('; ').slice(1).sort();
    // Expires: 7 days after sign-in.
    expect(attributes).toEqual([
      'Expires=Sat, 28 Nov 2026 12:00:00 GMT',
      'HttpOnly',
      'Path=/dashboard',
      'SameSite=Lax',
      'Secure',
    ]);
  });

  it('refuses a sign-in without its CSRF token', async () => {
    const response = await fetch(`${origin}/dashboard/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `email=ada%40example.com&password=${encodeURIComponent(password)}`,
    });
    expect(response.status).toBe(403);
    expect(response.headers.getSetCookie().some((c) => c.startsWith('fw_session='))).toBe(false);
  });

  it('rate-limits sign-in per email, with the right password refused too once limited', async () => {
    const form = await signInForm(origin);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push(
        (await postSignIn(origin, form, 'email=grace%40example.com&password=x')).status,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const limited = await postSignIn(origin, form, 'email=grace%40example.com&password=x');
    expect(limited.status).toBe(429);
    expect(await limited.text()).toContain('Too many sign-in attempts');
    // The per-email bucket of ada is untouched by grace's failures, but the address has used 7
    // of its 10; three more, then the address is refused too.
    for (let i = 0; i < 3; i++) await postSignIn(origin, form, 'email=x%40example.com&password=x');
    const byAddress = await postSignIn(
      origin,
      form,
      `email=ada%40example.com&password=${encodeURIComponent(password)}`,
    );
    expect(byAddress.status).toBe(429);
  });
});

/** Return paths that leave the dashboard or carry what a Location header must not. */
const ESCAPES = [
  '/dashboard/x\r\n',
  '/dashboard/x%0d%0a',
  '/dashboard/../..//evil.com',
  '/dashboard/%2e%2e/%2e%2e//evil.com',
  '/dashboard/x\\..\\..\\evil.com',
  '/dashboard/ke\tys',
  '/dashboard/keys\u2028',
  '/dashboard/keys%C2%85',
  '//evil.com/dashboard/keys',
  'https://evil.com/dashboard/keys',
];

const sessionCookieOf = (response: Response) =>
  response.headers.getSetCookie().find((c) => c.startsWith('fw_session='));

/** The value of the form's hidden `next` field (unescaped as a browser reads it), if any. */
const hiddenNext = (page: string) =>
  /name="next" value="([^"]*)"/.exec(page)?.[1]?.replaceAll('&amp;', '&');

describe.each(DIALECTS)('return paths after sign-in and a password change [%s]', (dialect) => {
  let t: TestApp;
  let origin: string;
  let workspaceId: string;
  const passwords: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    origin = new URL(t.baseUrl).origin;
    const deps = { clock: t.clock, newId: t.newId };
    workspaceId = (await createWorkspace(t.database.db, deps, { name: 'Acme' })).id;
    for (const email of ['ada@example.com', 'bob@example.com']) {
      const added = await addDashboardUser(t.database.db, deps, { email, workspaceId });
      passwords[email] = added.password as string;
    }
    // Still on the one-time password: sign-in goes to the account page first.
    const forced = await addUserToWorkspace(t.database.db, deps, {
      email: 'new@example.com',
      workspaceId,
    });
    passwords['new@example.com'] = forced.password as string;
  });
  afterAll(() => t?.close());

  /** Signs in with this `next` in the form, as the sign-in page would post it. */
  async function signInWith(email: string, next: string) {
    const form = await signInForm(origin);
    const body = new URLSearchParams({ email, password: passwords[email] as string, next });
    return postSignIn(origin, form, body.toString());
  }

  it('the sign-in page carries no return path that leaves the dashboard or has control characters', async () => {
    for (const next of ESCAPES) {
      const { response, page } = await signInForm(origin, next);
      expect(response.status, JSON.stringify(next)).toBe(200);
      expect(hiddenNext(page), JSON.stringify(next)).toBeUndefined();
    }
    const kept = await signInForm(origin, `/dashboard/usage?workspace=${workspaceId}`);
    expect(hiddenNext(kept.page)).toBe(`/dashboard/usage?workspace=${workspaceId}`);
  });

  it('a correct sign-in with such a return path goes to the dashboard home, signed in', async () => {
    for (const next of ['/dashboard/x\r\n', '/dashboard/../..//evil.com', '/dashboard/x%0d%0a']) {
      const response = await signInWith('ada@example.com', next);
      expect(response.status, JSON.stringify(next)).toBe(303);
      expect(response.headers.get('location'), JSON.stringify(next)).toBe('/dashboard/keys');
      expect(sessionCookieOf(response), JSON.stringify(next)).toMatch(/^fw_session=[\w-]{43};/);
    }
    const kept = await signInWith('ada@example.com', `/dashboard/usage?workspace=${workspaceId}`);
    expect(kept.status).toBe(303);
    expect(kept.headers.get('location')).toBe(`/dashboard/usage?workspace=${workspaceId}`);
  });

  it('a one-time password sends to the account page without such a return path', async () => {
    const response = await signInWith('new@example.com', '/dashboard/x\r\n');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/dashboard/account');
    expect(sessionCookieOf(response)).toMatch(/^fw_session=[\w-]{43};/);
  });

  it('the password change ignores such a return path, in its page and its form', async () => {
    const signedIn = await signInWith('bob@example.com', '/dashboard/keys');
    const form = await signInForm(origin);
    const session = (sessionCookieOf(signedIn) ?? '').split(';')[0];
    const cookie = `${form.cookie}; ${session}`;
    for (const next of ESCAPES) {
      const query = new URLSearchParams({ next });
      const page = await fetch(`${origin}/dashboard/account?${query}`, { headers: { cookie } });
      expect(page.status, JSON.stringify(next)).toBe(200);
      expect(hiddenNext(await page.text()), JSON.stringify(next)).toBeUndefined();
    }
    let current = passwords['bob@example.com'] as string;
    for (const [i, next] of ['/dashboard/x\r\n', '/dashboard/../..//evil.com'].entries()) {
      const chosen = `bob's own password, take ${i}`;
      const response = await fetch(`${origin}/dashboard/account/password`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({
          _csrf: form.token,
          current,
          new: chosen,
          again: chosen,
          next,
        }).toString(),
      });
      expect(response.status, JSON.stringify(next)).toBe(303);
      expect(response.headers.get('location')).toBe('/dashboard/account?done=password');
      current = chosen;
    }
  });
});

describe.each(DIALECTS)('dashboard forms with U+0000 [%s]', (dialect) => {
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
    origin = new URL(t.baseUrl).origin;
  });
  afterAll(() => t.close());

  it('are refused with a 400 page naming the field, before anything is looked up', async () => {
    const form = await signInForm(origin);
    const response = await postSignIn(
      origin,
      form,
      'email=ada%00%40example.com&password=whatever1',
    );
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain('email must not contain the character U+0000 (NUL)');
    expect(response.headers.getSetCookie().join(';')).not.toContain('session');
  });

  // Every page's path id has a schema, so the rule of every part of a request holds for it too
  // (on PostgreSQL the MCP client's id would otherwise reach a text column).
  it.each([
    ['GET', '/dashboard/keys/key%00/revoke'],
    ['POST', '/dashboard/keys/key%00/revoke'],
    ['POST', '/dashboard/oauth/clients/ocg%00/revoke'],
  ])('path ids are refused too: %s %s', async (method, path) => {
    const response = await fetch(`${origin}${path}`, { method, redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toContain('must not contain the character U+0000 (NUL)');
  });
});
