import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { type Json, post, readJson, send, uniqueIdempotencyKey } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

const NUL = '\u0000';
const SANDBOX_CHECK = {
  identifier_type: 'vat_number',
  identifier: 'GB999000005',
  country_code: 'GB',
};

/**
 * A valid body per operation that takes one, so that U+0000 in one field is the only thing wrong
 * with a request; an operation added to the OpenAPI document with a body needs an entry here.
 */
const VALID_BODIES: Record<string, Json> = {
  createCheck: SANDBOX_CHECK,
  searchCompanies: { country_code: 'GB', name: 'Sandbox Active' },
  createMonitor: SANDBOX_CHECK,
  updateMonitor: { cadence: 'weekly' },
  runMonitor: {},
};

/** Tables an operation writes to: none of them may change when a request is refused. */
const WRITTEN_TABLES: Array<keyof Database> = [
  'idempotency_records',
  'checks',
  'companies',
  'monitors',
  'monitor_events',
  'usage_events',
  'usage_totals',
  'credit_ledger',
  'snapshot_allowance_usage',
  'webhook_deliveries',
];

interface Operation {
  method: string;
  /** As in the OpenAPI document, `{param}` included. */
  path: string;
  operationId: string;
  pathParameters: string[];
  queryParameters: string[];
  idempotent: boolean;
  body: Json | undefined;
  bodySchema: Json | undefined;
}

function operationsOf(doc: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'head' || method === 'options') continue;
      const parameters = (operation.parameters ?? []) as Array<{ in: string; name: string }>;
      const named = (place: string) => parameters.filter((p) => p.in === place).map((p) => p.name);
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId,
        pathParameters: named('path'),
        queryParameters: named('query'),
        idempotent: named('header').includes('idempotency-key'),
        body: bodySchema ? VALID_BODIES[operation.operationId] : undefined,
        bodySchema,
      });
    }
  }
  return operations;
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Every place of a body schema where a client can put a string, as [pointer, body]: the valid
 * body with that one string containing U+0000. Walks properties, array items, string-valued maps
 * (a key and a value) and anyOf branches; one unknown property name is tried on every body.
 */
function nulBodies(schema: Json, base: Json): Array<[string, Json]> {
  const cases: Array<[string, Json]> = [];
  const planted = `x${NUL}y`;
  const slots = (node: Json): Array<[string, (value: string) => Json]> => {
    if (!node || typeof node !== 'object') return [];
    if (node.anyOf) return node.anyOf.flatMap(slots).slice(0, 1);
    if (node.type === 'array') {
      return slots(node.items).map(([at, make]) => [`/0${at}`, (v: string) => [make(v)]]);
    }
    if (node.type === 'object') {
      const own: Array<[string, (value: string) => Json]> = [];
      for (const [name, property] of Object.entries((node.properties ?? {}) as Json)) {
        for (const [at, make] of slots(property)) {
          own.push([`/${escapeToken(name)}${at}`, (v: string) => ({ [name]: make(v) })]);
        }
      }
      if (node.additionalProperties && typeof node.additionalProperties === 'object') {
        own.push(['/k', (v: string) => ({ k: v })]);
        own.push([`/k${NUL}`, () => ({ [`k${NUL}`]: 'v' })]);
      }
      return own;
    }
    // A string, or an enum of strings: either way a client can send text there.
    return [['', (v: string) => v]];
  };
  for (const [at, make] of slots(schema)) cases.push([at, { ...base, ...make(planted) }]);
  cases.push([`/extra${NUL}`, { ...base, [`extra${NUL}`]: 'v' }]);
  return cases;
}

