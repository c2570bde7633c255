import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/mcp/tools.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { connectStdio } from '../helpers/mcp.js';

// `firmwatch mcp` (the real CLI, run from source) bridging stdio to a test app's /mcp over HTTP.
// It opens no database, so SQLite behind the test app is enough.

const CHECK = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };

type Problem = { code: string; retryable?: boolean; detail?: string; errors?: unknown[] };
const problemOf = (result: CallToolResult) =>
  (result._meta as Record<string, Problem> | undefined)?.['firmwatch/problem'];

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A TCP relay to the test app that can be taken down and brought back on the same port. */
async function relayTo(port: number) {
  const sockets = new Set<Socket>();
  let server: Server;
  const listen = (at: number) =>
    new Promise<number>((resolve) => {
      server = createServer((socket) => {
        const upstream = tcpConnect(port, '127.0.0.1');
        for (const end of [socket, upstream]) {
          sockets.add(end);
          end.on('close', () => sockets.delete(end));
          end.on('error', () => {
            socket.destroy();
            upstream.destroy();
          });
        }
        socket.pipe(upstream).pipe(socket);
      });
      server.listen(at, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
  const relayPort = await listen(0);
  return {
    url: `http://127.0.0.1:${relayPort}/v1`,
    async down() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
    up: () => listen(relayPort),
  };
}

describe('firmwatch mcp (stdio bridge)', () => {
  let testApp: TestApp;
  let client: Client;
  let workspaceId: string;

  beforeAll(async () => {
    testApp = await startTestApp();
    const created = await testApp.createKey();
    workspaceId = created.workspace_id;
    const { key } = created;
    client = await connectStdio(testApp.baseUrl, key);
  });
  afterAll(async () => {
    await client?.close();
    await testApp?.close();
  });

  it('lists every tool of the service, with its schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS.map((spec) => spec.name));
    const check = tools.find((tool) => tool.name === 'check_identifier');
    expect(check?.inputSchema.required).toEqual(['identifier_type', 'identifier', 'country_code']);
    expect(check?.inputSchema.properties).toHaveProperty('idempotency_key');
    expect(check?.outputSchema?.properties).toHaveProperty('format_status');
  });

  it('runs check_identifier in the sandbox through the service, recorded with source mcp', async () => {
    const result = await call(client, 'check_identifier', CHECK);
    expect(result.isError).toBeFalsy();
    const check = result.structuredContent as Record<string, unknown>;
    expect(check).toMatchObject({
      source: 'mcp',
      format_status: 'valid',
      registry_match_status: 'matched',
      credits_used: 0,
    });
    // The four findings, one per line, in the text an agent reads.
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain('\nformat_status: valid\nregistry_match_status: matched\n');
    // The service stored it and counted it as an MCP operation.
    const stored = await testApp.database.db
      .selectFrom('checks')
      .select('body')
      .where('id', '=', check.id as string)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(stored.body)).toMatchObject({ id: check.id, source: 'mcp' });
    const usage = await testApp.database.db
      .selectFrom('usage_events')
      .select(['source', 'operation', 'billable_units'])
      .where('workspace_id', '=', workspaceId)
      .execute();
    expect(usage).toEqual([{ source: 'mcp', operation: 'checks.create', billable_units: 0 }]);
  });

  it('passes a tool error through: an invalid argument is validation_failed with its pointer', async () => {
    const result = await call(client, 'check_identifier', { ...CHECK, identifier_type: 'vat' });
    expect(result.isError).toBe(true);
    expect(problemOf(result)).toMatchObject({
      code: 'validation_failed',
      retryable: false,
      errors: [{ pointer: '/identifier_type', code: 'invalid_value' }],
    });
    expect((result.content[0] as { text: string }).text).toMatch(/^validation_failed \(422\): /);
  });

  it("passes the service's 403 scope challenge on as an insufficient_scope tool error", async () => {
    const reader = await testApp.createKey({ workspaceId, scopes: ['checks:read'] });
    const readerClient = await connectStdio(testApp.baseUrl, reader.key);
    try {
      const result = await call(readerClient, 'check_identifier', CHECK);
      expect(result.isError).toBe(true);
      expect(problemOf(result)).toMatchObject({ code: 'insufficient_scope', retryable: false });
      expect(problemOf(result)?.detail).toContain('checks:write');
    } finally {
      await readerClient.close();
    }
  });

  it('without FIRMWATCH_API_KEY exits 1, says so on stderr and writes nothing to stdout', async () => {
    const result = await runCli(['mcp'], { FIRMWATCH_URL: testApp.baseUrl });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^firmwatch mcp: Set FIRMWATCH_API_KEY to an API key/);
  });

  it('with a key the service refuses exits 1, naming the endpoint and the failure', async () => {
    const result = await runCli(['mcp'], {
      FIRMWATCH_URL: testApp.baseUrl,
      FIRMWATCH_API_KEY: `svc_test_${'x'.repeat(32)}`,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `Could not connect to ${testApp.baseUrl.replace('/v1', '/mcp')}`,
    );
    expect(result.stderr).toContain('invalid_api_key');
  });

  it('with a service that cannot be reached exits 1 on stderr', async () => {
    const relay = await relayTo(1);
    await relay.down();
    const { key } = await testApp.createKey();
    const result = await runCli(['mcp'], { FIRMWATCH_URL: relay.url, FIRMWATCH_API_KEY: key });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^firmwatch mcp: Could not connect to http:\/\/127\.0\.0\.1:/);
  });
});

