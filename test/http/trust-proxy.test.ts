import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { dispatch } from '../../src/http/dispatch.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { mcpUrl } from '../helpers/mcp.js';
import { expectProblem } from '../helpers/problems.js';

// Two failed authentications per client address, then 429; time stands still unless a test moves
// it, so no token comes back in between.
const FAILURES = { capacity: 2, refillPerSecond: 1 };
let now = 1_000_000;

/** The app configured from the environment's TRUST_PROXY, as `serve` is. */
function startWith(env: { TRUST_PROXY?: string }): Promise<TestApp> {
  return startTestApp({
    trustProxy: loadConfig(env).trustProxy,
    rateLimits: { failedAuthPerIp: FAILURES },
    rateLimitStore: memoryTokenBuckets(() => now),
  });
}

const wrongKey = () => `svc_test_${randomBytes(24).toString('base64url')}`;

/** An authenticated operation with a wrong key, from 127.0.0.1, saying it forwards `forwardedFor`. */
function failAuth(t: TestApp, forwardedFor?: string): Promise<Response> {
  return fetch(`${t.baseUrl}/checks`, {
    headers: {
      authorization: `Bearer ${wrongKey()}`,
      ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
    },
  });
}

const expect401 = (response: Response) => expectProblem(response, 401, 'invalid_api_key');
const expect429 = (response: Response) => expectProblem(response, 429, 'rate_limited');

/** The client address of each `incoming request` log line for `path`, in order. */
function loggedAddresses(t: TestApp, path: string): unknown[] {
  return t.logs
    .filter((line) => line.msg === 'incoming request')
    .map((line) => line.req as { url: string; ip: unknown })
    .filter((req) => req.url.split('?')[0] === path)
    .map((req) => req.ip);
}

// Every test starts with full buckets.
beforeEach(() => {
  now += 3_600_000;
});

describe('without TRUST_PROXY, X-Forwarded-For is ignored', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWith({});
  });
  afterAll(() => t.close());

  it('a client rotating spoofed X-Forwarded-For values still exhausts its own budget', async () => {
    await expect401(await failAuth(t, '203.0.113.1'));
    await expect401(await failAuth(t, '203.0.113.2'));
    await expect429(await failAuth(t, '203.0.113.3'));
    await expect429(await failAuth(t));
    expect(loggedAddresses(t, '/v1/checks')).toEqual(Array(4).fill('127.0.0.1'));
  });
});

