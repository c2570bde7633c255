import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { revokeApiKey } from '../../src/modules/accounts/accounts.service.js';
import { withProbeRoutes } from '../fixtures/probe-routes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS } from '../helpers/databases.js';
import { readJson } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function listProbes(baseUrl: string, headers: Record<string, string> = {}, query = '') {
  return fetch(`${baseUrl}/probes${query}`, { headers });
}

describe.each(DIALECTS)('API keys [%s]', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect, setup: withProbeRoutes });
  });
  afterAll(() => t.close());

  describe('storage', () => {
    it('a key is stored only as its SHA-256 hash and a 13-character display prefix', async () => {
      for (const environment of ['sandbox', 'live'] as const) {
        const created = await t.createKey({ environment });
        expect(created.key).toMatch(
          environment === 'sandbox'
            ? /^svc_test_[A-Za-z0-9_-]{32}$/
            : /^svc_live_[A-Za-z0-9_-]{32}$/,
        );
        const row = await t.database.db
          .selectFrom('api_keys')
          .selectAll()
          .where('id', '=', created.id)
          .executeTakeFirstOrThrow();
        const secret = created.key.slice('svc_test_'.length);
        for (const [column, value] of Object.entries(row)) {
          expect(String(value), column).not.toContain(created.key);
          expect(String(value), column).not.toContain(secret);
        }
        expect(row.key_hash).toBe(sha256(created.key));
        expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
        expect(row.display_prefix).toBe(created.key.slice(0, 13));
        expect(row.environment).toBe(environment);
        expect(created.display_prefix).toBe(row.display_prefix);
      }
    });

    it('100 generated keys are all distinct', async () => {
      const first = await t.createKey();
      const keys = [first.key];
      for (let i = 0; i < 99; i++) {
        keys.push((await t.createKey({ workspaceId: first.workspace_id })).key);
      }
      expect(new Set(keys).size).toBe(100);
      const hashes = await t.database.db
        .selectFrom('api_keys')
        .select('key_hash')
        .where('workspace_id', '=', first.workspace_id)
        .execute();
      expect(new Set(hashes.map((row) => row.key_hash))).toEqual(new Set(keys.map(sha256)));
    });
  });

  describe('authentication responses', () => {
    it('no Authorization header: 401 authentication_required with a Bearer challenge', async () => {
      const response = await listProbes(t.baseUrl);
      const challenge = response.headers.get('www-authenticate');
      expect(challenge).toMatch(/^Bearer realm="firmwatch"/);
      expect(challenge).not.toContain('error=');
      await expectProblem(response, 401, 'authentication_required');
    });

    it('a header that is not a bearer key: 401 invalid_api_key, error="invalid_token"', async () => {
      const response = await listProbes(t.baseUrl, { authorization: 'Basic abc' });
      const challenge = response.headers.get('www-authenticate');
      expect(challenge).toMatch(/^Bearer realm="firmwatch"/);
      expect(challenge).toContain('error="invalid_token"');
      await expectProblem(response, 401, 'invalid_api_key');
    });

    it('a well-formed key that does not exist: 401 invalid_api_key', async () => {
      const response = await listProbes(t.baseUrl, {
        authorization: `Bearer svc_test_${'Z'.repeat(32)}`,
      });
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
      await expectProblem(response, 401, 'invalid_api_key');
    });

    it('a key without the operation scope: 403 insufficient_scope naming it', async () => {
      const { key } = await t.createKey({ scopes: ['usage:read'] });
      const response = await listProbes(t.baseUrl, { authorization: `Bearer ${key}` });
      const challenge = response.headers.get('www-authenticate');
      expect(challenge).toMatch(/^Bearer realm="firmwatch"/);
      expect(challenge).toContain('error="insufficient_scope"');
      expect(challenge).toContain('scope="checks:read"');
      const problem = await expectProblem(response, 403, 'insufficient_scope');
      expect(problem.detail).toContain('checks:read');
    });

    it('a valid key with every scope is accepted', async () => {
      const { key } = await t.createKey();
      const response = await listProbes(t.baseUrl, { authorization: `Bearer ${key}` });
      expect(response.status).toBe(200);
      expect(await readJson(response)).toMatchObject({ object: 'list', data: [] });
    });

    it('a key in the query string is refused, and no key ever reaches the logs', async () => {
      const inUrl = await t.createKey();
      const response = await listProbes(t.baseUrl, {}, `?key=${inUrl.key}`);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="firmwatch"/);
      const problem = await expectProblem(response, 401, 'invalid_api_key');
      expect(problem.detail).toMatch(/only in the Authorization header/);
      expect(problem.detail).not.toContain(inUrl.key);

      const inHeader = await t.createKey();
      const accepted = await listProbes(t.baseUrl, { authorization: `Bearer ${inHeader.key}` });
      expect(accepted.status).toBe(200);
      await accepted.arrayBuffer();

      // Both requests were logged (the URL one with its key redacted), yet neither key appears.
      const logged = JSON.stringify(t.logs);
      expect(logged).toContain('/v1/probes?key=svc_test_[redacted]');
      for (const key of [inUrl.key, inHeader.key]) {
        expect(logged).not.toContain(key);
        expect(logged).not.toContain(key.slice('svc_test_'.length));
      }
      expect(logged.toLowerCase()).not.toContain('authorization');
    });
  });

  describe('revocation', () => {
    it('every node refuses a revoked key within one second', async () => {
      const database = await createTestDatabase(dialect);
      const nodes: TestApp[] = [];
      try {
        for (let i = 0; i < 2; i++)
          nodes.push(await startTestApp({ database, setup: withProbeRoutes }));
        const [a, b] = nodes as [TestApp, TestApp];
        const created = await a.createKey();
        const headers = { authorization: `Bearer ${created.key}` };
        // Both nodes verify the key, so both caches now trust it.
        for (const node of [a, b]) {
          const response = await listProbes(node.baseUrl, headers);
          expect(response.status).toBe(200);
          await response.arrayBuffer();
        }

        const startedAt = performance.now();
        const revoked = await revokeApiKey(
          database.db,
          { clock: systemClock, newId: createIdGenerator(systemClock) },
          created.id,
        );
        expect(revoked.revoked_at).not.toBeNull();

        // Poll every 50 ms until both nodes refuse it (giving up well past the promised second).
        const refusedAfter = new Map<TestApp, number>();
        while (refusedAfter.size < 2 && performance.now() - startedAt < 2000) {
          for (const node of [a, b]) {
            const response = await listProbes(node.baseUrl, headers);
            if (response.status === 200) {
              // Once a node has refused the key, it must never accept it again.
              expect(refusedAfter.has(node)).toBe(false);
              await response.arrayBuffer();
            } else {
              await expectProblem(response, 401, 'invalid_api_key');
              if (!refusedAfter.has(node)) refusedAfter.set(node, performance.now() - startedAt);
            }
          }
          await sleep(50);
        }
        expect(refusedAfter.size, 'nodes that refused the revoked key within 2 s').toBe(2);
        for (const [node, elapsed] of refusedAfter) {
          expect(elapsed, `${node.baseUrl} refused the key after ${elapsed} ms`).toBeLessThan(1000);
        }
      } finally {
        for (const node of nodes) await node.close();
        await database.cleanup();
      }
    });
  });
});