describe('firmwatch mcp when the service goes away mid-session', () => {
  it('a tool call is a retryable service_unavailable tool error', async () => {
    const testApp = await startTestApp();
    const { key } = await testApp.createKey();
    const client = await connectStdio(testApp.baseUrl, key);
    try {
      expect((await call(client, 'list_checks', {})).isError).toBeFalsy();
      await testApp.close();
      const result = await call(client, 'list_checks', {});
      expect(result.isError).toBe(true);
      expect(problemOf(result)).toMatchObject({ code: 'service_unavailable', retryable: true });
      expect(problemOf(result)?.detail).toContain(testApp.baseUrl.replace('/v1', '/mcp'));
    } finally {
      await client.close();
    }
  });

  it('the bridge keeps running, and calls succeed again once the service is back', async () => {
    const testApp = await startTestApp();
    const relay = await relayTo(Number(new URL(testApp.baseUrl).port));
    const { key } = await testApp.createKey();
    const client = await connectStdio(relay.url, key);
    try {
      await relay.down();
      const failed = await call(client, 'check_identifier', CHECK);
      expect(problemOf(failed)?.code).toBe('service_unavailable');
      await relay.up();
      // A connection the outage broke can still fail the first call after it (it is not retried:
      // the call may bill); within a few calls the bridge is through again.
      let result = await call(client, 'check_identifier', CHECK);
      for (let attempt = 1; result.isError && attempt < 3; attempt++) {
        expect(problemOf(result)?.code).toBe('service_unavailable');
        await new Promise((resolve) => setTimeout(resolve, 100));
        result = await call(client, 'check_identifier', CHECK);
      }
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ source: 'mcp' });
    } finally {
      await client.close();
      await relay.down();
      await testApp.close();
    }
  });
});

describe('firmwatch mcp passing on the service answers that are not MCP', () => {
  it("a 429 is a tool error with the service's own rate_limited Problem", async () => {
    // initialize, notifications/initialized, tools/list (the client's schema cache) and one call.
    const testApp = await startTestApp({
      rateLimits: { perKey: { capacity: 4, refillPerSecond: 0.001 } },
    });
    const { key } = await testApp.createKey();
    const client = await connectStdio(testApp.baseUrl, key);
    try {
      await client.listTools();
      expect((await call(client, 'list_checks', {})).isError).toBeFalsy();
      const limited = await call(client, 'list_checks', {});
      expect(limited.isError).toBe(true);
      expect(problemOf(limited)).toMatchObject({ code: 'rate_limited', retryable: true });
    } finally {
      await client.close();
      await testApp.close();
    }
  });
});
