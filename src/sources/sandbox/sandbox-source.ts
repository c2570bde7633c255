import { cleanIdentifier, type IdentifierType } from '../../formats/format-rule.js';
import { checkFormat } from '../../formats/registry.js';
import type {
  CompanyRecord,
  LookupResult,
  RegistrySource,
  SearchQuery,
  SearchResult,
} from '../registry-source.js';
import type { SourceCoverage } from '../source-coverage.js';
import { foldText, inCityOrState } from '../source-text.js';
import de from './fixtures/de.json' with { type: 'json' };
import gb from './fixtures/gb.json' with { type: 'json' };
import us from './fixtures/us.json' with { type: 'json' };

export interface FixtureIdentifier {
  identifier_type: string;
  value: string;
  outcome: 'matched' | 'ambiguous' | 'not_matched' | 'unavailable' | 'invalid_format';
  companies?: string[];
}

/** A fixture company; `searchable: false` keeps a timeline's company out of search results. */
export type FixtureCompany = Omit<CompanyRecord, 'country_code'> & { searchable?: boolean };

/** Fields of a company record a timeline step may override (each step overrides the base record). */
export type CompanyChanges = Partial<Omit<CompanyRecord, 'key' | 'country_code'>>;

/**
 * What one run of a monitor sees. `credit_shortage` makes that run look out of credits (simulated:
 * the sandbox never charges); a lookup at that step answers what the step before answered.
 */
export type TimelineStep =
  | { outcome: 'matched'; company: string; changes?: CompanyChanges }
  | { outcome: 'not_matched' }
  | { outcome: 'unavailable' }
  | { outcome: 'credit_shortage' };

/**
 * A fixture number whose record moves on with each recheck of the monitor watching it: step 0 is
 * what the baseline and any plain check see, step k what the k-th run sees, and after the last
 * step the record stays there.
 */
export interface FixtureTimeline {
  identifier_type: string;
  value: string;
  name: string;
  description: string;
  steps: TimelineStep[];
}

export interface CountryFixtures {
  country_code: string;
  companies: FixtureCompany[];
  identifiers: FixtureIdentifier[];
  timelines?: FixtureTimeline[];
  search_failures: string[];
}

/** The sandbox fixtures, one file per country. Data, not code: docs/sandbox.md lists them. */
export const SANDBOX_FIXTURES = [gb, de, us] as unknown as CountryFixtures[];

/** Every sandbox timeline with its country, for tests and docs that walk them all. */
export const SANDBOX_TIMELINES: ReadonlyArray<FixtureTimeline & { country_code: string }> =
  SANDBOX_FIXTURES.flatMap((country) =>
    (country.timelines ?? []).map((timeline) => ({
      country_code: country.country_code,
      ...timeline,
    })),
  );

/** The step a lookup sees: step 0 for a check or a baseline, step k for run k, then the last. */
export function timelineStepIndex(timeline: FixtureTimeline, recheck?: number): number {
  return Math.min(Math.max(recheck ?? 0, 0), timeline.steps.length - 1);
}

function companyOf(country: CountryFixtures, key: string): CompanyRecord {
  const company = country.companies.find((c) => c.key === key);
  if (!company) throw new Error(`sandbox fixture ${country.country_code} has no company ${key}`);
  const { searchable: _searchable, ...record } = company;
  return { ...record, key: `sandbox:${key}`, country_code: country.country_code };
}

/**
 * What the registry answers for a timeline number at a recheck. A simulated credit shortage has no
 * answer of its own: a lookup there answers what the step before answered.
 */
export function timelineAnswer(
  country: CountryFixtures,
  timeline: FixtureTimeline,
  recheck?: number,
): LookupResult {
  let index = timelineStepIndex(timeline, recheck);
  while (index > 0 && timeline.steps[index]?.outcome === 'credit_shortage') index -= 1;
  const step = timeline.steps[index];
  switch (step?.outcome) {
    case 'matched':
      // The same company key on every step: its snapshot (and cmp_ id) is refreshed, not doubled.
      return {
        outcome: 'matched',
        company: { ...companyOf(country, step.company), ...step.changes },
      };
    case 'unavailable':
      return {
        outcome: 'unavailable',
        reason: 'the sandbox registry is down on this run of the timeline',
      };
    default:
      return { outcome: 'not_matched' };
  }
}

const CHANGEABLE = new Set([
  'legal_name',
  'registration_number',
  'vat_numbers',
  'tax_identifiers',
  'company_legal_status',
  'raw_company_legal_status',
  'legal_form',
  'incorporation_date',
  'registered_address',
  'website',
  'city_or_state',
]);

/** Timelines are checked when the source is made, so a broken fixture fails at start-up. */
function validateTimelines(country: CountryFixtures, types: readonly IdentifierType[]): void {
  const where = (t: FixtureTimeline) =>
    `sandbox timeline ${country.country_code} ${t.identifier_type} ${t.value}`;
  for (const timeline of country.timelines ?? []) {
    const type = timeline.identifier_type as IdentifierType;
    // Coverage is what the fixture identifiers cover: a timeline adds numbers, not types.
    if (!types.includes(type)) throw new Error(`${where(timeline)}: type not covered`);
    if (checkFormat(country.country_code, type, timeline.value).status !== 'valid') {
      throw new Error(`${where(timeline)}: the number's format is not valid`);
    }
    const { steps } = timeline;
    const first = steps[0]?.outcome;
    if (first !== 'matched' && first !== 'not_matched') {
      throw new Error(`${where(timeline)}: step 0 (the baseline) must be matched or not_matched`);
    }
    if (steps[steps.length - 1]?.outcome === 'credit_shortage') {
      throw new Error(`${where(timeline)}: the last step cannot be a credit shortage`);
    }
    const keys = new Set<string>();
    for (const step of steps) {
      if (step.outcome !== 'matched') {
        if ('company' in step || 'changes' in step) {
          throw new Error(`${where(timeline)}: only a matched step names a company`);
        }
        continue;
      }
      companyOf(country, step.company);
      keys.add(step.company);
      for (const field of Object.keys(step.changes ?? {})) {
        if (!CHANGEABLE.has(field)) throw new Error(`${where(timeline)}: cannot change ${field}`);
      }
    }
    if (keys.size > 1) throw new Error(`${where(timeline)}: every step must name the same company`);
  }
}

