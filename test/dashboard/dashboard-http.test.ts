import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addDashboardUser } from '../helpers/dashboard-users.js';
import { DIALECTS } from '../helpers/databases.js';

/** The sign-in form's CSRF cookie and token, as a browser would get them. */
async function signInForm(origin: string) {
  const response = await fetch(`${origin}/dashboard/sign-in`);
  const cookie = (response.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
  const token = /name="_csrf" value="([^"]+)"/.exec(await response.text())?.[1] as string;
  return { response, cookie, token };
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
});