describe.each(DIALECTS)('U+0000 in any string of any operation [%s]', (dialect) => {
  let t: TestApp;
  let key: string;
  let workspaceId: string;
  let operations: Operation[];
  /** Real resources of the workspace: a parameter is tried as a real id followed by U+0000. */
  const ids: Record<string, string> = { country_code: 'GB' };

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    const created = await t.createKey();
    key = created.key;
    workspaceId = created.workspace_id;
    operations = operationsOf(await readJson(await fetch(`${t.baseUrl}/openapi.json`)));
    const created_monitor = await readJson(await post(t.baseUrl, '/monitors', SANDBOX_CHECK, key));
    ids.monitor_id = created_monitor.monitor.id;
    ids.check_id = created_monitor.baseline_check.id;
    const search = await readJson(
      await post(t.baseUrl, '/companies/search', VALID_BODIES.searchCompanies, key),
    );
    ids.company_id = search.data[0].id;
    await send(t.baseUrl, 'PATCH', `/monitors/${ids.monitor_id}`, key, { status: 'paused' });
    const events = await readJson(
      await fetch(`${t.baseUrl}/monitoring-events`, {
        headers: { authorization: `Bearer ${key}` },
      }),
    );
    ids.event_id = events.data[0].id;
  });
  afterAll(() => t.close());

  /** What the workspace has stored: every row of the monitors, and how many rows elsewhere. */
  async function stored(): Promise<Json> {
    const counts: Record<string, number> = {};
    for (const table of WRITTEN_TABLES) {
      const row = await t.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirstOrThrow();
      counts[table] = Number(row.n);
    }
    const monitors = await t.database.db
      .selectFrom('monitors')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('id')
      .execute();
    return { counts, monitors };
  }

  function request(
    op: Operation,
    {
      path,
      query = '',
      body,
      idempotencyKey = uniqueIdempotencyKey(),
    }: { path?: string; query?: string; body?: Json; idempotencyKey?: string },
  ): Promise<Response> {
    const target = path ?? op.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => ids[name] ?? '');
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (op.idempotent) headers['idempotency-key'] = idempotencyKey;
    const sent = body ?? op.body;
    if (sent !== undefined) headers['content-type'] = 'application/json';
    return fetch(`${t.baseUrl}${target}${query}`, {
      method: op.method,
      headers,
      body: sent === undefined ? undefined : JSON.stringify(sent),
    });
  }

  it('the table knows a valid body for every operation that takes one', () => {
    const withBody = operations.filter((op) => op.bodySchema !== undefined);
    expect(withBody.length).toBeGreaterThan(0);
    for (const op of withBody) expect(op.body, op.operationId).toBeDefined();
  });

  it('in a body, at any depth or in a key: 422 invalid_character at that pointer, nothing stored', async () => {
    const before = await stored();
    let tried = 0;
    for (const op of operations.filter((o) => o.bodySchema !== undefined)) {
      for (const [pointer, body] of nulBodies(op.bodySchema, op.body)) {
        const label = `${op.method} ${op.path} ${JSON.stringify(pointer)}`;
        const response = await request(op, { body });
        expect(response.status, label).toBe(422);
        const problem = await expectProblem(response, 422, 'validation_failed');
        expect(problem.errors?.find((e) => e.pointer === pointer)?.code, label).toBe(
          'invalid_character',
        );
        tried += 1;
      }
    }
    // company_name, client_reference, metadata (value and key), webhook_url, search fields ...
    expect(tried).toBeGreaterThan(25);
    expect(await stored()).toEqual(before);
  });

  it('in a query parameter, its value or its name: 422 invalid_character at that pointer', async () => {
    const before = await stored();
    for (const op of operations) {
      const cases: Array<[string, string]> = op.queryParameters.map((name) => [
        `/${name}`,
        `?${name}=a%00b`,
      ]);
      // An unknown parameter is refused anyway; its name still must not reach anything.
      cases.push([`/x${NUL}`, '?x%00=1']);
      for (const [pointer, query] of cases) {
        const label = `${op.method} ${op.path}${query}`;
        const response = await request(op, { query });
        expect(response.status, label).toBe(422);
        const problem = await expectProblem(response, 422, 'validation_failed');
        expect(problem.errors?.find((e) => e.pointer === pointer)?.code, label).toBe(
          'invalid_character',
        );
      }
    }
    expect(await stored()).toEqual(before);
  });

  it('in a path parameter: 404 before any idempotency claim, and the real resource untouched', async () => {
    const before = await stored();
    const withPath = operations.filter((op) => op.pathParameters.length > 0);
    expect(withPath.map((op) => op.operationId)).toEqual(
      expect.arrayContaining(['updateMonitor', 'archiveMonitor', 'runMonitor']),
    );
    for (const op of withPath) {
      for (const value of ['%00', 'a%00b', `${ids[op.pathParameters[0] as string]}%00`]) {
        const path = op.path.replace(/\{([a-z_]+)\}/g, () => value);
        const response = await request(op, { path });
        await expectProblem(response, 404, 'not_found');
      }
    }
    expect(await stored()).toEqual(before);
  });

  it('a malformed id on a write is a 404 before the Idempotency-Key is claimed', async () => {
    // The key was used on a real resource first: a claim of it for another path would be a 409.
    for (const op of operations.filter((o) => o.idempotent && o.pathParameters.length > 0)) {
      const created = await readJson(await post(t.baseUrl, '/monitors', SANDBOX_CHECK, key));
      const own = op.path.replace('{monitor_id}', created.monitor.id);
      const idempotencyKey = uniqueIdempotencyKey();
      const first = await request(op, { path: own, idempotencyKey });
      expect(first.status, `${op.method} ${own}`).toBe(200);
      const before = await stored();
      for (const value of ['%00', 'mon_bad', 'chk_0000000000000000', `${created.monitor.id}!`]) {
        const path = op.path.replace('{monitor_id}', value);
        await expectProblem(await request(op, { path, idempotencyKey }), 404, 'not_found');
      }
      expect(await stored()).toEqual(before);
    }
  });
});