/**
 * Answers every `svc_test_` request for GB, DE and US from the fixtures. Any other valid number
 * in those countries is `not_matched`; other countries are not covered.
 */
export function sandboxSource(
  fixtures: readonly CountryFixtures[] = SANDBOX_FIXTURES,
): RegistrySource {
  const byCountry = new Map(fixtures.map((f) => [f.country_code, f]));
  const types = (country: CountryFixtures) => [
    ...new Set(country.identifiers.map((i) => i.identifier_type as IdentifierType)),
  ];
  const keyOf = (country: CountryFixtures, type: string, value: string) =>
    `${country.country_code}:${type}:${checkFormat(country.country_code, type as IdentifierType, value).normalized}`;

  // Fixture numbers indexed by their normalized form, as the check looks them up.
  const entries = new Map(
    fixtures.flatMap((country) =>
      country.identifiers.map((i) => [keyOf(country, i.identifier_type, i.value), i] as const),
    ),
  );
  const timelines = new Map<string, { country: CountryFixtures; timeline: FixtureTimeline }>();
  for (const country of fixtures) {
    validateTimelines(country, types(country));
    for (const timeline of country.timelines ?? []) {
      const key = keyOf(country, timeline.identifier_type, timeline.value);
      if (entries.has(key) || timelines.has(key)) {
        throw new Error(`sandbox timeline ${key} is already a fixture number`);
      }
      timelines.set(key, { country, timeline });
    }
  }

  const coverage: SourceCoverage[] = fixtures.map((country) => ({
    countryCode: country.country_code,
    companySearch: 'supported',
    identifiers: types(country).map((identifierType) => ({
      identifierType,
      registryMatch: 'supported',
      companyLegalStatus: 'supported',
    })),
  }));

  return {
    info: {
      source_type: 'official_public_record',
      source_name: 'firmwatch sandbox fixtures (test data, not real companies)',
    },
    inProcess: true,
    coverage,
    supports(countryCode, identifierType) {
      const country = byCountry.get(countryCode);
      return country !== undefined && types(country).includes(identifierType);
    },
    async lookup({ countryCode, identifierType, normalized, recheck }): Promise<LookupResult> {
      const country = byCountry.get(countryCode);
      if (!country) return { outcome: 'not_matched' };
      const timeline = timelines.get(`${countryCode}:${identifierType}:${normalized}`);
      // Only timeline numbers move with rechecks; every other number answers the same each time.
      if (timeline) return timelineAnswer(timeline.country, timeline.timeline, recheck);
      const entry = entries.get(`${countryCode}:${identifierType}:${normalized}`);
      switch (entry?.outcome) {
        case 'matched':
          return { outcome: 'matched', company: companyOf(country, entry.companies?.[0] ?? '') };
        case 'ambiguous':
          return {
            outcome: 'ambiguous',
            companies: (entry.companies ?? []).map((key) => companyOf(country, key)),
          };
        case 'unavailable':
          return { outcome: 'unavailable', reason: 'the sandbox registry is down for this number' };
        default:
          return { outcome: 'not_matched' };
      }
    },
    simulatesCreditShortage({ countryCode, identifierType, normalized, recheck }) {
      const found = timelines.get(`${countryCode}:${identifierType}:${normalized}`);
      if (!found) return false;
      const { timeline } = found;
      return timeline.steps[timelineStepIndex(timeline, recheck)]?.outcome === 'credit_shortage';
    },
    searches: (countryCode) => byCountry.has(countryCode),
    async search(query: SearchQuery): Promise<SearchResult> {
      const country = byCountry.get(query.countryCode);
      if (!country) return { outcome: 'ok', companies: [] };
      if (
        query.name &&
        country.search_failures.some((f) => foldText(f) === foldText(query.name ?? ''))
      ) {
        return {
          outcome: 'unavailable',
          reason: 'the sandbox registry search is down for this name',
        };
      }
      const same = (a: string, b: string) => cleanIdentifier(a) === cleanIdentifier(b);
      const companies = country.companies
        // Timeline companies are found by their monitor, not by search, so search stays stable.
        .filter((c) => c.searchable !== false)
        .map((c) => companyOf(country, c.key))
        .filter(
          (c) =>
            (!query.name || foldText(c.legal_name).includes(foldText(query.name))) &&
            (!query.registrationNumber ||
              (c.registration_number !== undefined &&
                same(c.registration_number, query.registrationNumber))) &&
            (!query.vatNumber ||
              c.vat_numbers.some(
                (v) =>
                  same(v, query.vatNumber ?? '') ||
                  same(v, `${query.countryCode}${query.vatNumber}`),
              )) &&
            (!query.taxIdentifier ||
              c.tax_identifiers.some((t) => same(t, query.taxIdentifier ?? ''))) &&
            inCityOrState(c, query.cityOrState),
        );
      return { outcome: 'ok', companies };
    },
  };
}
