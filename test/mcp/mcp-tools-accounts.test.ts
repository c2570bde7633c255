import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, TextContent } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandboxSource } from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, type Json, post, readJson, uniqueIdempotencyKey } from '../helpers/http.js';
import { connectHttp } from '../helpers/mcp.js';
import { expectProblem } from '../helpers/problems.js';

const MATCHED = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
const DORMANT = { ...MATCHED, identifier: 'GB999000047' };
/** A sandbox timeline: its first run records a change_detected event. */
const WINDING = { ...MATCHED, identifier: 'GB999000341' };

interface ToolCall {
  body: Json;
  replayed: unknown;
}

/** A tool call that must succeed; its JSON text content must be the structured result. */
async function callOk(client: Client, name: string, args: Json = {}): Promise<ToolCall> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  const json = (result.content as TextContent[])[1];
  expect(JSON.parse(json?.text ?? '')).toEqual(result.structuredContent);
  return {
    body: result.structuredContent,
    replayed: result._meta?.['firmwatch/idempotency_replayed'],
  };
}

/** A tool call that must fail as a tool error: the problem the REST operation answered. */
async function callError(client: Client, name: string, args: Json): Promise<Json> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBe(true);
  const problem = result._meta?.['firmwatch/problem'] as Json;
  expect((result.content as TextContent[])[0]?.text).toMatch(
    new RegExp(`^${problem.code} \\(${problem.status}\\): `),
  );
  return problem;
}

const bySource = (usage: Json) =>
  [...usage.by_source].sort((a: Json, b: Json) => a.source.localeCompare(b.source));

