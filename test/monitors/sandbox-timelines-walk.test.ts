import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_TIMELINES } from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, type Json, post, readJson, send } from '../helpers/http.js';

// Every sandbox timeline, walked through the API as an integrator would: POST /monitors, then runs.
// The expected events are written out here (as docs/sandbox.md lists them), not derived from the
// rules under test.
interface Expected {
  /** 402 when the run is a simulated credit shortage. */
  status?: 402;
  events: Array<{ type: string; severity: string; fields?: string[] }>;
  after: { status: string; health: string };
}

const HEALTHY = { status: 'active', health: 'healthy' };
const DEGRADED = { status: 'active', health: 'source_degraded' };
const change = (severity: string, ...fields: string[]) => ({
  type: 'vat.monitor.change_detected',
  severity,
  fields,
});

const WALKS: Record<string, { request: Record<string, string>; runs: Expected[] }> = {
  GB999000341: {
    request: { identifier_type: 'vat_number', identifier: 'GB999000341', country_code: 'GB' },
    runs: [
      { events: [change('high', 'company_legal_status')], after: HEALTHY },
      { events: [change('high', 'company_legal_status')], after: HEALTHY },
      { events: [], after: HEALTHY },
    ],
  },
  GB999000354: {
    request: { identifier_type: 'vat_number', identifier: 'GB999000354', country_code: 'GB' },
    runs: [
      { events: [], after: HEALTHY }, // the address re-typed only: no material change
      { events: [change('warning', 'legal_name')], after: HEALTHY },
      { events: [change('info', 'registered_address')], after: HEALTHY },
      { events: [], after: HEALTHY },
    ],
  },
  DE999000105: {
    request: { identifier_type: 'vat_number', identifier: 'DE999000105', country_code: 'DE' },
    runs: [
      { events: [{ type: 'vat.monitor.source_degraded', severity: 'warning' }], after: DEGRADED },
      { events: [{ type: 'vat.monitor.source_restored', severity: 'info' }], after: HEALTHY },
      { events: [{ type: 'vat.monitor.source_degraded', severity: 'warning' }], after: DEGRADED },
      { events: [], after: DEGRADED }, // still down: degraded is reported once per outage
      { events: [{ type: 'vat.monitor.source_restored', severity: 'info' }], after: HEALTHY },
      { events: [], after: HEALTHY },
    ],
  },
  HRB999011: {
    request: {
      identifier_type: 'registration_number',
      identifier: 'HRB999011',
      country_code: 'DE',
    },
    runs: [
      { events: [change('warning', 'vat_numbers')], after: HEALTHY },
      { events: [], after: HEALTHY },
    ],
  },
  DE999000121: {
    request: { identifier_type: 'vat_number', identifier: 'DE999000121', country_code: 'DE' },
    runs: [
      { events: [change('warning', 'registration_number', 'registered_address')], after: HEALTHY },
      { events: [], after: HEALTHY },
    ],
  },
  '999000010': {
    request: { identifier_type: 'tax_identifier', identifier: '999000010', country_code: 'US' },
    runs: [
      {
        status: 402,
        events: [{ type: 'vat.monitor.needs_credits', severity: 'warning' }],
        after: { status: 'attention', health: 'needs_credits' },
      },
      { events: [], after: HEALTHY },
      { events: [], after: HEALTHY },
    ],
  },
  '999000011': {
    request: { identifier_type: 'tax_identifier', identifier: '999000011', country_code: 'US' },
    runs: [
      {
        events: [
          change(
            'warning',
            'registry_match_status',
            'company_legal_status',
            'legal_name',
            'registered_address',
          ),
        ],
        after: HEALTHY,
      },
      { events: [], after: HEALTHY },
    ],
  },
};

describe.each(DIALECTS)('sandbox timelines walked through the API [%s]', (dialect) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
    key = (await t.createKey()).key;
  });
  afterAll(() => t.close());

  it('every fixture timeline has a walk here', () => {
    expect(SANDBOX_TIMELINES.map((timeline) => timeline.value).sort()).toEqual(
      Object.keys(WALKS).sort(),
    );
  });

  it.each(Object.entries(WALKS))('%s', async (_number, walk) => {
    const created = await post(t.baseUrl, '/monitors', walk.request, key);
    expect(created.status).toBe(201);
    const { monitor } = await readJson(created);
    let seen = 0;
    for (const [index, expected] of walk.runs.entries()) {
      // Each run a minute later, so events of different runs have different times.
      t.clock.advance(60_000);
      const response = await send(t.baseUrl, 'POST', `/monitors/${monitor.id}/run`, key, {});
      expect(response.status, `run ${index + 1}`).toBe(expected.status ?? 200);
      const body = await readJson(response);
      const events = (
        await readJson(
          await get(t.baseUrl, `/monitoring-events?monitor_id=${monitor.id}&limit=100`, key),
        )
      ).data as Json[];
      const fresh = events.slice(0, events.length - seen).reverse();
      seen = events.length;
      expect(
        fresh.map((e) => ({
          type: e.type,
          severity: e.severity,
          ...(e.type === 'vat.monitor.change_detected'
            ? { fields: e.changes.map((c: Json) => c.field) }
            : {}),
        })),
        `run ${index + 1}`,
      ).toEqual(expected.events);
      const now = await readJson(await get(t.baseUrl, `/monitors/${monitor.id}`, key));
      expect(now, `run ${index + 1}`).toMatchObject(expected.after);

      if (response.status === 200) {
        // The run answers what it recorded: its changes, and the change event's id.
        const changeEvent = fresh.find((e) => e.type === 'vat.monitor.change_detected');
        expect(body.changes).toEqual(changeEvent?.changes ?? []);
        if (changeEvent) {
          expect(changeEvent.check_id).toBe(body.check.id);
          expect(changeEvent.snapshot).toEqual(now.latest_snapshot);
          expect(body.event_id).toBe(changeEvent.id);
        } else {
          expect(body.event_id).toBe(fresh.at(-1)?.id ?? null);
        }
        for (const c of body.changes as Json[]) {
          expect(c.previous).not.toEqual(c.current);
        }
      }
    }
  });
});
