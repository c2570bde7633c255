import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentifierType } from '../../src/formats/format-rule.js';
import { checkFormat } from '../../src/formats/registry.js';
import type { CompanyRecord, LookupQuery } from '../../src/sources/registry-source.js';
import {
  type CountryFixtures,
  type FixtureTimeline,
  SANDBOX_FIXTURES,
  SANDBOX_TIMELINES,
  sandboxSource,
  type TimelineStep,
} from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { post, readJson } from '../helpers/http.js';

/**
 * Sandbox timelines (issue 12): a timeline number answers step k on the k-th recheck of the
 * monitor watching it and stays on its last step; every other number ignores rechecks.
 */

const source = sandboxSource();

const countryOf = (code: string) => {
  const country = SANDBOX_FIXTURES.find((c) => c.country_code === code);
  if (!country) throw new Error(`no fixtures for ${code}`);
  return country;
};

const queryOf = (
  countryCode: string,
  identifierType: string,
  value: string,
  recheck?: number,
): LookupQuery => ({
  countryCode,
  identifierType: identifierType as IdentifierType,
  normalized: checkFormat(countryCode, identifierType as IdentifierType, value).normalized,
  ...(recheck !== undefined ? { recheck } : {}),
});

/** The record a matched step describes, read straight from the fixture file. */
function recordOf(countryCode: string, step: Extract<TimelineStep, { outcome: 'matched' }>) {
  const { searchable: _s, ...base } = countryOf(countryCode).companies.find(
    (c) => c.key === step.company,
  ) as CountryFixtures['companies'][number];
  return {
    ...base,
    ...step.changes,
    key: `sandbox:${step.company}`,
    country_code: countryCode,
  } as CompanyRecord;
}

/** What the registry answers at a step; a simulated shortage answers as the step before. */
function expectedAnswer(countryCode: string, steps: readonly TimelineStep[], index: number) {
  let at = index;
  while (steps[at]?.outcome === 'credit_shortage') at -= 1;
  const step = steps[at] as TimelineStep;
  switch (step.outcome) {
    case 'matched':
      return { outcome: 'matched', company: recordOf(countryCode, step) };
    case 'unavailable':
      return { outcome: 'unavailable', reason: expect.any(String) };
    default:
      return { outcome: step.outcome };
  }
}

const TIMELINE_CASES = SANDBOX_TIMELINES.map(
  (t) => [`${t.country_code} ${t.identifier_type} ${t.value} (${t.name})`, t] as const,
);

describe('sandbox timelines in the sandbox source', () => {
  it('every country has a timeline, and the timelines use every kind of step', () => {
    expect([...new Set(SANDBOX_TIMELINES.map((t) => t.country_code))].sort()).toEqual([
      'DE',
      'GB',
      'US',
    ]);
    const outcomes = new Set(SANDBOX_TIMELINES.flatMap((t) => t.steps.map((s) => s.outcome)));
    expect([...outcomes].sort()).toEqual([
      'credit_shortage',
      'matched',
      'not_matched',
      'unavailable',
    ]);
  });

  it.each(TIMELINE_CASES)(
    '%s answers step k on recheck k and stays on its last step',
    async (_name, t) => {
      const last = t.steps.length - 1;
      for (let recheck = 0; recheck <= last + 3; recheck += 1) {
        const answer = await source.lookup(
          queryOf(t.country_code, t.identifier_type, t.value, recheck),
        );
        expect(answer, `recheck ${recheck}`).toEqual(
          expectedAnswer(t.country_code, t.steps, Math.min(recheck, last)),
        );
      }
    },
  );

  it.each(TIMELINE_CASES)(
    '%s: a plain lookup (a check, a baseline) answers step 0, typed loosely too',
    async (_name, t) => {
      const expected = expectedAnswer(t.country_code, t.steps, 0);
      expect(await source.lookup(queryOf(t.country_code, t.identifier_type, t.value))).toEqual(
        expected,
      );
      const loose = ` ${t.value.toLowerCase().split('').join(' ')} `;
      expect(await source.lookup(queryOf(t.country_code, t.identifier_type, loose))).toEqual(
        expected,
      );
    },
  );

  it.each(TIMELINE_CASES)('%s keeps one company key on every matched step', async (_name, t) => {
    const keys = new Set<string>();
    for (let recheck = 0; recheck < t.steps.length; recheck += 1) {
      const answer = await source.lookup(
        queryOf(t.country_code, t.identifier_type, t.value, recheck),
      );
      if (answer.outcome === 'matched') keys.add(answer.company.key);
    }
    expect(keys.size).toBe(1);
  });

  it.each(TIMELINE_CASES)(
    '%s simulates a credit shortage exactly on its credit_shortage steps',
    (_name, t) => {
      const last = t.steps.length - 1;
      const simulated = (recheck?: number) =>
        source.simulatesCreditShortage?.(
          queryOf(t.country_code, t.identifier_type, t.value, recheck),
        );
      expect(simulated()).toBe(false);
      for (let recheck = 0; recheck <= last + 3; recheck += 1) {
        expect(simulated(recheck), `recheck ${recheck}`).toBe(
          t.steps[Math.min(recheck, last)]?.outcome === 'credit_shortage',
        );
      }
    },
  );

  it('a simulated shortage is on the US credit timeline, once, and the next run goes ahead', () => {
    const shortages = SANDBOX_TIMELINES.flatMap((t) =>
      t.steps.flatMap((s, i) => (s.outcome === 'credit_shortage' ? [[t.value, i]] : [])),
    );
    expect(shortages).toEqual([['999000010', 1]]);
    const query = (recheck: number) => queryOf('US', 'tax_identifier', '999000010', recheck);
    expect(source.simulatesCreditShortage?.(query(1))).toBe(true);
    expect(source.simulatesCreditShortage?.(query(2))).toBe(false);
  });

  it('numbers that are not timelines ignore rechecks, and never simulate a shortage', async () => {
    const numbers = SANDBOX_FIXTURES.flatMap((country) =>
      country.identifiers
        .filter((i) => i.outcome !== 'invalid_format')
        .map((i) => [country.country_code, i.identifier_type, i.value] as const),
    );
    numbers.push(
      ['GB', 'vat_number', 'GB980780684'],
      ['DE', 'registration_number', 'HRB 12345'],
      ['US', 'tax_identifier', '042103594'],
    );
    for (const [country, type, value] of numbers) {
      const plain = await source.lookup(queryOf(country, type, value));
      for (const recheck of [0, 1, 2, 5, 100]) {
        expect(await source.lookup(queryOf(country, type, value, recheck)), value).toEqual(plain);
        expect(source.simulatesCreditShortage?.(queryOf(country, type, value, recheck))).toBe(
          false,
        );
      }
    }
  });

  it('timelines add numbers, not coverage', () => {
    const withoutTimelines = SANDBOX_FIXTURES.map(({ timelines: _t, ...country }) => country);
    expect(source.coverage).toEqual(sandboxSource(withoutTimelines).coverage);
  });

  it('timeline companies are not returned by company search', async () => {
    for (const country of SANDBOX_FIXTURES) {
      const result = await source.search({ countryCode: country.country_code, name: 'Sandbox' });
      if (result.outcome !== 'ok') throw new Error('search failed');
      const keys = result.companies.map((c) => c.key);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.filter((k) => k.includes('timeline'))).toEqual([]);
      const timelineNames = country.companies
        .filter((c) => c.searchable === false)
        .map((c) => c.legal_name);
      expect(timelineNames.length).toBeGreaterThan(0);
      for (const name of timelineNames) {
        expect(await source.search({ countryCode: country.country_code, name })).toEqual({
          outcome: 'ok',
          companies: [],
        });
      }
    }
  });
});

