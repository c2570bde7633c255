import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxSource } from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, type Json, post, readJson, send, uniqueIdempotencyKey } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

const MATCHED = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
const ALL_FIELDS = [
  'registry_match_status',
  'company_legal_status',
  'legal_name',
  'registration_number',
  'vat_numbers',
  'registered_address',
];
const MONITOR_FIELDS = [
  'id',
  'object',
  'environment',
  'status',
  'health',
  'identifier',
  'company_name',
  'client_reference',
  'metadata',
  'cadence',
  'watched_fields',
  'webhook_url',
  'baseline_check_id',
  'latest_check_id',
  'latest_snapshot',
  'last_checked_at',
  'next_check_at',
  'last_event_at',
  'failure_count',
  'last_error_code',
  'estimated_monthly_checks',
  'created_at',
  'updated_at',
];

describe.each(DIALECTS)('monitors API [%s]', (dialect) => {
  let t: TestApp;
  let key: string;
  let workspaceId: string;

  beforeAll(async () => {
    t = await startTestApp({ dialect, monitorSlots: 1000 });
    const created = await t.createKey();
    key = created.key;
    workspaceId = created.workspace_id;
  });
  afterAll(() => t.close());

  async function createMonitor(body: unknown, apiKey = key): Promise<Json> {
    const response = await post(t.baseUrl, '/monitors', body, apiKey);
    expect(response.status, JSON.stringify(await response.clone().json())).toBe(201);
    return readJson(response);
  }

  async function counts(): Promise<{ monitors: number; checks: number; usage: number }> {
    const count = async (table: 'monitors' | 'checks' | 'usage_events') =>
      Number(
        (
          await t.database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<string | number>().as('n'))
            .where('workspace_id', '=', workspaceId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      monitors: await count('monitors'),
      checks: await count('checks'),
      usage: await count('usage_events'),
    };
  }

  describe('POST /monitors', () => {
    it('runs the baseline check through the checks path and starts an active monitor with the defaults', async () => {
      const before = await counts();
      const created = await createMonitor({ ...MATCHED, client_reference: 'supplier-7' });
      expect(Object.keys(created).sort()).toEqual(['baseline_check', 'monitor']);
      const { monitor, baseline_check: check } = created;
      expect(Object.keys(monitor).filter((k) => !MONITOR_FIELDS.includes(k))).toEqual([]);
      expect(monitor).toMatchObject({
        object: 'vat_monitor',
        environment: 'sandbox',
        status: 'active',
        health: 'healthy',
        identifier: {
          type: 'vat_number',
          input: 'GB999000005',
          normalized: 'GB999000005',
          country_code: 'GB',
        },
        client_reference: 'supplier-7',
        cadence: 'daily',
        watched_fields: ALL_FIELDS,
        baseline_check_id: check.id,
        latest_check_id: check.id,
        failure_count: 0,
        estimated_monthly_checks: 30,
        last_checked_at: check.completed_at,
        created_at: t.clock.now().toISOString(),
      });
      expect(monitor.id).toMatch(/^mon_[A-Za-z0-9_-]{16,80}$/);
      expect(monitor).not.toHaveProperty('webhook_url');
      expect(monitor).not.toHaveProperty('last_event_at');
      expect(monitor.latest_snapshot).toEqual({
        check_id: check.id,
        observed_at: check.completed_at,
        registry_match_status: 'matched',
        company_legal_status: 'active',
        legal_name: 'Sandbox Active Trading Ltd',
        registration_number: '99000001',
        vat_numbers: ['GB999000005'],
        registered_address: '1 Fixture Street, London, EC1A 1AA',
      });
      // Due a day later, spread by up to an hour so monitors created together are not due together.
      const due = Date.parse(monitor.next_check_at) - Date.parse(monitor.last_checked_at);
      expect(due).toBeGreaterThanOrEqual(24 * 3600_000);
      expect(due).toBeLessThan(25 * 3600_000);
      // The baseline is an ordinary stored check, recorded in usage as a monitor baseline.
      expect(check).toMatchObject({ object: 'check', source: 'api', credits_used: 0 });
      expect(await readJson(await get(t.baseUrl, `/checks/${check.id}`, key))).toEqual(check);
      expect(await counts()).toEqual({
        monitors: before.monitors + 1,
        checks: before.checks + 1,
        usage: before.usage + 1,
      });
      const usage = await readJson(await get(t.baseUrl, '/usage', key));
      expect(usage.by_operation).toContainEqual({
        operation: 'monitors.baseline',
        source: 'api',
        requests: expect.any(Number),
        billable_units: 0,
      });
    });

    it('with a webhook URL returns a signing secret, and a replay returns the same bytes, secret included', async () => {
      const idempotencyKey = uniqueIdempotencyKey();
      const body = {
        ...MATCHED,
        webhook_url: 'https://hooks.example.com/firmwatch',
        cadence: 'weekly',
      };
      const first = await post(t.baseUrl, '/monitors', body, key, idempotencyKey);
      expect(first.status).toBe(201);
      const firstText = await first.text();
      const created = JSON.parse(firstText);
      expect(created.webhook_signing_secret).toMatch(/^svcwhsec_[A-Za-z0-9_-]{43,}$/);
      expect(created.monitor).toMatchObject({
        webhook_url: 'https://hooks.example.com/firmwatch',
        cadence: 'weekly',
        estimated_monthly_checks: 5,
      });
      const before = await counts();
      const replay = await post(t.baseUrl, '/monitors', body, key, idempotencyKey);
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotency-replayed')).toBe('true');
      expect(await replay.text()).toBe(firstText);
      expect(await counts()).toEqual(before);
    });

    const metadata21 = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    it.each([
      ['an unknown field', { ...MATCHED, colour: 'red' }, '/colour', 'unknown_field'],
      ['an unknown cadence', { ...MATCHED, cadence: 'hourly' }, '/cadence', 'invalid_value'],
      ['no watched field', { ...MATCHED, watched_fields: [] }, '/watched_fields', 'too_few_items'],
      [
        'a repeated watched field',
        { ...MATCHED, watched_fields: ['legal_name', 'legal_name'] },
        '/watched_fields',
        'duplicate_items',
      ],
      [
        'an unknown watched field',
        { ...MATCHED, watched_fields: ['website'] },
        '/watched_fields/0',
        'invalid_value',
      ],
      [
        '21 metadata values',
        { ...MATCHED, metadata: metadata21 },
        '/metadata',
        'too_many_properties',
      ],
      [
        'a long client_reference',
        { ...MATCHED, client_reference: 'x'.repeat(129) },
        '/client_reference',
        'too_long',
      ],
      ['an empty company_name', { ...MATCHED, company_name: '' }, '/company_name', 'too_short'],
      [
        'an http webhook',
        { ...MATCHED, webhook_url: 'http://hooks.example.com/x' },
        '/webhook_url',
        'invalid_format',
      ],
      ['a short webhook', { ...MATCHED, webhook_url: 'https://a.b' }, '/webhook_url', 'too_short'],
      [
        'a webhook on localhost',
        { ...MATCHED, webhook_url: 'https://localhost/hook' },
        '/webhook_url',
        'localhost_not_allowed',
      ],
      [
        'an invalid number',
        { ...MATCHED, identifier: 'GB999000000' },
        '/identifier',
        'invalid_format',
      ],
      [
        'a number no registry source covers',
        { identifier_type: 'vat_number', identifier: 'FR40303265045', country_code: 'FR' },
        '/identifier_type',
        'not_supported',
      ],
      [
        'a number several companies carry',
        { ...MATCHED, identifier: 'GB999000201' },
        '/identifier',
        'ambiguous',
      ],
    ])(
      'refuses %s with 422 at its pointer and writes nothing',
      async (_name, body, pointer, code) => {
        const before = await counts();
        const problem = await expectProblem(
          await post(t.baseUrl, '/monitors', body, key),
          422,
          'validation_failed',
        );
        expect(problem.errors).toContainEqual({ pointer, code, message: expect.any(String) });
        expect(await counts()).toEqual(before);
      },
    );

    it('a baseline the registry could not answer starts a degraded monitor that says so', async () => {
      const created = await createMonitor({ ...MATCHED, identifier: 'GB999000256' });
      expect(created.baseline_check.registry_match_status).toBe('unavailable');
      expect(created.monitor).toMatchObject({
        status: 'active',
        health: 'source_degraded',
        failure_count: 1,
        last_error_code: 'registry_unavailable',
        last_event_at: t.clock.now().toISOString(),
      });
      // Retried soon, not a day later.
      expect(
        Date.parse(created.monitor.next_check_at) - Date.parse(created.monitor.last_checked_at),
      ).toBe(5 * 60_000);
      const events = await readJson(
        await get(t.baseUrl, `/monitoring-events?monitor_id=${created.monitor.id}`, key),
      );
      expect(events.data).toHaveLength(1);
      expect(events.data[0]).toMatchObject({
        object: 'vat_monitor_event',
        monitor_id: created.monitor.id,
        type: 'vat.monitor.source_degraded',
        severity: 'warning',
        changes: [],
        delivery: { status: 'not_configured', attempts: 0 },
      });
    });
  });

  describe('reading', () => {
    it('GET /monitors lists the most recently updated first, paginated; GET /monitors/{id} returns one', async () => {
      const own = await t.createKey();
      const a = (await createMonitor(MATCHED, own.key)).monitor;
      t.clock.advance(1000);
      const b = (await createMonitor({ ...MATCHED, identifier: 'GB999000047' }, own.key)).monitor;
      t.clock.advance(1000);
      // Updating a moves it to the top.
      expect(
        (await send(t.baseUrl, 'PATCH', `/monitors/${a.id}`, own.key, { cadence: 'monthly' }))
          .status,
      ).toBe(200);
      const first = await readJson(await get(t.baseUrl, '/monitors?limit=1', own.key));
      expect(first.data.map((m: Json) => m.id)).toEqual([a.id]);
      expect(first.pagination.has_more).toBe(true);
      const second = await readJson(
        await get(t.baseUrl, `/monitors?limit=1&cursor=${first.pagination.next_cursor}`, own.key),
      );
      expect(second.data.map((m: Json) => m.id)).toEqual([b.id]);
      expect(second.pagination).toEqual({ limit: 1, has_more: false });

      const one = await readJson(await get(t.baseUrl, `/monitors/${b.id}`, own.key));
      expect(one).toEqual(b);
    });

    it.each(['mon_00000000000000000000000000', 'mon_x', 'chk_00000000000000000000000000'])(
      'GET /monitors/%s is a 404',
      async (id) => {
        await expectProblem(await get(t.baseUrl, `/monitors/${id}`, key), 404, 'not_found');
      },
    );
  });

  describe('PATCH /monitors/{id}', () => {
    it('pauses and resumes with an event each, and changes cadence and watched fields', async () => {
      const { monitor } = await createMonitor(MATCHED);
      t.clock.advance(60_000);
      const paused = await readJson(
        await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, { status: 'paused' }),
      );
      expect(Object.keys(paused)).toEqual(['monitor']);
      expect(paused.monitor).toMatchObject({
        status: 'paused',
        updated_at: t.clock.now().toISOString(),
      });
      t.clock.advance(60_000);
      const resumed = await readJson(
        await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, {
          status: 'active',
          cadence: 'weekly',
          watched_fields: ['company_legal_status'],
        }),
      );
      expect(resumed.monitor).toMatchObject({
        status: 'active',
        cadence: 'weekly',
        estimated_monthly_checks: 5,
        watched_fields: ['company_legal_status'],
        last_event_at: t.clock.now().toISOString(),
      });
      const events = await readJson(
        await get(t.baseUrl, `/monitoring-events?monitor_id=${monitor.id}`, key),
      );
      expect(events.data.map((e: Json) => [e.type, e.severity])).toEqual([
        ['vat.monitor.resumed', 'info'],
        ['vat.monitor.paused', 'info'],
      ]);
    });

    it('a webhook URL comes with the signing secret, the same one every time; null disables delivery', async () => {
      const { monitor } = await createMonitor(MATCHED);
      const url = 'https://hooks.example.com/a';
      const set = await readJson(
        await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, { webhook_url: url }),
      );
      expect(set.webhook_signing_secret).toMatch(/^svcwhsec_/);
      expect(set.monitor.webhook_url).toBe(url);
      const moved = await readJson(
        await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, {
          webhook_url: 'https://hooks.example.com/b',
        }),
      );
      expect(moved.webhook_signing_secret).toBe(set.webhook_signing_secret);
      const off = await readJson(
        await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, { webhook_url: null }),
      );
      expect(off).not.toHaveProperty('webhook_signing_secret');
      expect(off.monitor).not.toHaveProperty('webhook_url');
      const other = await readJson(
        await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, { cadence: 'monthly' }),
      );
      expect(other).not.toHaveProperty('webhook_signing_secret');
    });

    it('a replay returns the same response; an empty body and an unknown status are 422', async () => {
      const { monitor } = await createMonitor(MATCHED);
      const k = uniqueIdempotencyKey();
      const body = { webhook_url: 'https://hooks.example.com/replayed' };
      const first = await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, body, k);
      const text = await first.text();
      const again = await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, body, k);
      expect(again.headers.get('idempotency-replayed')).toBe('true');
      expect(await again.text()).toBe(text);

      const empty = await expectProblem(
        await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, {}),
        422,
        'validation_failed',
      );
      expect(empty.errors).toEqual([
        { pointer: '', code: 'too_few_properties', message: expect.any(String) },
      ]);
      const status = await expectProblem(
        await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, { status: 'attention' }),
        422,
        'validation_failed',
      );
      expect(status.errors?.[0]).toMatchObject({ pointer: '/status', code: 'invalid_value' });
      const hook = await expectProblem(
        await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, {
          webhook_url: 'https://10.0.0.1/hook',
        }),
        422,
        'validation_failed',
      );
      expect(hook.errors?.[0]).toMatchObject({
        pointer: '/webhook_url',
        code: 'ip_address_not_allowed',
      });
    });
  });

  describe('DELETE /monitors/{id}', () => {
    it('archives: 404 afterwards everywhere, gone from the list, its events still readable, its slot free', async () => {
      const small = await startTestApp({ dialect, monitorSlots: 1 });
      try {
        const own = await small.createKey();
        const created = await post(small.baseUrl, '/monitors', MATCHED, own.key);
        const { monitor } = await readJson(created);
        await send(small.baseUrl, 'PATCH', `/monitors/${monitor.id}`, own.key, {
          status: 'paused',
        });
        const full = await expectProblem(
          await post(small.baseUrl, '/monitors', MATCHED, own.key),
          409,
          'monitor_limit_reached',
        );
        expect(full.retryable).toBe(false);

        const archived = await send(small.baseUrl, 'DELETE', `/monitors/${monitor.id}`, own.key);
        expect(archived.status).toBe(200);
        expect(await readJson(archived)).toEqual({ archived: true });

        await expectProblem(
          await get(small.baseUrl, `/monitors/${monitor.id}`, own.key),
          404,
          'not_found',
        );
        for (const [method, path, body] of [
          ['PATCH', `/monitors/${monitor.id}`, { cadence: 'weekly' }],
          ['DELETE', `/monitors/${monitor.id}`, undefined],
          ['POST', `/monitors/${monitor.id}/run`, {}],
        ] as const) {
          await expectProblem(
            await send(small.baseUrl, method, path, own.key, body),
            404,
            'not_found',
          );
        }
        expect((await readJson(await get(small.baseUrl, '/monitors', own.key))).data).toEqual([]);
        const events = await readJson(
          await get(small.baseUrl, `/monitoring-events?monitor_id=${monitor.id}`, own.key),
        );
        expect(events.data.map((e: Json) => e.type)).toEqual(['vat.monitor.paused']);
        // The slot is free again.
        expect((await post(small.baseUrl, '/monitors', MATCHED, own.key)).status).toBe(201);
      } finally {
        await small.close();
      }
    });
  });

  describe('POST /monitors/{id}/run', () => {
    it('rechecks now: a stored check, no change, no event', async () => {
      const { monitor, baseline_check } = await createMonitor(MATCHED);
      t.clock.advance(3_600_000);
      const response = await send(t.baseUrl, 'POST', `/monitors/${monitor.id}/run`, key, {});
      expect(response.status).toBe(200);
      const run = await readJson(response);
      expect(Object.keys(run).sort()).toEqual(['changes', 'check', 'event_id', 'monitor']);
      expect(run.changes).toEqual([]);
      expect(run.event_id).toBeNull();
      expect(run.check.id).not.toBe(baseline_check.id);
      expect(run.check).toMatchObject({ source: 'api', registry_match_status: 'matched' });
      expect(run.monitor).toMatchObject({
        baseline_check_id: baseline_check.id,
        latest_check_id: run.check.id,
        last_checked_at: t.clock.now().toISOString(),
      });
      expect(run.monitor.latest_snapshot.check_id).toBe(run.check.id);
    });

    it('no body at all (no Content-Type, no bytes) is the empty object: 200, and one request with {}', async () => {
      const { monitor } = await createMonitor(MATCHED);
      const idempotencyKey = uniqueIdempotencyKey();
      const run = (body?: string) =>
        fetch(`${t.baseUrl}/monitors/${monitor.id}/run`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'idempotency-key': idempotencyKey,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body,
        });
      const response = await run();
      expect(response.status).toBe(200);
      const first = await readJson(response);
      expect(first.monitor.latest_check_id).toBe(first.check.id);
      // The same key with `{}` is the same request: a replay, not a 409 or a second run.
      const replay = await run('{}');
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotency-replayed')).toBe('true');
      expect((await readJson(replay)).check.id).toBe(first.check.id);
    });

    it.each([
      ['a property', { now: true }, 422],
      ['an array', '[]', 422],
      ['null', 'null', 422],
      ['a string', '"{}"', 422],
    ])('a body with %s is refused', async (_name, body, status) => {
      const { monitor } = await createMonitor(MATCHED);
      const response = await send(t.baseUrl, 'POST', `/monitors/${monitor.id}/run`, key, body);
      expect(response.status).toBe(status);
    });
  });

  describe('monitoring events', () => {
    it('GET /monitoring-events/{id} returns one; unknown ids and a malformed monitor_id filter are refused', async () => {
      const { monitor } = await createMonitor(MATCHED);
      await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, { status: 'paused' });
      const list = await readJson(
        await get(t.baseUrl, `/monitoring-events?monitor_id=${monitor.id}`, key),
      );
      const event = list.data[0];
      expect(await readJson(await get(t.baseUrl, `/monitoring-events/${event.id}`, key))).toEqual(
        event,
      );
      await expectProblem(
        await get(t.baseUrl, '/monitoring-events/evt_00000000000000000000000000', key),
        404,
        'not_found',
      );
      const bad = await expectProblem(
        await get(t.baseUrl, '/monitoring-events?monitor_id=chk_1', key),
        422,
        'validation_failed',
      );
      expect(bad.errors?.[0]).toMatchObject({ pointer: '/monitor_id', code: 'invalid_format' });
    });
  });
});