describe('with TRUST_PROXY=127.0.0.1, clients behind the proxy are told apart', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWith({ TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => t.close());

  it('one client exhausting its failed authentications leaves the others their own budgets', async () => {
    await expect401(await failAuth(t, '203.0.113.9'));
    await expect401(await failAuth(t, '203.0.113.9'));
    await expect429(await failAuth(t, '203.0.113.9'));
    // A client cannot escape by prepending an address: the proxy appends the one it saw last.
    await expect429(await failAuth(t, '198.51.100.1, 203.0.113.9'));

    await expect401(await failAuth(t, '203.0.113.10'));
    // The proxy's own requests (no X-Forwarded-For) are keyed on its address.
    await expect401(await failAuth(t));
    expect(loggedAddresses(t, '/v1/checks')).toEqual([
      '203.0.113.9',
      '203.0.113.9',
      '203.0.113.9',
      '203.0.113.9',
      '203.0.113.10',
      '127.0.0.1',
    ]);
  });

  it('an operation run in-process is keyed and logged on the caller it is run for', async () => {
    const caller = { headers: {}, ip: '198.51.100.8' };
    const operation = { method: 'GET', url: '/v1/checks', headers: {} };
    for (let i = 0; i < 2; i++) {
      const refused = await dispatch(
        t.app,
        { ...caller, headers: { authorization: 'Bearer x' } },
        operation,
      );
      expect(refused.status).toBe(401);
    }
    // The budget it spent is that client's, through the proxy as well.
    await expect429(await failAuth(t, '198.51.100.8'));
    await expect401(await failAuth(t, '198.51.100.9'));
  });

  it('an MCP tool call behind the proxy runs its operation from the client address', async () => {
    const { key } = await t.createKey();
    const client = new Client({ name: 'firmwatch-tests', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(mcpUrl(t.baseUrl), {
        requestInit: {
          headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': '192.0.2.44' },
        },
      }),
    );
    try {
      const result = await client.callTool({
        name: 'search_companies',
        arguments: { country_code: 'GB', name: 'Sandbox Dormant' },
      });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const mcp = loggedAddresses(t, '/mcp');
    expect(mcp.length).toBeGreaterThan(0);
    expect(new Set(mcp)).toEqual(new Set(['192.0.2.44']));
    expect(loggedAddresses(t, '/v1/companies/search')).toEqual(['192.0.2.44']);
  });
  it("the dashboard's sign-in attempts are limited per client, not per proxy", async () => {
    const origin = new URL(t.baseUrl).origin;
    // Forwarded as https by the proxy, but cookies follow PUBLIC_BASE_URL (http here): not Secure.
    const form = await fetch(`${origin}/dashboard/sign-in`, {
      headers: { 'x-forwarded-for': '203.0.113.20', 'x-forwarded-proto': 'https' },
    });
    const csrfCookie = form.headers.getSetCookie()[0] ?? '';
    expect(csrfCookie).not.toMatch(/;\s*secure/i);
    const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] as string;
    // A new email each time, so only the per-address bucket (10 attempts) can run out.
    let attempt = 0;
    const signIn = (forwardedFor: string) =>
      fetch(`${origin}/dashboard/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: csrfCookie.split(';')[0] as string,
          'x-forwarded-for': forwardedFor,
        },
        body: `_csrf=${encodeURIComponent(token)}&email=guess${attempt++}%40example.com&password=x`,
      });
    for (let i = 0; i < 10; i++) expect((await signIn('203.0.113.20')).status).toBe(401);
    expect((await signIn('203.0.113.20')).status).toBe(429);
    expect((await signIn('203.0.113.21')).status).toBe(401);
  });
});

describe('with TRUST_PROXY naming another proxy, X-Forwarded-For from elsewhere is ignored', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWith({ TRUST_PROXY: '10.0.0.0/8' });
  });
  afterAll(() => t.close());

  it('requests from 127.0.0.1 are keyed on 127.0.0.1 whatever they forward', async () => {
    await expect401(await failAuth(t, '203.0.113.1'));
    await expect401(await failAuth(t, '203.0.113.2'));
    await expect429(await failAuth(t, '203.0.113.3'));
    expect(loggedAddresses(t, '/v1/checks')).toEqual(Array(3).fill('127.0.0.1'));
  });
});

describe('TRUST_PROXY values', () => {
  it('reads addresses, CIDR ranges and named ranges, comma-separated; none by default', () => {
    expect(loadConfig({}).trustProxy).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: '' }).trustProxy).toEqual([]);
    expect(
      loadConfig({
        TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,fd00::/8 ,::1,loopback,linklocal,uniquelocal',
      }).trustProxy,
    ).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      'fd00::/8',
      '::1',
      'loopback',
      'linklocal',
      'uniquelocal',
    ]);
  });

  it.each([
    'true',
    '*',
    '0.0.0.0/0',
    '::/0',
    'proxy.example.com',
    '300.1.1.1',
    '10.0.0.0/33',
    'fd00::/129',
    '10.0.0.0/8/8',
    '10.0.0.0/255.0.0.0',
    '10.0.0.0/',
    'fe80::1%eth0',
    '10.0.0.1,,10.0.0.2',
    '10.0.0.1,',
    '2',
  ])('refuses %j with a one-line error naming TRUST_PROXY', (value) => {
    let error: unknown;
    try {
      loadConfig({ TRUST_PROXY: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('TRUST_PROXY');
    expect((error as ConfigError).message).toMatch(/^TRUST_PROXY: /);
    expect((error as ConfigError).message).not.toContain('\n');
  });

  it('trusting everyone is refused with the reason', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/would trust every address/);
  });

  it('serve refuses to start with a bad value, naming the variable', async () => {
    const result = await runCli(['serve'], { TRUST_PROXY: '10.0.0.0/33' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(
      /^firmwatch: TRUST_PROXY: "10\.0\.0\.0\/33" needs a prefix length/,
    );
  });
});