describe('sandbox timeline data is checked when the source is made', () => {
  const gb = countryOf('GB');
  const timeline = (steps: TimelineStep[], value = 'GB999000396'): FixtureTimeline => ({
    identifier_type: 'vat_number',
    value,
    name: 'test',
    description: 'test',
    steps,
  });
  const withTimeline = (t: FixtureTimeline): CountryFixtures[] => [{ ...gb, timelines: [t] }];
  const matched: TimelineStep = { outcome: 'matched', company: 'gb-active' };

  it('accepts a well-formed timeline', () => {
    expect(() =>
      sandboxSource(withTimeline(timeline([matched, { outcome: 'credit_shortage' }, matched]))),
    ).not.toThrow();
  });

  it.each([
    [
      'a step naming an unknown company',
      timeline([matched, { outcome: 'matched', company: 'gb-nobody' }]),
      /no company gb-nobody/,
    ],
    [
      'steps naming different companies',
      timeline([matched, { outcome: 'matched', company: 'gb-inactive' }]),
      /same company/,
    ],
    ['a number that is already a fixture', timeline([matched], 'GB999000005'), /already/],
    ['a number of invalid format', timeline([matched], 'GB999000000'), /format/],
    ['a baseline that is not an answer', timeline([{ outcome: 'unavailable' }, matched]), /step 0/],
    [
      'a shortage as the last step',
      timeline([matched, { outcome: 'credit_shortage' }]),
      /last step/,
    ],
    [
      'a company on a step that is not matched',
      timeline([matched, { outcome: 'not_matched', company: 'gb-active' } as TimelineStep]),
      /only a matched step/,
    ],
    [
      'a change of a field a record does not have',
      timeline([
        matched,
        { outcome: 'matched', company: 'gb-active', changes: { key: 'x' } as never },
      ]),
      /cannot change key/,
    ],
    [
      'an identifier type the country does not cover',
      { ...timeline([matched]), identifier_type: 'tax_identifier', value: '999000010' },
      /not covered/,
    ],
  ])('refuses %s', (_name, t, message) => {
    expect(() => sandboxSource(withTimeline(t))).toThrow(message);
  });
});

describe.each(DIALECTS)('timeline numbers through POST /v1/checks [%s]', (dialect) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
    key = (await t.createKey({ environment: 'sandbox' })).key;
  });
  afterAll(() => t.close());

  it.each(TIMELINE_CASES)('%s: every plain check answers step 0', async (_name, timeline) => {
    const expected = expectedAnswer(timeline.country_code, timeline.steps, 0);
    const body = {
      identifier_type: timeline.identifier_type,
      identifier: timeline.value,
      country_code: timeline.country_code,
    };
    for (let i = 0; i < 2; i += 1) {
      const response = await post(t.baseUrl, '/checks', body, key);
      expect(response.status).toBe(201);
      const check = await readJson(response);
      expect(check.registry_match_status).toBe(expected.outcome);
      if (expected.outcome === 'matched') {
        const company = expected.company as CompanyRecord;
        expect(check.company_legal_status).toBe(company.company_legal_status);
        expect(check.company.legal_name).toBe(company.legal_name);
        expect(check.company.vat_numbers).toEqual(company.vat_numbers);
        expect(check.company.registered_address).toEqual(company.registered_address);
      } else {
        expect(check).not.toHaveProperty('company');
      }
    }
  });
});