describe.each(DIALECTS)(
  'MCP tools: billing, usage, idempotency, scopes, workspaces [%s]',
  (dialect) => {
    let t: TestApp;
    const clients: Client[] = [];

    beforeAll(async () => {
      // Live answered by the sandbox fixtures: only a check a register answered costs a credit.
      t = await startTestApp({
        dialect,
        sources: { sandbox: sandboxSource(), live: sandboxSource() },
      });
    });
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((client) => client.close()));
    });
    afterAll(() => t?.close());

    /** An SDK client over Streamable HTTP that has listed the tools (so it checks outputSchema). */
    async function connect(apiKey: string): Promise<Client> {
      const client = await connectHttp(t.baseUrl, apiKey);
      clients.push(client);
      await client.listTools();
      return client;
    }

    /** A workspace with a sandbox and a live key (all scopes). */
    async function workspace() {
      const sandbox = await t.createKey({ environment: 'sandbox' });
      const live = await t.createKey({ environment: 'live', workspaceId: sandbox.workspace_id });
      return { id: sandbox.workspace_id, sandbox: sandbox.key, live: live.key };
    }

    async function rest(path: string, apiKey: string): Promise<Json> {
      const response = await get(t.baseUrl, path, apiKey);
      expect(response.status, path).toBe(200);
      return readJson(response);
    }

    async function usageEvents(workspaceId: string): Promise<number> {
      const rows = await t.database.db
        .selectFrom('usage_events')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .execute();
      return rows.length;
    }

    async function idempotencyRecords(workspaceId: string): Promise<number> {
      const rows = await t.database.db
        .selectFrom('idempotency_records')
        .select('idempotency_key')
        .where('workspace_id', '=', workspaceId)
        .execute();
      return rows.length;
    }

    describe('live keys', () => {
      it('a live check needs paid access and credits; REST and MCP share one balance', async () => {
        const ws = await workspace();
        const mcp = await connect(ws.live);

        // No paid access: the tool error carries the code of the REST 402.
        const unpaid = await callError(mcp, 'check_identifier', MATCHED);
        expect(unpaid).toMatchObject({ code: 'paid_access_required', status: 402 });
        await expectProblem(await post(t.baseUrl, '/checks', MATCHED, ws.live), 402, unpaid.code);
        expect(await usageEvents(ws.id)).toBe(0);

        // Two credits: one REST check and one MCP check spend them, whichever channel comes third
        // finds none.
        await t.fundWorkspace(ws.id, 2);
        const viaRest = await post(t.baseUrl, '/checks', MATCHED, ws.live);
        expect(viaRest.status).toBe(201);
        expect(await readJson(viaRest)).toMatchObject({ source: 'api', credits_used: 1 });
        const viaMcp = await callOk(mcp, 'check_identifier', DORMANT);
        expect(viaMcp.body).toMatchObject({ source: 'mcp', credits_used: 1 });
        const broke = await callError(mcp, 'check_identifier', MATCHED);
        expect(broke).toMatchObject({ code: 'insufficient_credits', status: 402 });
        await expectProblem(await post(t.baseUrl, '/checks', MATCHED, ws.live), 402, broke.code);

        // Usage tells the channels apart: one billable operation each.
        const usage = await rest('/usage', ws.live);
        expect(usage.totals).toEqual({ requests: 2, billable_units: 2 });
        expect(bySource(usage)).toEqual([
          { source: 'api', requests: 1, billable_units: 1 },
          { source: 'mcp', requests: 1, billable_units: 1 },
        ]);
        expect((await callOk(mcp, 'get_usage')).body).toEqual(usage);
        // The sandbox environment of the same workspace saw nothing.
        expect((await rest('/usage', ws.sandbox)).by_source).toEqual([]);
      });
    });

    describe('source channel', () => {
      it('checks, monitor baselines and runs made by tools are source mcp, in checks and usage', async () => {
        const ws = await workspace();
        const mcp = await connect(ws.sandbox);
        const viaRest = await readJson(await post(t.baseUrl, '/checks', MATCHED, ws.sandbox));
        expect(viaRest.source).toBe('api');
        const check = (await callOk(mcp, 'check_identifier', MATCHED)).body;
        expect(check.source).toBe('mcp');
        const created = (await callOk(mcp, 'create_monitor', WINDING)).body;
        expect(created.baseline_check.source).toBe('mcp');
        const baseline = await rest(`/checks/${created.monitor.baseline_check_id}`, ws.sandbox);
        expect(baseline).toMatchObject({ id: created.baseline_check.id, source: 'mcp' });
        const ran = (await callOk(mcp, 'run_monitor', { monitor_id: created.monitor.id })).body;
        expect(ran.check.source).toBe('mcp');

        const listed = await rest('/checks?limit=10', ws.sandbox);
        expect(Object.fromEntries(listed.data.map((c: Json) => [c.id, c.source]))).toEqual({
          [viaRest.id]: 'api',
          [check.id]: 'mcp',
          [created.baseline_check.id]: 'mcp',
          [ran.check.id]: 'mcp',
        });

        const usage = await rest('/usage', ws.sandbox);
        expect(bySource(usage)).toEqual([
          { source: 'api', requests: 1, billable_units: 0 },
          { source: 'mcp', requests: 3, billable_units: 0 },
        ]);
        expect(
          usage.by_operation
            .filter((row: Json) => row.source === 'mcp')
            .map((row: Json) => [row.operation, row.requests])
            .sort(),
        ).toEqual([
          ['checks.create', 1],
          ['monitors.baseline', 1],
          ['monitors.run', 1],
        ]);
        expect((await callOk(mcp, 'get_usage')).body).toEqual(usage);
      });
    });

    describe('idempotency_key', () => {
      it('the same key and arguments replay the first check; different arguments are refused', async () => {
        const ws = await workspace();
        const mcp = await connect(ws.sandbox);
        const idempotency_key = uniqueIdempotencyKey();
        const first = await callOk(mcp, 'check_identifier', { ...MATCHED, idempotency_key });
        expect(first.replayed).toBe(false);
        const again = await callOk(mcp, 'check_identifier', { ...MATCHED, idempotency_key });
        expect(again.replayed).toBe(true);
        expect(again.body).toEqual(first.body);
        expect(await usageEvents(ws.id)).toBe(1);
        expect((await callOk(mcp, 'get_usage')).body.totals.requests).toBe(1);

        const reused = await callError(mcp, 'check_identifier', { ...DORMANT, idempotency_key });
        expect(reused).toMatchObject({ code: 'idempotency_key_reused', status: 409 });
        expect(await usageEvents(ws.id)).toBe(1);
      });

      it('without a key, every call is a new check', async () => {
        const ws = await workspace();
        const mcp = await connect(ws.sandbox);
        const first = await callOk(mcp, 'check_identifier', MATCHED);
        const second = await callOk(mcp, 'check_identifier', MATCHED);
        // Nothing was kept to replay, so neither says whether it was replayed.
        expect([first.replayed, second.replayed]).toEqual([undefined, undefined]);
        expect(await idempotencyRecords(ws.id)).toBe(0);
        expect(second.body.id).not.toBe(first.body.id);
        expect(await usageEvents(ws.id)).toBe(2);
        expect((await rest('/checks', ws.sandbox)).data).toHaveLength(2);
      });
    });

    describe('scopes', () => {
      it('a checks:read key lists every tool and reads checks; a write or usage is the 403 challenge', async () => {
        const ws = await workspace();
        const check = await readJson(await post(t.baseUrl, '/checks', MATCHED, ws.sandbox));
        const reader = await t.createKey({ workspaceId: ws.id, scopes: ['checks:read'] });
        const mcp = await connectHttp(t.baseUrl, reader.key);
        clients.push(mcp);
        expect((await mcp.listTools()).tools).toHaveLength(16);

        expect((await callOk(mcp, 'get_check', { check_id: check.id })).body).toEqual(check);
        expect((await callOk(mcp, 'list_checks')).body.data.map((c: Json) => c.id)).toEqual([
          check.id,
        ]);
        for (const [name, args] of [
          ['check_identifier', MATCHED],
          ['create_monitor', WINDING],
          ['get_usage', {}],
        ] as const) {
          // Refused at the HTTP level with the step-up challenge, which the SDK client reports.
          await expect(mcp.callTool({ name, arguments: args }), name).rejects.toMatchObject({
            code: 403,
            message: expect.stringContaining('"code":"insufficient_scope"'),
          });
        }
        // Nothing was made.
        expect((await rest('/checks', ws.sandbox)).data).toHaveLength(1);
        expect((await rest('/monitors', ws.sandbox)).data).toHaveLength(0);
      });
    });

    describe("another workspace's ids", () => {
      it('are not_found for every tool that takes an id, and change nothing', async () => {
        const a = await workspace();
        const mcpA = await connect(a.sandbox);
        const check = (await callOk(mcpA, 'check_identifier', MATCHED)).body;
        const monitor = (await callOk(mcpA, 'create_monitor', WINDING)).body.monitor;
        const eventId = (await callOk(mcpA, 'run_monitor', { monitor_id: monitor.id })).body
          .event_id;
        expect(eventId).toMatch(/^evt_/);
        const before = await rest(`/monitors/${monitor.id}`, a.sandbox);

        const b = await workspace();
        const mcpB = await connect(b.sandbox);
        // The same workspace's live key is another environment: it does not see sandbox ids either.
        const mcpALive = await connect(a.live);
        for (const client of [mcpB, mcpALive]) {
          for (const [name, args] of [
            ['get_check', { check_id: check.id }],
            ['get_company', { company_id: check.company.id }],
            ['get_monitor', { monitor_id: monitor.id }],
            ['get_monitoring_event', { event_id: eventId }],
            ['update_monitor', { monitor_id: monitor.id, status: 'paused' }],
            ['run_monitor', { monitor_id: monitor.id }],
            ['archive_monitor', { monitor_id: monitor.id }],
          ] as const) {
            const problem = await callError(client, name, args);
            expect(problem, name).toMatchObject({ code: 'not_found', status: 404 });
          }
          const events = await callOk(client, 'list_monitoring_events', { monitor_id: monitor.id });
          expect(events.body.data).toEqual([]);
        }
        expect(await rest(`/monitors/${monitor.id}`, a.sandbox)).toEqual(before);
      });
    });
  },
);
