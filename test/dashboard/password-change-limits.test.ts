import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { authenticate } from '../../src/modules/users/users.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addDashboardUser } from '../helpers/dashboard-users.js';
import { DIALECTS } from '../helpers/databases.js';

const TOO_MANY = 'Too many attempts to change the password. Wait a minute, then try again.';

/** A signed-in browser, reduced to its cookies and the account form's CSRF token. */
async function signedIn(origin: string, email: string, password: string) {
  const form = await fetch(`${origin}/dashboard/sign-in`);
  const csrfCookie = (form.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
  const signInToken = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] as string;
  const response = await fetch(`${origin}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
    body: new URLSearchParams({ _csrf: signInToken, email, password }).toString(),
  });
  expect(response.status).toBe(303);
  const session = response.headers
    .getSetCookie()
    .find((c) => c.startsWith('fw_session='))
    ?.split(';')[0] as string;
  const cookie = `${csrfCookie}; ${session}`;
  const account = await fetch(`${origin}/dashboard/account`, { headers: { cookie } });
  const token = /name="_csrf" value="([^"]+)"/.exec(await account.text())?.[1] as string;
  return (current: string, next = 'a new password of my own') =>
    fetch(`${origin}/dashboard/account/password`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ _csrf: token, current, new: next, again: next }).toString(),
    });
}

describe.each(DIALECTS)('the password change is rate-limited like sign-in [%s]', (dialect) => {
  let t: TestApp;
  let origin: string;
  const passwords: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    origin = new URL(t.baseUrl).origin;
    const deps = { clock: t.clock, newId: t.newId };
    const ws = await createWorkspace(t.database.db, deps, { name: 'Acme' });
    for (const email of ['ada@example.com', 'bob@example.com']) {
      const added = await addDashboardUser(t.database.db, deps, { email, workspaceId: ws.id });
      passwords[email] = added.password as string;
    }
  });
  afterAll(() => t?.close());

  it('per account, then per address, with one answer; the right password is refused too', async () => {
    const ada = await signedIn(origin, 'ada@example.com', passwords['ada@example.com'] as string);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await ada('not my password')).status);
    expect(statuses).toEqual([422, 422, 422, 422, 422]);
    const limited = await ada(passwords['ada@example.com'] as string);
    expect(limited.status).toBe(429);
    const page = await limited.text();
    expect(page).toContain(TOO_MANY);
    expect(page).not.toContain('not right');
    // Refused before it was checked: the password is unchanged.
    await authenticate(t.database.db, 'ada@example.com', passwords['ada@example.com'] as string);

    // The address has used 6 of its 10; Bob's own bucket is full, but after 4 more the address
    // is refused, with the same words.
    const bob = await signedIn(origin, 'bob@example.com', passwords['bob@example.com'] as string);
    for (let i = 0; i < 4; i++) expect((await bob('not my password')).status).toBe(422);
    const byAddress = await bob(passwords['bob@example.com'] as string);
    expect(byAddress.status).toBe(429);
    expect(await byAddress.text()).toContain(TOO_MANY);
    await authenticate(t.database.db, 'bob@example.com', passwords['bob@example.com'] as string);
  });
});
