import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSandboxDoc, type TimelineRun, timelineRuns } from '../../scripts/sandbox-doc.js';
import { sandboxVersusLiveRows } from '../../scripts/sandbox-versus-live-doc.js';
import type { IdentifierType } from '../../src/formats/format-rule.js';
import { checkFormat } from '../../src/formats/registry.js';
import { fixedClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { WATCHED_FIELDS } from '../../src/modules/monitors/monitors.schemas.js';
import { LIVE_SOURCE_NAMES, type LiveSourceName } from '../../src/sources/live-source-names.js';
import { createLiveSource, type LiveSource } from '../../src/sources/live-sources.js';
import { SANDBOX_FIXTURES, sandboxSource } from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { get, type Json, post, readJson } from '../helpers/http.js';

/** Every timeline walked as the doc walks it, run by run. */
const WALKS = SANDBOX_FIXTURES.flatMap((country) =>
  (country.timelines ?? []).map((timeline) => ({
    country: country.country_code,
    timeline,
    runs: timelineRuns(country, timeline),
  })),
);
const typesOf = (run: TimelineRun) => run.events.map((e) => e.type);

describe('docs/sandbox.md', () => {
  it('is exactly what the fixtures generate (run npm run docs:sandbox after changing a fixture)', () => {
    const committed = readFileSync(new URL('../../docs/sandbox.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderSandboxDoc());
  });

  it('lists every fixture number', () => {
    const doc = renderSandboxDoc();
    for (const country of SANDBOX_FIXTURES) {
      for (const entry of country.identifiers) expect(doc).toContain(`\`${entry.value}\``);
    }
  });

  it('every fixture state is reachable for each country and identifier type', () => {
    for (const country of SANDBOX_FIXTURES) {
      const types = new Set(country.identifiers.map((i) => i.identifier_type));
      for (const type of types) {
        const entries = country.identifiers.filter((i) => i.identifier_type === type);
        const statuses = entries
          .filter((e) => e.outcome === 'matched')
          .map(
            (e) => country.companies.find((c) => c.key === e.companies?.[0])?.company_legal_status,
          )
          .sort();
        expect(statuses, `${country.country_code} ${type}`).toEqual([
          'active',
          'dissolved',
          'inactive',
          'insolvency',
          'liquidation',
        ]);
        // Fixture numbers have the format their outcome needs: only invalid_format ones are invalid.
        for (const entry of entries) {
          const format = checkFormat(
            country.country_code,
            type as IdentifierType,
            entry.value,
          ).status;
          expect(format, `${entry.value}`).toBe(
            entry.outcome === 'invalid_format' ? 'invalid' : 'valid',
          );
        }
        for (const outcome of ['ambiguous', 'not_matched', 'unavailable', 'invalid_format']) {
          expect(
            entries.some((e) => e.outcome === outcome),
            `${country.country_code} ${type} ${outcome}`,
          ).toBe(true);
        }
      }
    }
  });

  it('lists every timeline number with its runs', () => {
    const doc = renderSandboxDoc();
    expect(doc).toContain('## Monitoring timelines');
    for (const { timeline, runs } of WALKS) {
      expect(doc).toContain(
        `\`${timeline.identifier_type}\` \`${timeline.value}\`. ${timeline.description}`,
      );
      expect(doc).toContain(`| run ${runs.length - 1} and later |`);
    }
  });

  it('the timelines reach every event type a run can emit, in every country', () => {
    expect([...new Set(WALKS.map((w) => w.country))].sort()).toEqual(['DE', 'GB', 'US']);
    const events = WALKS.flatMap((w) => w.runs.flatMap((r) => r.events));
    expect([...new Set(events.map((e) => e.type))].sort()).toEqual([
      'vat.monitor.change_detected',
      'vat.monitor.needs_credits',
      'vat.monitor.source_degraded',
      'vat.monitor.source_restored',
    ]);
    const fields = new Set(events.flatMap((e) => e.changes.map((c) => c.field)));
    expect([...fields].sort()).toEqual([...WATCHED_FIELDS].sort());
    expect(new Set(events.map((e) => e.severity))).toEqual(new Set(['info', 'warning', 'high']));
    // The baseline never emits; after the last step nothing more happens.
    for (const { runs } of WALKS) {
      expect(runs[0]?.events).toEqual([]);
      expect(runs[runs.length - 1]?.events).toEqual([]);
    }
  });

  it('a company winds up: active, then liquidation, then dissolved, each a high change', () => {
    const statuses = WALKS.map((w) =>
      w.runs.flatMap((r) =>
        r.events.flatMap((e) => e.changes.filter((c) => c.field === 'company_legal_status')),
      ),
    );
    expect(statuses).toContainEqual([
      { field: 'company_legal_status', previous: 'active', current: 'liquidation' },
      { field: 'company_legal_status', previous: 'liquidation', current: 'dissolved' },
    ]);
    const wind = WALKS.find((w) => w.timeline.value === 'GB999000341');
    expect(wind?.runs.map((r) => r.events.map((e) => e.severity))).toEqual([
      [],
      ['high'],
      ['high'],
      [],
    ]);
  });

  it('an address only re-typed (case, spacing) emits nothing; a real move does', () => {
    const renamed = WALKS.find((w) => w.timeline.value === 'GB999000354');
    const addresses = renamed?.runs.map((r) =>
      r.answer !== 'credit_shortage' && r.answer.outcome === 'matched'
        ? r.answer.company.registered_address?.formatted
        : undefined,
    );
    expect(addresses?.[1]).not.toBe(addresses?.[0]);
    expect(addresses?.[1]?.toLowerCase().replace(/\s+/g, ' ')).toBe(addresses?.[0]?.toLowerCase());
    expect(renamed?.runs[1]?.events).toEqual([]);
    expect(
      renamed?.runs.map((r) => r.events.flatMap((e) => e.changes.map((c) => c.field))),
    ).toEqual([[], [], ['legal_name'], ['registered_address'], []]);
  });

  it('an outage emits source_degraded once, however long, and source_restored when it ends', () => {
    const outage = WALKS.find((w) => w.timeline.value === 'DE999000105');
    expect(outage?.runs.map(typesOf)).toEqual([
      [],
      ['vat.monitor.source_degraded'],
      ['vat.monitor.source_restored'],
      ['vat.monitor.source_degraded'],
      [],
      ['vat.monitor.source_restored'],
      [],
    ]);
  });

  it('a simulated credit shortage emits needs_credits once and the next run goes ahead', () => {
    const credits = WALKS.find((w) => w.timeline.value === '999000010');
    expect(credits?.runs.map(typesOf)).toEqual([[], ['vat.monitor.needs_credits'], [], []]);
    expect(credits?.runs.map((r) => `${r.status}/${r.health}`)).toEqual([
      'active/healthy',
      'attention/needs_credits',
      'active/healthy',
      'active/healthy',
    ]);
    expect(renderSandboxDoc()).toMatch(/simulated/i);
  });

  describe('Sandbox versus live', () => {
    // The live registers as the default configuration has them (every register, a Companies House
    // key), at a closed port: GET /countries reads their declared coverage; nothing is called.
    let database: TestDatabase;
    let live: LiveSource;
    let t: TestApp;
    let liveKey: string;
    let sandboxKey: string;
    beforeAll(async () => {
      database = await createTestDatabase('sqlite');
      live = createLiveSource(
        {
          enabled: [...LIVE_SOURCE_NAMES],
          credentials: { COMPANIES_HOUSE_API_KEY: 'test-key-0000' },
          baseUrls: Object.fromEntries(
            LIVE_SOURCE_NAMES.map((name) => [name, 'http://127.0.0.1:1']),
          ) as Record<LiveSourceName, string>,
        },
        { database, clock: fixedClock('2026-11-21T12:00:00.000Z'), buckets: memoryTokenBuckets() },
      );
      t = await startTestApp({ database, sources: { sandbox: sandboxSource(), live } });
      liveKey = (await t.createKey({ environment: 'live' })).key;
      sandboxKey = (await t.createKey({ environment: 'sandbox' })).key;
    });
    afterAll(async () => {
      await t?.close();
      await live?.close();
      await database?.cleanup();
    });

    const ROWS = sandboxVersusLiveRows(SANDBOX_FIXTURES);

    it('has a row for every sandbox country and identifier type the format rules have, and search', () => {
      expect(ROWS.map((r) => `${r.country} ${r.kind}`)).toEqual([
        'GB registration_number',
        'GB vat_number',
        'GB company search',
        'DE registration_number',
        'DE vat_number',
        'DE company search',
        'US tax_identifier',
        'US company search',
      ]);
      const doc = renderSandboxDoc();
      expect(doc).toContain('## Sandbox versus live');
      for (const row of ROWS) if (row.warning) expect(doc).toContain(row.warning);
    });

    it('its live columns are what GET /countries says with every register on and its key set', async () => {
      for (const row of ROWS) {
        const response = await get(t.baseUrl, `/countries/${row.country}`, liveKey);
        expect(response.status).toBe(200);
        const country = await readJson(response);
        if (row.kind === 'company search') {
          expect(row.liveMatch, row.country).toBe(country.company_search);
          continue;
        }
        const capability = country.identifier_capabilities.find(
          (c: Json) => c.identifier_type === row.kind,
        );
        expect([row.liveMatch, row.liveLegalStatus], `${row.country} ${row.kind}`).toEqual([
          capability.registry_match,
          capability.company_legal_status,
        ]);
      }
    });

    it('its warnings are what a sandbox check of a valid number says, and only those rows warn', async () => {
      for (const row of ROWS) {
        if (row.kind === 'company search') continue;
        const response = await get(t.baseUrl, `/countries/${row.country}`, liveKey);
        const capability = (await readJson(response)).identifier_capabilities.find(
          (c: Json) => c.identifier_type === row.kind,
        );
        const check = await readJson(
          await post(
            t.baseUrl,
            '/checks',
            {
              identifier_type: row.kind,
              identifier: capability.format.examples[0],
              country_code: row.country,
            },
            sandboxKey,
          ),
        );
        const said = check.warnings
          .filter((w: Json) => w.code === 'live_coverage_differs')
          .map((w: Json) => w.message);
        expect(said, `${row.country} ${row.kind}`).toEqual(row.warning ? [row.warning] : []);
      }
    });
  });
});