// Live has no registry source yet; here the sandbox fixtures stand in for one, so that what live
// bills can be tested end to end.
describe.each(DIALECTS)('monitors in live [%s]', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    const sandbox = sandboxSource();
    t = await startTestApp({ dialect, sources: { sandbox, live: sandbox } });
  });
  afterAll(() => t.close());

  async function billing(workspaceId: string) {
    return t.database.db
      .selectFrom('workspace_billing')
      .select(['credit_balance'])
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
  }

  it('a live baseline without paid access is a 402 before anything is written', async () => {
    const live = await t.createKey({ environment: 'live' });
    await expectProblem(
      await post(t.baseUrl, '/monitors', MATCHED, live.key),
      402,
      'paid_access_required',
    );
    const monitors = await t.database.db
      .selectFrom('monitors')
      .select('id')
      .where('workspace_id', '=', live.workspace_id)
      .execute();
    expect(monitors).toEqual([]);
    const checks = await t.database.db
      .selectFrom('checks')
      .select('id')
      .where('workspace_id', '=', live.workspace_id)
      .execute();
    expect(checks).toEqual([]);
  });

  it('the baseline and each manual run cost one credit; a run that cannot be paid is a 402 and the monitor needs credits', async () => {
    const live = await t.createKey({ environment: 'live' });
    await t.fundWorkspace(live.workspace_id, 2);
    const created = await readJson(await post(t.baseUrl, '/monitors', MATCHED, live.key));
    expect(created.baseline_check.credits_used).toBe(1);
    expect(created.monitor.environment).toBe('live');
    const run = await readJson(
      await send(t.baseUrl, 'POST', `/monitors/${created.monitor.id}/run`, live.key, {}),
    );
    expect(run.check.credits_used).toBe(1);
    expect((await billing(live.workspace_id))?.credit_balance).toBe(0);

    const problem = await expectProblem(
      await send(t.baseUrl, 'POST', `/monitors/${created.monitor.id}/run`, live.key, {}),
      402,
      'insufficient_credits',
    );
    expect(problem.detail).toMatch(
      /^A manual run of a live monitor needs a positive credit balance to start/,
    );
    const monitor = await readJson(
      await get(t.baseUrl, `/monitors/${created.monitor.id}`, live.key),
    );
    expect(monitor).toMatchObject({
      status: 'attention',
      health: 'needs_credits',
      last_error_code: 'insufficient_credits',
      latest_check_id: run.check.id,
    });
    const events = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${monitor.id}`, live.key),
    );
    expect(events.data.map((e: Json) => [e.type, e.severity])).toEqual([
      ['vat.monitor.needs_credits', 'warning'],
    ]);
    // Once credits are back, the next run works and the monitor is healthy again.
    await t.fundWorkspace(live.workspace_id, 1);
    const again = await readJson(
      await send(t.baseUrl, 'POST', `/monitors/${created.monitor.id}/run`, live.key, {}),
    );
    expect(again.monitor).toMatchObject({ status: 'active', health: 'healthy', failure_count: 0 });
    const usage = await readJson(await get(t.baseUrl, '/usage', live.key));
    expect(usage.totals.billable_units).toBe(3);
  });
});
