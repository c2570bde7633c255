import { get as httpGet } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, TextContent, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hintsOf } from '../../src/mcp/mcp-server.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, type Json, readJson, uniqueIdempotencyKey } from '../helpers/http.js';
import { connectHttp } from '../helpers/mcp.js';
import { type OpenApiValidator, responseSchema, servedOpenApi } from '../helpers/openapi.js';

const MATCHED = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
/** A sandbox timeline: its first run turns `active` into `liquidation`, which records an event. */
const WINDING = { identifier_type: 'vat_number', identifier: 'GB999000341', country_code: 'GB' };

/** Each tool's REST operation in the served OpenAPI document: path, method, success status. */
const OPERATIONS: Record<string, [string, string, number]> = {
  check_identifier: ['/checks', 'post', 201],
  get_check: ['/checks/{check_id}', 'get', 200],
  list_checks: ['/checks', 'get', 200],
  search_companies: ['/companies/search', 'post', 200],
  get_company: ['/companies/{company_id}', 'get', 200],
  list_countries: ['/countries', 'get', 200],
  get_country: ['/countries/{country_code}', 'get', 200],
  create_monitor: ['/monitors', 'post', 201],
  list_monitors: ['/monitors', 'get', 200],
  get_monitor: ['/monitors/{monitor_id}', 'get', 200],
  update_monitor: ['/monitors/{monitor_id}', 'patch', 200],
  run_monitor: ['/monitors/{monitor_id}/run', 'post', 200],
  archive_monitor: ['/monitors/{monitor_id}', 'delete', 200],
  list_monitoring_events: ['/monitoring-events', 'get', 200],
  get_monitoring_event: ['/monitoring-events/{event_id}', 'get', 200],
  get_usage: ['/usage', 'get', 200],
};
const TOOL_NAMES = Object.keys(OPERATIONS).sort();
const BILLED = ['check_identifier', 'search_companies', 'create_monitor', 'run_monitor'];
const WRITES = [...BILLED, 'update_monitor', 'archive_monitor'];
const FINDINGS = [
  'format_status',
  'registry_match_status',
  'tax_authority_status',
  'company_legal_status',
];
// A Node stack frame or a source path in an error the agent reads.
const STACK_TRACE = /\n\s+at |node_modules|\.[jt]s:\d+/;

interface ToolCall {
  result: CallToolResult;
  body: Json;
  summary: string;
}

/** A tool call that must succeed; its JSON text content must be the structured result. */
async function callOk(client: Client, name: string, args: Json = {}): Promise<ToolCall> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  const [summary, json] = result.content as TextContent[];
  expect(JSON.parse(json?.text ?? '')).toEqual(result.structuredContent);
  return { result, body: result.structuredContent, summary: summary?.text ?? '' };
}

/** A tool call that must fail as a tool error carrying the operation's problem. */
async function callError(client: Client, name: string, args: Json): Promise<Json> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const problem = result._meta?.['firmwatch/problem'] as Json;
  const [text, json] = result.content as TextContent[];
  expect(text?.text.startsWith(`${problem.code} (${problem.status}): ${problem.detail}`)).toBe(
    true,
  );
  expect(JSON.parse(json?.text ?? '')).toEqual(problem);
  expect(problem.code).toMatch(/^[a-z_]+$/);
  expect(JSON.stringify(result)).not.toMatch(STACK_TRACE);
  return problem;
}

/** Every property of an input schema, however deep (objects, array items, alternatives). */
function inputProperties(schema: unknown, at = ''): Array<[string, Json]> {
  if (!schema || typeof schema !== 'object') return [];
  const node = schema as Json;
  const found: Array<[string, Json]> = [];
  for (const [name, property] of Object.entries((node.properties ?? {}) as Record<string, Json>)) {
    found.push([`${at}/${name}`, property], ...inputProperties(property, `${at}/${name}`));
  }
  for (const branch of [node.items, node.additionalProperties, ...(node.anyOf ?? [])]) {
    found.push(...inputProperties(branch, `${at}/*`));
  }
  return found;
}

