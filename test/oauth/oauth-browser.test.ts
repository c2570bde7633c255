import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { BROWSER_AVAILABLE, CHROMIUM_PATH, launchBrowser } from '../helpers/browser.js';
import {
  checkPage as checkDashboardPage,
  makeScreenshotFolder,
  submitSignIn,
} from '../helpers/dashboard-browser.js';
import { addDashboardUser } from '../helpers/dashboard-users.js';
import { DIALECTS } from '../helpers/databases.js';
import { mcpUrl } from '../helpers/mcp.js';

if (!BROWSER_AVAILABLE)
  console.log(`OAuth browser tests skipped: no Chromium at ${CHROMIUM_PATH}.`);

const CHECK = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };

/** The native client's loopback redirect URI: a real server that records what it receives. */
async function startCallbackServer() {
  const received: URL[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // Chromium also asks for /favicon.ico.
    if (url.pathname === '/callback') received.push(url);
    response.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return { url, received, close: () => new Promise((done) => server.close(done)) };
}

/** The SDK's OAuthClientProvider, holding everything in memory like a CLI client's session. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  expectedState = '';
  authorizationUrls: URL[] = [];
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Playwright agent',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    this.expectedState = `st-${Math.random().toString(36).slice(2)}`;
    return this.expectedState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    // The browser is driven by the test, which picks this URL up.
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe.runIf(BROWSER_AVAILABLE).each(DIALECTS)(
  'an MCP client signs in with OAuth [%s]',
  (dialect) => {
    let t: TestApp;
    let browser: Browser;
    let callback: Awaited<ReturnType<typeof startCallbackServer>>;
    let origin: string;
    let password: string;
    let labWorkspace: string;
    const email = 'agent-user@example.com';

    beforeAll(async () => {
      // No verifier cache: the call right after the revocation must already be refused.
      makeScreenshotFolder();
      t = await startTestApp({ dialect, keyCacheTtlMs: 0 });
      origin = new URL(t.baseUrl).origin;
      const deps = { clock: t.clock, newId: t.newId };
      const first = await createWorkspace(t.database.db, deps, { name: 'Acme payables' });
      password = (
        await addDashboardUser(t.database.db, deps, {
          email,
          workspaceId: first.id,
          role: 'owner',
        })
      ).password as string;
      labWorkspace = (await createWorkspace(t.database.db, deps, { name: 'Acme lab' })).id;
      await addDashboardUser(t.database.db, deps, { email, workspaceId: labWorkspace });
      callback = await startCallbackServer();
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser?.close();
      await callback?.close();
      await t?.close();
    });

    const checkPage = (page: Page, name: string) =>
      checkDashboardPage(page, { area: 'oauth', dialect, name });

    it('completes code + PKCE through sign-in and consent, calls a tool, and is refused once revoked', async () => {
      const provider = new MemoryProvider(callback.url);
      const connect = async () => {
        const transport = new StreamableHTTPClientTransport(mcpUrl(t.baseUrl), {
          authProvider: provider,
        });
        const client = new Client({ name: 'oauth-test', version: '1.0.0' });
        await client.connect(transport);
        return { client, transport };
      };

      // No token yet: the SDK discovers the server, registers and asks to open the browser.
      const first = new StreamableHTTPClientTransport(mcpUrl(t.baseUrl), {
        authProvider: provider,
      });
      await expect(
        new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first),
      ).rejects.toThrow(/Unauthorized/i);
      expect(provider.client?.client_id).toMatch(/^oac_/);
      const authorizationUrl = provider.authorizationUrls[0] as URL;
      expect(authorizationUrl.toString()).toMatch(new RegExp(`^${origin}/oauth/authorize\\?`));
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorizationUrl.searchParams.get('resource')).toBe(`${origin}/mcp`);

      // Signed out: the authorization goes through sign-in and comes back to the consent page.
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(authorizationUrl.toString());
      expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
      await submitSignIn(page, { email, password });
      await page.waitForURL(/\/dashboard\/oauth\/consent\?/);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(
        'Allow Playwright agent to use firmwatch?',
      );
      await checkPage(page, 'consent');

      // The lab workspace, sandbox, and two scopes only.
      await page.getByLabel('Workspace the client works in').selectOption(labWorkspace);
      await page.getByLabel('Sandbox (fixtures, no credits)').check();
      for (const scope of ['checks:read', 'checks:write']) {
        await expect.poll(() => page.getByLabel(scope, { exact: true }).isChecked()).toBe(true);
      }
      for (const scope of [
        'companies:read',
        'monitors:read',
        'monitors:write',
        'events:read',
        'usage:read',
      ]) {
        await page.getByLabel(scope, { exact: true }).uncheck();
      }
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((url) => url.toString().startsWith(callback.url));
      const redirect = callback.received.at(-1) as URL;
      expect(redirect.searchParams.get('state')).toBe(provider.expectedState);
      const code = redirect.searchParams.get('code') as string;
      expect(code).toMatch(/^fwac_/);

      await first.finishAuth(code);
      expect(provider.saved?.access_token).toMatch(/^fwat_/);
      expect(provider.saved?.scope).toBe('checks:read checks:write');

      const { client } = await connect();
      const result = (await client.callTool({
        name: 'check_identifier',
        arguments: CHECK,
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const check = result.structuredContent as { id: string; source: string };
      expect(check.source).toBe('mcp');
      const stored = await t.database.db
        .selectFrom('checks')
        .select(['workspace_id', 'environment'])
        .where('id', '=', check.id)
        .executeTakeFirstOrThrow();
      expect(stored).toEqual({ workspace_id: labWorkspace, environment: 'sandbox' });

      // The dashboard lists the client, with the choices made; revoking it ends its access.
      await page.goto(`${origin}/dashboard/oauth/clients`);
      const row = page.getByRole('row', { name: /Playwright agent/ });
      expect(await row.innerText()).toMatch(/Acme lab\s+sandbox\s+checks:read, checks:write/);
      await checkPage(page, 'clients');
      await row.getByRole('button', { name: /Revoke/ }).click();
      await page.waitForURL(`${origin}/dashboard/oauth/clients`);
      expect(await page.getByText('No MCP client is authorized.').isVisible()).toBe(true);

      // The next call: 401, the SDK then tries its refresh token, which is refused as well, and
      // the error reaches the caller.
      const revokedToken = provider.saved?.access_token as string;
      await expect(client.callTool({ name: 'check_identifier', arguments: CHECK })).rejects.toThrow(
        /has been revoked/,
      );
      const direct = await fetch(`${origin}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${revokedToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(direct.status).toBe(401);
      expect(direct.headers.get('www-authenticate')).toContain('error="invalid_token"');
      await client.close();
      await context.close();
    });

    it('a denied request goes back to the client as access_denied', async () => {
      const provider = new MemoryProvider(callback.url);
      const transport = new StreamableHTTPClientTransport(mcpUrl(t.baseUrl), {
        authProvider: provider,
      });
      await expect(
        new Client({ name: 'oauth-test', version: '1.0.0' }).connect(transport),
      ).rejects.toThrow();
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto((provider.authorizationUrls[0] as URL).toString());
      await submitSignIn(page, { email, password });
      await page.waitForURL(/\/dashboard\/oauth\/consent\?/);
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.waitForURL((url) => url.toString().startsWith(callback.url));
      const redirect = callback.received.at(-1) as URL;
      expect(redirect.searchParams.get('error')).toBe('access_denied');
      expect(redirect.searchParams.get('state')).toBe(provider.expectedState);
      expect(redirect.searchParams.get('code')).toBeNull();
      await context.close();
    });

    it('the consent form is refused without its CSRF token, and sign-in never returns off-site', async () => {
      const response = await fetch(`${origin}/dashboard/oauth/consent`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'decision=approve',
      });
      expect(response.status).toBe(401);
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${origin}/dashboard/sign-in?next=${encodeURIComponent('//evil.example/x')}`);
      await submitSignIn(page, { email, password });
      await page.waitForLoadState();
      expect(new URL(page.url()).origin).toBe(origin);
      // Signed in now: a consent post without the token is refused by the CSRF check.
      const cookies = await context.cookies();
      const forged = await fetch(`${origin}/dashboard/oauth/consent`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; '),
        },
        body: 'decision=approve',
      });
      expect(forged.status).toBe(403);
      await context.close();
    });
  },
);
