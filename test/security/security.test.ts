import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/modules/accounts/accounts.service.js';
import { ALL_SCOPES } from '../../src/modules/accounts/scopes.js';
import { withProbeRoutes } from '../fixtures/probe-routes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { type Json, readJson, uniqueIdempotencyKey } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';
import { keyQueryStrings, uniqueSecret } from './keys-in-urls.js';
import { SECURED_OPERATIONS, type SecuredOperation } from './operations.js';
import { sendWithRepeatedHeaders } from './raw-request.js';

describe.each(DIALECTS)('security of every authenticated operation [%s]', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      dialect,
      // Revocation must be visible at once here; the 1-second bound has its own test.
      keyCacheTtlMs: 0,
      setup: withProbeRoutes,
    });
  });
  afterAll(() => t.close());

  function urlOf(op: SecuredOperation, id = 'chk_0000000000000000missing', query = ''): string {
    return `${t.baseUrl}${op.path.replace(/\{[a-z_]+\}/, id)}${query ? `?${query}` : ''}`;
  }

  function headersFor(op: SecuredOperation): Record<string, string> {
    const headers: Record<string, string> = {};
    if (op.body !== undefined) headers['content-type'] = 'application/json';
    if (op.idempotent) headers['idempotency-key'] = uniqueIdempotencyKey();
    return headers;
  }

  async function call(
    op: SecuredOperation,
    authorization: string | undefined,
    id?: string,
    query?: string,
  ) {
    const headers = headersFor(op);
    if (authorization !== undefined) headers.authorization = authorization;
    return fetch(urlOf(op, id, query), {
      method: op.method,
      headers,
      body: op.body === undefined ? undefined : JSON.stringify(op.body),
    });
  }

  it('covers exactly the authenticated operations of the OpenAPI document, with their scopes', async () => {
    const doc = await readJson(await fetch(`${t.baseUrl}/openapi.json`));
    const documented: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(item)) {
        if (operation.security?.length === 0 || method === 'head') continue;
        documented.push(
          `${method.toUpperCase()} ${path} ${operation.security?.[0]?.bearerAuth?.[0]}`,
        );
      }
    }
    const covered = SECURED_OPERATIONS.map((op) => `${op.method} ${op.path} ${op.scope}`);
    expect(documented.sort()).toEqual(covered.sort());
  });

  describe.each(SECURED_OPERATIONS)('$method $path ($name)', (op) => {
    it('without a key: 401 with WWW-Authenticate', async () => {
      const response = await call(op, undefined);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="firmwatch"');
      await expectProblem(response, 401, 'authentication_required');
    });

    it('with a malformed credential: 401', async () => {
      for (const authorization of [
        'Bearer',
        'Basic dXNlcjpwdw==',
        'Bearer svc_test_short',
        'Bearer sk_live_abc',
      ]) {
        const response = await call(op, authorization);
        expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
        await expectProblem(response, 401, 'invalid_api_key');
      }
    });

    it('with an unknown key: 401', async () => {
      const response = await call(op, `Bearer svc_test_${'Z'.repeat(32)}`);
      await expectProblem(response, 401, 'invalid_api_key');
    });

    it('with a revoked key: 401', async () => {
      const key = await t.createKey();
      await revokeApiKey(t.database.db, { clock: t.clock, newId: () => 'unused' }, key.id);
      await expectProblem(await call(op, `Bearer ${key.key}`), 401, 'invalid_api_key');
    });

    it('with a key in the URL, however encoded or cased: 401 telling to rotate it, never logged', async () => {
      // A valid key in the header too: the URL alone is the reason for the refusal.
      const key = await t.createKey({ scopes: [op.scope] });
      const secret = uniqueSecret();
      for (const query of keyQueryStrings(secret)) {
        const response = await call(op, `Bearer ${key.key}`, undefined, query);
        expect(response.headers.get('www-authenticate'), query).toContain(
          'error="invalid_request"',
        );
        const problem = await expectProblem(response, 401, 'invalid_api_key');
        expect(problem.detail).toMatch(/revoke it and create a new one/);
      }
      expect(JSON.stringify(t.logs)).not.toContain(secret);
    });

    it('with two Authorization headers: 401, whichever keys they carry', async () => {
      const first = await t.createKey({ scopes: [op.scope] });
      const second = await t.createKey({ scopes: [op.scope] });
      for (const pair of [
        [first.key, second.key],
        [first.key, first.key],
        [first.key, 'svc_test_short'],
      ]) {
        const response = await sendWithRepeatedHeaders(
          urlOf(op),
          op.method,
          { ...headersFor(op), authorization: pair.map((key) => `Bearer ${key}`) },
          op.body === undefined ? undefined : JSON.stringify(op.body),
        );
        expect(response.headers.get('www-authenticate')).toContain('error="invalid_request"');
        const problem = await expectProblem(response, 401, 'invalid_api_key');
        expect(problem.detail).toContain('2 Authorization headers');
      }
    });

    it(`without the ${op.scope} scope: 403`, async () => {
      const key = await t.createKey({ scopes: ALL_SCOPES.filter((s) => s !== op.scope) });
      const response = await call(op, `Bearer ${key.key}`);
      expect(response.headers.get('www-authenticate')).toContain(`scope="${op.scope}"`);
      const problem = await expectProblem(response, 403, 'insufficient_scope');
      expect(problem.detail).toContain(op.scope);
    });

    it('with the scope: succeeds (the control for the cases above)', async () => {
      const key = await t.createKey({ scopes: [op.scope] });
      // Resource operations act on a resource of the same workspace.
      const owner = op.createResource ? await t.createKey({ workspaceId: key.workspace_id }) : key;
      const id = op.createResource ? await op.createResource(t.baseUrl, owner.key) : undefined;
      const response = await call(op, `Bearer ${key.key}`, id);
      expect(response.status).toBe(op.successStatus);
    });

    if (op.createResource) {
      it("another workspace's resource id: 404, as if it did not exist", async () => {
        const owner = await t.createKey();
        const id = await (op.createResource as NonNullable<SecuredOperation['createResource']>)(
          t.baseUrl,
          owner.key,
        );
        const stranger = await t.createKey();
        await expectProblem(await call(op, `Bearer ${stranger.key}`, id), 404, 'not_found');
        // The same workspace in the other environment is a different scope as well.
        const live = await t.createKey({ workspaceId: owner.workspace_id, environment: 'live' });
        await expectProblem(await call(op, `Bearer ${live.key}`, id), 404, 'not_found');
      });
    }
  });
});

