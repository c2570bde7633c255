import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { DIALECTS } from './helpers/databases.js';
import { readJson } from './helpers/http.js';
import { expectProblem } from './helpers/problems.js';

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

  it('environment is that of a valid key, and a bad key never fails discovery', async () => {
    const as = async (authorization: string) => {
      const response = await fetch(`${t.baseUrl}/`, { headers: { authorization } });
      expect(response.status).toBe(200);
      return (await readJson(response)).environment;
    };
    const sandbox = await t.createKey({ environment: 'sandbox' });
    const live = await t.createKey({ environment: 'live' });
    expect(await as(`Bearer ${sandbox.key}`)).toBe('sandbox');
    expect(await as(`Bearer ${live.key}`)).toBe('live');
    // Well-formed but unknown, and not a key at all.
    expect(await as(`Bearer svc_live_${'A'.repeat(32)}`)).toBe('none');
    expect(await as('Bearer sk_other')).toBe('none');
  });

  it('HEAD / has the same headers as GET and no body', async () => {
    const get = await fetch(`${t.baseUrl}/`);
    const head = await fetch(`${t.baseUrl}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const name of ['content-type', 'content-length']) {
      expect(head.headers.get(name)).toBe(get.headers.get(name));
    }
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
    expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)[a-z]/i);
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
    expect(doc.paths['/'].get.responses['405'].content['application/problem+json'].schema).toEqual({
      $ref: '#/components/schemas/Problem',
    });
    // Helper routes are not API operations.
    expect(doc.paths['/openapi.json']).toBeUndefined();
    expect(doc.paths['/docs']).toBeUndefined();
  });
});
