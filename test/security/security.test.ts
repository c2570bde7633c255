import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/modules/accounts/accounts.service.js';
import { ALL_SCOPES } from '../../src/modules/accounts/scopes.js';
import { withProbeRoutes } from '../fixtures/probe-routes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { type Json, readJson, uniqueIdempotencyKey } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';
import { SECURED_OPERATIONS, type SecuredOperation } from './operations.js';

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

  async function call(
    op: SecuredOperation,
    authorization: string | undefined,
    id = 'chk_0000000000000000missing',
  ) {
    const headers: Record<string, string> = {};
    if (authorization !== undefined) headers.authorization = authorization;
    if (op.body !== undefined) headers['content-type'] = 'application/json';
    if (op.idempotent) headers['idempotency-key'] = uniqueIdempotencyKey();
    return fetch(`${t.baseUrl}${op.path.replace(/\{[a-z_]+\}/, id)}`, {
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
