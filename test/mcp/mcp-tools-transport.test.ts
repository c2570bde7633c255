import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/modules/accounts/scopes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, type Json, readJson } from '../helpers/http.js';
import { connectHttp, mcpUrl } from '../helpers/mcp.js';
import { expectProblem } from '../helpers/problems.js';

const MATCHED = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
// The Streamable HTTP transport wants clients to accept both.
const ACCEPT = 'application/json, text/event-stream';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'firmwatch-tests', version: '1.0.0' },
  },
};
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const callMessage = (name: string, args: Json) => ({
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** One POST /mcp as a client without the SDK would send it. */
function postMcp(baseUrl: string, message: unknown, apiKey?: string): Promise<Response> {
  return fetch(mcpUrl(baseUrl), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    },
    body: JSON.stringify(message),
  });
}

describe.each(DIALECTS)(
  'MCP over Streamable HTTP: transport and authentication [%s]',
  (dialect) => {
    let t: TestApp;
    let key: string;
    let origin: string;

    beforeAll(async () => {
      t = await startTestApp({ dialect });
      key = (await t.createKey()).key;
      origin = new URL(t.baseUrl).origin;
    });
    afterAll(() => t?.close());

    it('answers one JSON-RPC message per POST, as JSON, with no session', async () => {
      const response = await postMcp(t.baseUrl, INITIALIZE, key);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      const body = await readJson(response);
      expect(body).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        result: { serverInfo: { name: 'firmwatch' } },
      });
      expect(body.result.instructions).toMatch(/four separate findings/);
      // Stateless: a tools/list needs no initialize before it.
      const listed = await readJson(await postMcp(t.baseUrl, LIST, key));
      expect(listed.result.tools).toHaveLength(16);
    });

    it('without a key: a 401 problem whose challenge names the resource metadata', async () => {
      const response = await postMcp(t.baseUrl, LIST);
      const challenge = response.headers.get('www-authenticate') ?? '';
      await expectProblem(response, 401, 'authentication_required');
      expect(challenge).toMatch(/^Bearer /);
      const metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
      expect(challenge).toContain(`resource_metadata="${metadataUrl}"`);
      expect((await fetch(metadataUrl)).status).toBe(200);
      // The SDK client gets the 401 as an error at connect.
      await expect(connectHttp(t.baseUrl)).rejects.toThrow(/authentication_required/);
    });

    it('a malformed or unknown key: 401 invalid_api_key, with the same challenge', async () => {
      for (const bad of ['not-a-key', `svc_test_${'a'.repeat(32)}`]) {
        const response = await postMcp(t.baseUrl, LIST, bad);
        const challenge = response.headers.get('www-authenticate') ?? '';
        await expectProblem(response, 401, 'invalid_api_key');
        expect(challenge).toContain(
          `resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
        );
      }
      await expect(connectHttp(t.baseUrl, `svc_test_${'b'.repeat(32)}`)).rejects.toThrow(
        /invalid_api_key/,
      );
    });

    /** The parameters of a Bearer challenge (RFC 6750 section 3), by name. */
    function challengeOf(response: Response): Record<string, string> {
      const header = response.headers.get('www-authenticate') ?? '';
      expect(header).toMatch(/^Bearer /);
      return Object.fromEntries(
        [...header.matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1] as string, m[2] as string]),
      );
    }

    it('the 401 challenge names the scopes the tools need, for a client to ask for', async () => {
      for (const bad of [undefined, 'not-a-key', `svc_test_${'c'.repeat(32)}`]) {
        const challenge = challengeOf(await postMcp(t.baseUrl, LIST, bad));
        expect(challenge.scope?.split(' ').sort(), String(bad)).toEqual([...ALL_SCOPES].sort());
        expect(challenge.resource_metadata).toBe(
          `${origin}/.well-known/oauth-protected-resource/mcp`,
        );
      }
    });

    it('a tool call the key has no scope for is the 403 step-up challenge; nothing runs', async () => {
      const reader = await t.createKey({ scopes: ['checks:read'] });
      // Listing and a call within the key's scopes work.
      const listed = await postMcp(t.baseUrl, LIST, reader.key);
      expect((await readJson(listed)).result.tools).toHaveLength(16);
      const allowed = await postMcp(t.baseUrl, callMessage('list_checks', {}), reader.key);
      expect((await readJson(allowed)).result.isError).toBeFalsy();

      for (const [name, args, scope] of [
        ['check_identifier', MATCHED, 'checks:write'],
        ['create_monitor', MATCHED, 'monitors:write'],
        ['get_usage', {}, 'usage:read'],
      ] as const) {
        const refused = await postMcp(t.baseUrl, callMessage(name, args), reader.key);
        const challenge = challengeOf(refused);
        const problem = await expectProblem(refused, 403, 'insufficient_scope');
        expect(challenge, name).toEqual({
          realm: 'firmwatch',
          error: 'insufficient_scope',
          scope,
          resource_metadata: `${origin}/.well-known/oauth-protected-resource/mcp`,
        });
        expect(problem.detail, name).toContain(scope);
      }
      expect((await readJson(await get(t.baseUrl, '/checks', reader.key))).data).toEqual([]);
      // The SDK client reports the 403 (a client with OAuth would re-authorize for the scope).
      const client = await connectHttp(t.baseUrl, reader.key);
      await expect(client.callTool({ name: 'get_usage', arguments: {} })).rejects.toMatchObject({
        code: 403,
        message: expect.stringContaining('"code":"insufficient_scope"'),
      });
      await client.close();
    });

    it('GET and DELETE /mcp are 405 with Allow: POST (no server-to-client stream, no sessions)', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(mcpUrl(t.baseUrl), {
          method,
          headers: { authorization: `Bearer ${key}`, accept: ACCEPT },
        });
        expect(response.headers.get('allow')).toBe('POST');
        await expectProblem(response, 405, 'method_not_allowed');
      }
    });

    it('a JSON-RPC batch is a 400 problem and runs none of its messages', async () => {
      const response = await postMcp(
        t.baseUrl,
        [callMessage('check_identifier', MATCHED), LIST],
        key,
      );
      const problem = await expectProblem(response, 400, 'bad_request');
      expect(problem.detail).toMatch(/one JSON-RPC message per request/);
      expect((await readJson(await get(t.baseUrl, '/checks', key))).data).toEqual([]);
    });

    it('serves RFC 9728 protected-resource metadata for /mcp', async () => {
      for (const path of [
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/oauth-protected-resource',
      ]) {
        const response = await fetch(`${origin}${path}`);
        expect(response.status, path).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        const metadata = await readJson(response);
        expect(metadata.resource).toBe(`${origin}/mcp`);
        expect(metadata.resource.endsWith('/mcp')).toBe(true);
        expect(metadata.bearer_methods_supported).toEqual(['header']);
        expect([...metadata.scopes_supported].sort()).toEqual([...ALL_SCOPES].sort());
      }
    });
  },
);

describe.each(DIALECTS)('MCP over Streamable HTTP: rate limit [%s]', (dialect) => {
  const CAPACITY = 6;
  let t: TestApp;
  let client: Client | undefined;

  beforeAll(async () => {
    // A refill so slow that no token comes back during the test.
    t = await startTestApp({
      dialect,
      rateLimits: { perKey: { capacity: CAPACITY, refillPerSecond: 0.0001 } },
    });
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  async function checkCount(workspaceId: string): Promise<number> {
    const rows = await t.database.db
      .selectFrom('checks')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .execute();
    return rows.length;
  }

  it('every POST /mcp takes one token of the key, and a tool call takes no second one', async () => {
    const { key, workspace_id } = await t.createKey();
    const other = await t.createKey();
    const remaining = (response: Response) => response.headers.get('ratelimit-remaining');

    // Three requests: initialize, tools/list and a tool call that runs POST /v1/checks.
    const initialized = await postMcp(t.baseUrl, INITIALIZE, key);
    expect(initialized.status).toBe(200);
    expect(initialized.headers.get('ratelimit-limit')).toBe(String(CAPACITY));
    expect(remaining(initialized)).toBe('5');
    const listed = await postMcp(t.baseUrl, LIST, key);
    expect(remaining(listed)).toBe('4');
    const called = await postMcp(t.baseUrl, callMessage('check_identifier', MATCHED), key);
    expect(called.status).toBe(200);
    expect(remaining(called)).toBe('3');
    const check = (await readJson(called)).result.structuredContent;
    expect(check.source).toBe('mcp');
    expect(Number(called.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);

    // The SDK client's connect is two POSTs (initialize, notifications/initialized); then one
    // tool call takes the last token.
    client = await connectHttp(t.baseUrl, key);
    const last = (await client.callTool({
      name: 'get_check',
      arguments: { check_id: check.id },
    })) as CallToolResult;
    expect(last.isError).toBeFalsy();

    // The next request, whatever it is, is a 429 at the HTTP level: the SDK client throws it,
    // and the tool never runs.
    await expect(client.callTool({ name: 'check_identifier', arguments: MATCHED })).rejects.toThrow(
      /rate_limited/,
    );
    expect(await checkCount(workspace_id)).toBe(1);
    const refused = await postMcp(t.baseUrl, LIST, key);
    expect(refused.headers.get('ratelimit-limit')).toBe(String(CAPACITY));
    expect(remaining(refused)).toBe('0');
    await expectProblem(refused, 429, 'rate_limited');
    // REST shares the key's bucket; another key has its own.
    await expectProblem(await get(t.baseUrl, '/checks', key), 429, 'rate_limited');
    expect((await postMcp(t.baseUrl, LIST, other.key)).status).toBe(200);
  });
});