describe.each(DIALECTS)('MCP tools over Streamable HTTP, sandbox [%s]', (dialect) => {
  let t: TestApp;
  let key: string;
  let client: Client;
  let tools: Tool[];
  let openapi: OpenApiValidator;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    key = (await t.createKey()).key;
    client = await connectHttp(t.baseUrl, key);
    // Listing first also makes the SDK client check every structured result against the tool's
    // own outputSchema.
    tools = (await client.listTools()).tools;
    openapi = await servedOpenApi(t.baseUrl);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  /** A GET sent as written: fetch would resolve the dot segments before sending. */
  function rawGet(path: string): Promise<{ status: number; body: string }> {
    const { port } = new URL(t.baseUrl);
    return new Promise((resolve, reject) => {
      const request = httpGet(
        { host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${key}` } },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            body += chunk;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      request.on('error', reject);
    });
  }

  const tool = (name: string) => tools.find((entry) => entry.name === name) as Tool;

  describe('tools/list', () => {
    it('lists the 16 tools, each with object input and output schemas', () => {
      expect(tools.map((entry) => entry.name).sort()).toEqual(TOOL_NAMES);
      for (const entry of tools) {
        expect(entry.inputSchema.type, entry.name).toBe('object');
        expect(entry.outputSchema?.type, entry.name).toBe('object');
        expect(entry.title, entry.name).toBeTruthy();
        expect(entry.inputSchema.additionalProperties, entry.name).toBe(false);
        // Writes take an optional idempotency_key; reads do not.
        expect(
          Object.hasOwn(entry.inputSchema.properties ?? {}, 'idempotency_key'),
          entry.name,
        ).toBe(WRITES.includes(entry.name));
        expect(entry.inputSchema.required ?? [], entry.name).not.toContain('idempotency_key');
      }
      for (const [name, id] of [
        ['get_check', 'check_id'],
        ['get_company', 'company_id'],
        ['get_country', 'country_code'],
        ['get_monitor', 'monitor_id'],
        ['update_monitor', 'monitor_id'],
        ['run_monitor', 'monitor_id'],
        ['archive_monitor', 'monitor_id'],
        ['get_monitoring_event', 'event_id'],
      ] as const) {
        expect(tool(name).inputSchema.required, name).toContain(id);
      }
      expect(tool('check_identifier').inputSchema.required?.sort()).toEqual(
        ['country_code', 'identifier', 'identifier_type'].sort(),
      );
    });

    it("fits an agent's context: under 27,000 bytes, every argument described, no $ref", async () => {
      const listed = await client.listTools();
      // 25,000 until the list filters of issue 29 (25,969 bytes with them; docs/decisions.md).
      expect(Buffer.byteLength(JSON.stringify(listed))).toBeLessThan(27_000);
      for (const entry of listed.tools) {
        // Some agents do not resolve references in an input schema: each one stands alone.
        expect(JSON.stringify(entry.inputSchema), entry.name).not.toContain('$ref');
        const properties = inputProperties(entry.inputSchema);
        for (const [path, property] of properties) {
          expect(String(property.description ?? '').trim(), `${entry.name} ${path}`).not.toBe('');
        }
      }
      // The walk reaches nested properties too (a body's array of objects, say).
      expect(inputProperties(tool('check_identifier').inputSchema).map(([path]) => path)).toEqual(
        expect.arrayContaining(['/identifier', '/metadata', '/idempotency_key']),
      );
    });

    it('annotates reads as read-only, writes as not, and only archive_monitor as destructive', () => {
      for (const entry of tools) {
        const read = /^(get|list)_/.test(entry.name);
        // As a client reads them: an absent hint has MCP's default (a write is destructive).
        const hints = hintsOf(entry);
        expect(hints.readOnly, entry.name).toBe(read);
        expect(hints.destructive, entry.name).toBe(entry.name === 'archive_monitor');
        expect(hints.idempotent, entry.name).toBe(
          read || ['update_monitor', 'archive_monitor'].includes(entry.name),
        );
        expect(hints.openWorld, entry.name).toBe(true);
      }
    });

    it('descriptions state the billing, and the check tools state the four-findings rule', () => {
      for (const entry of tools) {
        if (BILLED.includes(entry.name)) {
          expect(entry.description, entry.name).toMatch(/Billing: .*one credit with a live key/);
          expect(entry.description, entry.name).toMatch(/free in the sandbox/);
        } else {
          expect(entry.description, entry.name).toMatch(/ Free\.$/);
        }
      }
      for (const name of ['check_identifier', 'get_check']) {
        const description = tool(name).description ?? '';
        for (const finding of FINDINGS) expect(description, name).toContain(finding);
        expect(description, name).toMatch(/never merge them into one verdict/);
        expect(description, name).toMatch(/No tax authority is ever called/);
      }
    });

    it('each tool runs the operation that the served OpenAPI document has at its path', () => {
      for (const spec of TOOLS) {
        const [path, method] = OPERATIONS[spec.name] as [string, string, number];
        expect(openapi.doc.paths[path]?.[method]?.operationId, spec.name).toBe(spec.operationId);
      }
    });
  });

  it('every tool runs in the sandbox; each result validates against its REST response schema', async () => {
    const called = new Set<string>();
    async function run(name: string, args: Json = {}): Promise<ToolCall> {
      const call = await callOk(client, name, args);
      const [path, method, status] = OPERATIONS[name] as [string, string, number];
      openapi.expectValid(responseSchema(path, method, status), call.body);
      called.add(name);
      return call;
    }
    async function rest(path: string): Promise<Json> {
      const response = await get(t.baseUrl, path, key);
      expect(response.status).toBe(200);
      return readJson(response);
    }

    // Checks, and the company a check matched.
    const checked = await run('check_identifier', MATCHED);
    const check = checked.body;
    expect(check).toMatchObject({
      source: 'mcp',
      credits_used: 0,
      registry_match_status: 'matched',
    });
    for (const finding of FINDINGS) {
      expect(checked.summary).toContain(`${finding}: ${check[finding]}`);
    }
    // The agent gets the same warning as a REST caller: a live check of a GB VAT number would
    // give the format finding only (issue 24).
    expect(check.warnings).toEqual([
      {
        dimension: 'registry_match',
        code: 'live_coverage_differs',
        message: expect.stringMatching(
          /^A live check \(svc_live_ key\) of a GB vat_number gives the format finding only/,
        ),
        retryable: false,
      },
    ]);
    expect(checked.summary).toContain('not one verdict');
    // Called without an idempotency_key: nothing is kept to replay, so no replay flag.
    expect(checked.result._meta?.['firmwatch/idempotency_replayed']).toBeUndefined();
    const fetched = await run('get_check', { check_id: check.id });
    expect(fetched.body).toEqual(check);
    expect(fetched.body).toEqual(await rest(`/checks/${check.id}`));
    // A read is not an idempotent operation: no replay flag.
    expect(fetched.result._meta?.['firmwatch/idempotency_replayed']).toBeUndefined();
    const checks = await run('list_checks', { limit: 5 });
    expect(checks.body.data.map((c: Json) => c.id)).toEqual([check.id]);
    const company = await run('get_company', { company_id: check.company.id });
    expect(company.body).toEqual(await rest(`/companies/${check.company.id}`));
    expect(company.summary).toContain(company.body.legal_name);

    // Company search, and a company found by it.
    const found = await run('search_companies', { country_code: 'GB', name: 'Sandbox Dormant' });
    expect(found.body.credits_used).toBe(0);
    expect(found.body.data.map((c: Json) => c.legal_name)).toEqual([
      'Sandbox Dormant Holdings Ltd',
    ]);
    const searched = await run('get_company', { company_id: found.body.data[0].id });
    expect(searched.body).toMatchObject({ legal_name: 'Sandbox Dormant Holdings Ltd' });

    // Countries.
    const countries = await run('list_countries', { query: 'united' });
    expect(countries.body.data.map((c: Json) => c.country_code).sort()).toEqual(['GB', 'US']);
    const gb = await run('get_country', { country_code: 'GB' });
    expect(gb.body).toEqual(await rest('/countries/GB'));

    // A monitor's whole life: create, read, list, run (an event), events, update, archive.
    const created = await run('create_monitor', { ...WINDING, cadence: 'weekly' });
    const monitor = created.body.monitor;
    expect(monitor).toMatchObject({ status: 'active', cadence: 'weekly' });
    expect(created.body.baseline_check).toMatchObject({
      source: 'mcp',
      company_legal_status: 'active',
    });
    expect((await run('get_monitor', { monitor_id: monitor.id })).body).toEqual(
      await rest(`/monitors/${monitor.id}`),
    );
    const monitors = await run('list_monitors', {});
    expect(monitors.body.data.map((m: Json) => m.id)).toEqual([monitor.id]);
    const ran = await run('run_monitor', { monitor_id: monitor.id });
    expect(ran.body.check).toMatchObject({ source: 'mcp', company_legal_status: 'liquidation' });
    expect(ran.body.event_id).toMatch(/^evt_/);
    const events = await run('list_monitoring_events', { monitor_id: monitor.id });
    expect(events.body.data.map((e: Json) => e.id)).toEqual([ran.body.event_id]);
    const event = await run('get_monitoring_event', { event_id: ran.body.event_id });
    expect(event.body).toMatchObject({
      type: 'vat.monitor.change_detected',
      monitor_id: monitor.id,
    });
    const updated = await run('update_monitor', { monitor_id: monitor.id, cadence: 'monthly' });
    expect(updated.body.monitor).toMatchObject({ id: monitor.id, cadence: 'monthly' });
    const archived = await run('archive_monitor', { monitor_id: monitor.id });
    expect(archived.summary).toBe('The monitor is archived.');

    const usage = await run('get_usage');
    expect(usage.body).toEqual(await rest('/usage'));

    expect([...called].sort()).toEqual(TOOL_NAMES);
  });

  describe('invalid arguments are tool errors with the REST problem', () => {
    let monitorId: string;
    beforeAll(async () => {
      monitorId = (await callOk(client, 'create_monitor', MATCHED)).body.monitor.id;
    });

    // [tool, arguments, code, the pointer of errors[] when it is a validation failure]
    const cases: Array<[string, Json, string, string?]> = [
      [
        'check_identifier',
        { ...MATCHED, identifier_type: 'vat' },
        'validation_failed',
        '/identifier_type',
      ],
      ['check_identifier', { ...MATCHED, colour: 'red' }, 'validation_failed', '/colour'],
      [
        'check_identifier',
        { identifier_type: 'vat_number', country_code: 'GB' },
        'validation_failed',
        '/identifier',
      ],
      ['check_identifier', { ...MATCHED, idempotency_key: 'short' }, 'idempotency_key_invalid'],
      ['list_checks', { limit: 0 }, 'validation_failed', '/limit'],
      ['list_checks', { limit: 'many' }, 'validation_failed', '/limit'],
      ['list_checks', { cursor: 'not-a-cursor' }, 'invalid_cursor'],
      [
        'search_companies',
        { country_code: 'GB', name: 'Sandbox Upstream Failure' },
        'upstream_unavailable',
      ],
      ['search_companies', { country_code: 'GB', nickname: 'x' }, 'validation_failed', '/nickname'],
      ['list_countries', { region: 'EU' }, 'validation_failed', '/region'],
      ['get_country', { country_code: 'ZZ' }, 'not_found'],
      ['create_monitor', { ...MATCHED, cadence: 'hourly' }, 'validation_failed', '/cadence'],
      [
        'create_monitor',
        { ...MATCHED, webhook_url: 'http://example.com/hook' },
        'validation_failed',
        '/webhook_url',
      ],
      ['list_monitors', { limit: 101 }, 'validation_failed', '/limit'],
      ['list_monitoring_events', { monitor_id: 'mon_x' }, 'validation_failed', '/monitor_id'],
      ['get_usage', { month: '2026-11' }, 'validation_failed', '/month'],
      // Well-formed ids that name nothing, and ids that are not ids at all: not_found, as REST.
      ['get_check', { check_id: `chk_${'0'.repeat(26)}` }, 'not_found'],
      ['get_check', { check_id: 'not-a-check' }, 'not_found'],
      ['get_company', { company_id: 'cmp_nope' }, 'not_found'],
      ['get_monitor', { monitor_id: 'mon_nope' }, 'not_found'],
      ['run_monitor', { monitor_id: 'mon_nope' }, 'not_found'],
      ['archive_monitor', { monitor_id: 'mon_nope' }, 'not_found'],
      ['get_monitoring_event', { event_id: 'evt_nope' }, 'not_found'],
    ];
    it.each(cases)('%s %j → %s', async (name, args, code, pointer) => {
      const problem = await callError(client, name, args);
      expect(problem.code).toBe(code);
      if (pointer !== undefined) {
        expect(problem.status).toBe(422);
        expect(problem.errors.map((e: Json) => e.pointer)).toContain(pointer);
      }
    });

    it("speaks of the tool's arguments, never of HTTP query parameters, bodies or headers", async () => {
      const HTTP_TERMS = /query param|request body|path param|header|Idempotency-Key|Retry-After/i;
      const idempotency_key = uniqueIdempotencyKey();
      await callOk(client, 'check_identifier', { ...MATCHED, idempotency_key });
      // [tool, arguments, code, the argument the error must name]
      const refused: Array<[string, Json, string, string]> = [
        ['list_checks', { limit: 0 }, 'validation_failed', 'limit'],
        ['list_monitoring_events', { monitor_id: 'mon_x' }, 'validation_failed', 'monitor_id'],
        ['check_identifier', { ...MATCHED, colour: 'red' }, 'validation_failed', 'colour'],
        [
          'search_companies',
          { country_code: 'GB', nickname: 'x' },
          'validation_failed',
          'nickname',
        ],
        ['update_monitor', { monitor_id: monitorId, status: 'off' }, 'validation_failed', 'status'],
        [
          'check_identifier',
          { ...MATCHED, idempotency_key: 'short' },
          'idempotency_key_invalid',
          'idempotency_key',
        ],
        [
          'check_identifier',
          { ...MATCHED, identifier: 'GB999000047', idempotency_key },
          'idempotency_key_reused',
          'idempotency_key',
        ],
      ];
      for (const [name, args, code, argument] of refused) {
        const problem = await callError(client, name, args);
        expect(problem.code, name).toBe(code);
        expect(`${problem.title} ${problem.detail}`, `${name} ${code}`).not.toMatch(HTTP_TERMS);
        expect(problem.detail, `${name} ${code}`).toMatch(new RegExp(`\\b${argument}\\b`));
        if (code !== 'idempotency_key_reused') {
          expect(
            problem.errors.map((e: Json) => e.pointer),
            name,
          ).toContain(`/${argument}`);
        }
      }
    });

    it('update_monitor with a wrong enum names the argument', async () => {
      const problem = await callError(client, 'update_monitor', {
        monitor_id: monitorId,
        status: 'off',
      });
      expect(problem).toMatchObject({ code: 'validation_failed', status: 422 });
      expect(problem.errors.map((e: Json) => e.pointer)).toEqual(['/status']);
    });

    it('a missing or non-string path id is validation_failed naming that argument', async () => {
      for (const [name, id] of [
        ['get_check', 'check_id'],
        ['get_company', 'company_id'],
        ['get_country', 'country_code'],
        ['get_monitor', 'monitor_id'],
        ['update_monitor', 'monitor_id'],
        ['run_monitor', 'monitor_id'],
        ['archive_monitor', 'monitor_id'],
        ['get_monitoring_event', 'event_id'],
      ] as const) {
        for (const args of [{}, { [id]: '' }, { [id]: 42 }]) {
          const problem = await callError(client, name, args);
          expect(problem, name).toMatchObject({ code: 'validation_failed', status: 422 });
          expect(problem.errors, name).toEqual([
            { pointer: `/${id}`, code: 'required', message: 'is required' },
          ]);
        }
      }
    });

    it('an unknown tool is a JSON-RPC invalid-params error', async () => {
      await expect(client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toThrow(
        /-32602.*Unknown tool delete_everything/,
      );
    });

    it('over REST, "." and ".." in an id segment are ids that name nothing: 404', async () => {
      for (const id of ['.', '..']) {
        const response = await rawGet(`/v1/checks/${id}`);
        expect(response.status).toBe(404);
        expect(JSON.parse(response.body).code).toBe('not_found');
      }
    });

    // A URL would resolve them as dot segments (".." from a check to the API index), so the tool
    // refuses them before any operation runs, with the answer REST gives.
    it('a path id of "." or ".." is not_found, as over REST, and runs nothing', async () => {
      for (const id of ['.', '..']) {
        for (const [tool, name] of [
          ['get_check', 'check_id'],
          ['get_country', 'country_code'],
          ['archive_monitor', 'monitor_id'],
        ] as const) {
          const problem = await callError(client, tool, { [name]: id });
          expect(problem.code).toBe('not_found');
          expect(problem.request_id).toMatch(/^req_/);
        }
      }
    });
  });
});