describe('credentials on public routes and unknown paths', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const ROUTES: Array<[string, string]> = [
    ['GET', '/'],
    ['HEAD', '/'],
    ['OPTIONS', '/'],
    ['GET', '/openapi.json'],
    ['GET', '/docs'],
    ['GET', '/countries'],
    ['GET', '/countries/GB'],
    ['GET', '/no-such-resource'],
    ['DELETE', '/countries'],
  ];

  it.each(ROUTES)(
    '%s %s refuses a key in the URL, however encoded, and never logs it',
    async (method, path) => {
      const secret = uniqueSecret();
      for (const query of keyQueryStrings(secret)) {
        const response = await fetch(`${t.baseUrl}${path}?${query}`, { method });
        expect(response.headers.get('www-authenticate'), query).toContain(
          'error="invalid_request"',
        );
        if (method === 'HEAD') {
          expect(response.status).toBe(401);
          continue;
        }
        const problem = await expectProblem(response, 401, 'invalid_api_key');
        expect(problem.detail).toMatch(/revoke it and create a new one/);
      }
      const logs = JSON.stringify(t.logs);
      expect(logs).not.toContain(secret);
      expect(logs).toMatch(/svc_(test|live)_\[redacted\]/);
    },
  );

  it('a key in the path of an unknown URL outside /v1 is refused too', async () => {
    const secret = uniqueSecret();
    const origin = new URL(t.baseUrl).origin;
    const response = await fetch(`${origin}/svc%5Ftest%5F${secret}`);
    await expectProblem(response, 401, 'invalid_api_key');
    expect(JSON.stringify(t.logs)).not.toContain(secret);
  });

  it('two Authorization headers on a public route select neither key, and say so', async () => {
    const sandbox = await t.createKey();
    const live = await t.createKey({ environment: 'live' });
    // The control: one header is read.
    const single = await fetch(`${t.baseUrl}/`, {
      headers: { authorization: `Bearer ${sandbox.key}` },
    });
    expect((await readJson(single)).environment).toBe('sandbox');
    for (const pair of [
      [sandbox.key, live.key],
      [live.key, sandbox.key],
      [sandbox.key, sandbox.key],
    ]) {
      const response = await sendWithRepeatedHeaders(`${t.baseUrl}/`, 'GET', {
        authorization: pair.map((key) => `Bearer ${key}`),
      });
      expect(response.status).toBe(200);
      expect((await readJson(response)).environment).toBe('unrecognized_key');
    }
  });
});

describe('endpoints beside /v1: MCP, OAuth and the dashboard', () => {
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await startTestApp({ keyCacheTtlMs: 0 });
    origin = new URL(t.baseUrl).origin;
  });
  afterAll(() => t.close());

  const ROUTES: Array<[string, string]> = [
    ['POST', '/mcp'],
    ['GET', '/.well-known/oauth-protected-resource/mcp'],
    ['GET', '/.well-known/oauth-authorization-server'],
    ['POST', '/oauth/register'],
    ['POST', '/oauth/token'],
  ];

  it.each(ROUTES)('%s %s refuses a key in the URL and never logs it', async (method, path) => {
    const secret = uniqueSecret();
    for (const query of keyQueryStrings(secret)) {
      const response = await fetch(`${origin}${path}?${query}`, { method });
      await expectProblem(response, 401, 'invalid_api_key');
    }
    expect(JSON.stringify(t.logs)).not.toContain(secret);
  });

  // The dashboard answers in HTML, with the same refusal.
  it.each(['/dashboard/sign-in', '/dashboard/keys'])(
    'GET %s refuses a key in the URL with a 401 page and never logs it',
    async (path) => {
      const secret = uniqueSecret();
      for (const query of keyQueryStrings(secret)) {
        const response = await fetch(`${origin}${path}?${query}`);
        expect(response.status, query).toBe(401);
        expect(response.headers.get('www-authenticate')).toContain('error="invalid_request"');
        expect(await response.text()).toContain('revoke it and create a new one');
      }
      expect(JSON.stringify(t.logs)).not.toContain(secret);
    },
  );

  async function initialize(authorization?: string) {
    return fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(authorization ? { authorization } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'security', version: '1' },
        },
      }),
    });
  }

  it('POST /mcp refuses a missing, malformed, unknown or revoked key, and takes a valid one', async () => {
    await expectProblem(await initialize(), 401, 'authentication_required');
    for (const authorization of [
      'Bearer',
      'Bearer svc_test_short',
      `Bearer svc_test_${'x'.repeat(32)}`,
    ]) {
      await expectProblem(await initialize(authorization), 401, 'invalid_api_key');
    }
    const key = await t.createKey();
    expect((await initialize(`Bearer ${key.key}`)).status).toBe(200);
    await revokeApiKey(t.database.db, { clock: t.clock, newId: () => 'unused' }, key.id);
    await expectProblem(await initialize(`Bearer ${key.key}`), 401, 'invalid_api_key');
  });
});
