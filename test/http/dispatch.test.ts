import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/http/dispatch.js';
import type { Principal } from '../../src/modules/accounts/principal.js';
import { ALL_SCOPES } from '../../src/modules/accounts/scopes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { uniqueIdempotencyKey } from '../helpers/http.js';

const CHECK = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };

// Operations run in-process (MCP tools, dashboard pages) say who runs them with headers that only
// this process can make; the same headers from outside count for nothing.
describe.each(DIALECTS)('in-process dispatch [%s]', (dialect) => {
  let t: TestApp;
  let a: { key: string; workspace_id: string };
  let b: { key: string; workspace_id: string };
  const principalOf = (workspaceId: string): Principal => ({
    workspaceId,
    environment: 'sandbox',
    keyId: 'dashboard:usr_test',
    scopes: ALL_SCOPES,
  });
  const forged = (workspaceId: string) => ({
    'firmwatch-dispatch': 'not-the-token dashboard',
    'firmwatch-dispatch-principal': Buffer.from(JSON.stringify(principalOf(workspaceId))).toString(
      'base64url',
    ),
  });

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    a = await t.createKey();
    b = await t.createKey();
  });
  afterAll(() => t.close());

  async function post(headers: Record<string, string>) {
    return fetch(`${t.baseUrl}/checks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': uniqueIdempotencyKey(),
        ...headers,
      },
      body: JSON.stringify(CHECK),
    });
  }

  it('from outside, a forged principal without a key is a 401', async () => {
    const response = await post(forged(b.workspace_id));
    expect(response.status).toBe(401);
  });

  it("from outside, a forged principal with A's key runs as A, through the api channel", async () => {
    const response = await post({ authorization: `Bearer ${a.key}`, ...forged(b.workspace_id) });
    expect(response.status).toBe(201);
    const check = (await response.json()) as { id: string; source: string };
    expect(check.source).toBe('api');
    const asB = await fetch(`${t.baseUrl}/checks/${check.id}`, {
      headers: { authorization: `Bearer ${b.key}` },
    });
    expect(asB.status).toBe(404);
  });

  it('in-process, a principal runs the operation as that workspace, through its channel', async () => {
    const caller = {
      headers: t.app.dispatchHeaders('dashboard', principalOf(b.workspace_id)),
      ip: '127.0.0.1',
    };
    const created = await dispatch(t.app, caller, {
      method: 'POST',
      url: '/v1/checks',
      headers: { 'content-type': 'application/json', 'idempotency-key': uniqueIdempotencyKey() },
      body: CHECK,
    });
    expect(created.status).toBe(201);
    const check = created.body as { id: string; source: string };
    expect(check.source).toBe('dashboard');
    const asB = await fetch(`${t.baseUrl}/checks/${check.id}`, {
      headers: { authorization: `Bearer ${b.key}` },
    });
    expect(asB.status).toBe(200);
    const usage = (await (
      await fetch(`${t.baseUrl}/usage`, { headers: { authorization: `Bearer ${b.key}` } })
    ).json()) as { by_source: Array<{ source: string }> };
    expect(usage.by_source.map((s) => s.source)).toContain('dashboard');
  });

  it('in-process, a principal without the scope is refused as a key would be', async () => {
    const principal = { ...principalOf(b.workspace_id), scopes: ['checks:read' as const] };
    const caller = { headers: t.app.dispatchHeaders('dashboard', principal), ip: '127.0.0.1' };
    const refused = await dispatch(t.app, caller, {
      method: 'POST',
      url: '/v1/checks',
      headers: { 'content-type': 'application/json', 'idempotency-key': uniqueIdempotencyKey() },
      body: CHECK,
    });
    expect(refused.status).toBe(403);
    expect((refused.body as { code: string }).code).toBe('insufficient_scope');
  });
});
