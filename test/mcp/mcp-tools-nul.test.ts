import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { post, readJson, uniqueIdempotencyKey } from '../helpers/http.js';
import { connectHttp } from '../helpers/mcp.js';

const MATCHED = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
const NUL = '\u0000';

// Tool arguments run the REST operation in-process, so U+0000 meets the same validation there:
// refused before any idempotency claim or write, never a 500 from PostgreSQL.
describe.each(DIALECTS)('MCP tool arguments with U+0000 [%s]', (dialect) => {
  let t: TestApp;
  let key: string;
  let client: Client;
  let monitorId: string;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    key = (await t.createKey()).key;
    client = await connectHttp(t.baseUrl, key);
    monitorId = (await readJson(await post(t.baseUrl, '/monitors', MATCHED, key))).monitor.id;
  });
  afterAll(async () => {
    await client.close();
    await t.close();
  });

  async function problemOf(name: string, args: Record<string, unknown>) {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError, name).toBe(true);
    return result._meta?.['firmwatch/problem'] as { code: string; status: number };
  }

  async function stored() {
    const count = async (table: 'monitors' | 'checks' | 'idempotency_records') =>
      Number(
        (
          await t.database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<string | number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      monitors: await count('monitors'),
      checks: await count('checks'),
      records: await count('idempotency_records'),
    };
  }

  it('in a body argument: validation_failed (422), nothing stored', async () => {
    const before = await stored();
    for (const [name, args] of [
      ['create_monitor', { ...MATCHED, company_name: `x${NUL}y` }],
      ['check_identifier', { ...MATCHED, metadata: { ref: `a${NUL}` } }],
      ['search_companies', { country_code: 'GB', name: `Sandbox${NUL}` }],
      [
        'update_monitor',
        { monitor_id: monitorId, webhook_url: `https://hooks.example.com/${NUL}` },
      ],
    ] as const) {
      const problem = await problemOf(name, { ...args, idempotency_key: uniqueIdempotencyKey() });
      expect([name, problem.code, problem.status]).toEqual([name, 'validation_failed', 422]);
    }
    expect(await stored()).toEqual(before);
  });

  it('in an id argument: not_found (404) before any claim, the monitor untouched', async () => {
    const before = await stored();
    for (const name of ['get_monitor', 'update_monitor', 'run_monitor', 'archive_monitor']) {
      const args = {
        monitor_id: `${monitorId}${NUL}`,
        ...(name === 'update_monitor' ? { cadence: 'weekly' } : {}),
        ...(name === 'get_monitor' ? {} : { idempotency_key: uniqueIdempotencyKey() }),
      };
      const problem = await problemOf(name, args);
      expect([name, problem.code, problem.status]).toEqual([name, 'not_found', 404]);
    }
    expect(await stored()).toEqual(before);
    const monitor = await readJson(
      await fetch(`${t.baseUrl}/monitors/${monitorId}`, {
        headers: { authorization: `Bearer ${key}` },
      }),
    );
    expect(monitor).toMatchObject({ id: monitorId, status: 'active', cadence: 'daily' });
  });

  it('in a query argument: validation_failed (422)', async () => {
    const problem = await problemOf('list_monitoring_events', { cursor: `a${NUL}` });
    expect([problem.code, problem.status]).toEqual(['validation_failed', 422]);
  });
});
