import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../src/modules/accounts/accounts.service.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { DIALECTS } from './helpers/databases.js';
import { readJson } from './helpers/http.js';
import { expectProblem } from './helpers/problems.js';
import { sendWithRepeatedHeaders } from './security/raw-request.js';

const METHODS = 'GET, HEAD, OPTIONS';

describe.each(DIALECTS)('discovery [%s]', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t.close());

  it('GET / answers the contract shape', async () => {
    const response = await fetch(`${t.baseUrl}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await readJson(response);
    expect(body).toEqual({
      name: 'firmwatch API',
      version: 'v1',
      environment: 'none',
      documentation: `${t.baseUrl}/docs`,
      openapi: `${t.baseUrl}/openapi.json`,
    });
  });

  it('GET /v1 without the trailing slash answers the same', async () => {
    const response = await fetch(t.baseUrl);
    expect(response.status).toBe(200);
    expect((await readJson(response)).version).toBe('v1');
  });

  it('says whose key was sent: none, a valid one (its environment), or one it does not recognise; always 200', async () => {
    const sandbox = await t.createKey({ environment: 'sandbox' });
    const live = await t.createKey({ environment: 'live' });
    const revoked = await t.createKey({ environment: 'sandbox' });
    // Revoked before it is ever used, so no verifier cache remembers it as valid.
    await revokeApiKey(t.database.db, { clock: t.clock, newId: t.newId }, revoked.id);
    const cases: Array<[string, Record<string, string | string[]>, string, string]> = [
      ['no key', {}, 'none', 'none'],
      ['a sandbox key', { authorization: `Bearer ${sandbox.key}` }, 'sandbox', 'valid'],
      ['a live key', { authorization: `Bearer ${live.key}` }, 'live', 'valid'],
      // The README's first request with a typo: well-formed, unknown.
      [
        'a mistyped key',
        { authorization: 'Bearer svc_test_bogus' },
        'unrecognized_key',
        'unrecognized',
      ],
      [
        'an unknown key',
        { authorization: `Bearer svc_live_${'A'.repeat(32)}` },
        'unrecognized_key',
        'unrecognized',
      ],
      [
        'a revoked key',
        { authorization: `Bearer ${revoked.key}` },
        'unrecognized_key',
        'unrecognized',
      ],
      [
        'not a firmwatch key',
        { authorization: 'Bearer sk_other' },
        'unrecognized_key',
        'unrecognized',
      ],
      [
        'not a bearer token',
        { authorization: 'Basic dXNlcjpwYXNz' },
        'unrecognized_key',
        'unrecognized',
      ],
      [
        'two Authorization headers',
        { authorization: [`Bearer ${sandbox.key}`, `Bearer ${live.key}`] },
        'unrecognized_key',
        'unrecognized',
      ],
    ];
    for (const [name, headers, environment, status] of cases) {
      const response = await sendWithRepeatedHeaders(`${t.baseUrl}/`, 'GET', headers);
      expect(response.status, name).toBe(200);
      expect(response.headers.get('api-key-status'), name).toBe(status);
      expect((await readJson(response)).environment, name).toBe(environment);
    }
  });

  it('HEAD / has the same headers as GET and no body', async () => {
    for (const [headers, status] of [
      [{}, 'none'],
      [{ authorization: 'Bearer svc_test_bogus' }, 'unrecognized'],
    ] as const) {
      const get = await fetch(`${t.baseUrl}/`, { headers });
      const head = await fetch(`${t.baseUrl}/`, { method: 'HEAD', headers });
      expect(head.status).toBe(200);
      expect(head.headers.get('api-key-status')).toBe(status);
      expect(await head.text()).toBe('');
      for (const name of ['content-type', 'content-length', 'api-key-status']) {
        expect(head.headers.get(name), name).toBe(get.headers.get(name));
      }
    }
    const head = await fetch(`${t.baseUrl}/`, { method: 'HEAD' });
    expect(head.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('OPTIONS / answers 204 with Allow and Access-Control-Allow-Methods', async () => {
    const response = await fetch(`${t.baseUrl}/`, { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe(METHODS);
    expect(response.headers.get('access-control-allow-methods')).toBe(METHODS);
    expect(await response.text()).toBe('');
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('%s / answers 405 with Allow', async (method) => {
    const response = await fetch(`${t.baseUrl}/`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.headers.get('allow')).toBe(METHODS);
    await expectProblem(response, 405, 'method_not_allowed');
  });

  it('the documentation URI resolves to the human-readable reference', async () => {
    const { documentation } = await readJson(await fetch(`${t.baseUrl}/`));
    const response = await fetch(documentation);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('<h1>firmwatch API');
    expect(html).toContain('id="op-getApi"');
    // Problem type URIs point at anchors of this page.
    expect(html).toContain('id="problem-validation_failed"');
    // Nothing is loaded from elsewhere: no script, and no attribute or style that fetches from
    // another origin. (Example bodies show https:// webhook URLs as text: they are never loaded.)
    expect(html).not.toMatch(/<script|<link|<img|<iframe|url\(/i);
    expect(html).not.toMatch(
      /(?:src|href|action|srcset)\s*=\s*["']?\s*(?:https?:)?\/\/(?!127\.0\.0\.1)/i,
    );
    expect(html.replace(/<pre[^>]*>[\s\S]*?<\/pre>/g, '')).not.toMatch(
      /https?:\/\/(?!127\.0\.0\.1)[a-z]/i,
    );
  });

  it('the openapi URI resolves to an OpenAPI 3.1 document of version 1.1.0', async () => {
    const { openapi } = await readJson(await fetch(`${t.baseUrl}/`));
    const response = await fetch(openapi);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = await readJson(response);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.1.0');
    expect(doc.servers).toEqual([{ url: t.baseUrl }]);
    expect(Object.keys(doc.paths['/']).sort()).toEqual(['get', 'head', 'options']);
    expect(doc.paths['/'].get.security).toEqual([]);
    const ok = doc.paths['/'].get.responses['200'];
    expect(ok.headers['Api-Key-Status'].schema.enum).toEqual(['none', 'valid', 'unrecognized']);
    expect(ok.content['application/json'].schema.properties.environment.enum).toEqual([
      'sandbox',
      'live',
      'none',
      'unrecognized_key',
    ]);
    expect(doc.paths['/'].get.responses['405'].content['application/problem+json'].schema).toEqual({
      $ref: '#/components/schemas/Problem',
    });
    // Helper routes are not API operations.
    expect(doc.paths['/openapi.json']).toBeUndefined();
    expect(doc.paths['/docs']).toBeUndefined();
  });
});
