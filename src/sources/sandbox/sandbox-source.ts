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
import de from './fixtures/de.json' with { type: 'json' };
import gb from './fixtures/gb.json' with { type: 'json' };
import us from './fixtures/us.json' with { type: 'json' };

export interface FixtureIdentifier {
  identifier_type: string;
  value: string;
  outcome: 'matched' | 'ambiguous' | 'not_matched' | 'unavailable' | 'invalid_format';
  companies?: string[];
}

export interface CountryFixtures {
  country_code: string;
  companies: Array<Omit<CompanyRecord, 'country_code'>>;
  identifiers: FixtureIdentifier[];
  search_failures: string[];
}

/** The sandbox fixtures, one file per country. Data, not code: docs/sandbox.md lists them. */
export const SANDBOX_FIXTURES = [gb, de, us] as unknown as CountryFixtures[];

const foldName = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * Answers every `svc_test_` request for GB, DE and US from the fixtures. Any other valid number
 * in those countries is `not_matched`; other countries are not covered.
 */
export function sandboxSource(
  fixtures: readonly CountryFixtures[] = SANDBOX_FIXTURES,
): RegistrySource {
  const byCountry = new Map(fixtures.map((f) => [f.country_code, f]));
  const companyOf = (country: CountryFixtures, key: string): CompanyRecord => {
    const company = country.companies.find((c) => c.key === key);
    if (!company) throw new Error(`sandbox fixture ${country.country_code} has no company ${key}`);
    return { ...company, key: `sandbox:${key}`, country_code: country.country_code };
  };
  const types = (country: CountryFixtures) => [
    ...new Set(country.identifiers.map((i) => i.identifier_type as IdentifierType)),
  ];

  // Fixture numbers indexed by their normalized form, as the check looks them up.
  const entries = new Map(
    fixtures.flatMap((country) =>
      country.identifiers.map((i) => {
        const type = i.identifier_type as IdentifierType;
        const normalized = checkFormat(country.country_code, type, i.value).normalized;
        return [`${country.country_code}:${type}:${normalized}`, i] as const;
      }),
    ),
  );

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
    coverage,
    supports(countryCode, identifierType) {
      const country = byCountry.get(countryCode);
      return country !== undefined && types(country).includes(identifierType);
    },
    async lookup({ countryCode, identifierType, normalized }): Promise<LookupResult> {
      const country = byCountry.get(countryCode);
      if (!country) return { outcome: 'not_matched' };
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
    searches: (countryCode) => byCountry.has(countryCode),
    async search(query: SearchQuery): Promise<SearchResult> {
      const country = byCountry.get(query.countryCode);
      if (!country) return { outcome: 'ok', companies: [] };
      if (
        query.name &&
        country.search_failures.some((f) => foldName(f) === foldName(query.name ?? ''))
      ) {
        return {
          outcome: 'unavailable',
          reason: 'the sandbox registry search is down for this name',
        };
      }
      const same = (a: string, b: string) => cleanIdentifier(a) === cleanIdentifier(b);
      const cities = query.cityOrState?.map(foldName);
      const companies = country.companies
        .map((c) => companyOf(country, c.key))
        .filter(
          (c) =>
            (!query.name || foldName(c.legal_name).includes(foldName(query.name))) &&
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
            (!cities ||
              (c.city_or_state !== undefined && cities.includes(foldName(c.city_or_state)))),
        );
      return { outcome: 'ok', companies };
    },
  };
}
