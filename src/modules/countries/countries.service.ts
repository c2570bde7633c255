import { COUNTRY_NAMES } from '../../formats/countries.js';
import type { FormatRule, IdentifierType } from '../../formats/format-rule.js';
import type { SourceCoverage } from '../../sources/source-coverage.js';
import type { CountryCapability } from './countries.schemas.js';

/** When the published rules (and so the capabilities) last changed. */
export const CAPABILITIES_UPDATED_AT = '2026-11-21T00:00:00.000Z';

/**
 * Checks never call a tax authority (contract section 1): for numbers a tax authority issues the
 * check is not supported; for company register numbers it does not apply.
 */
function taxAuthorityCheck(type: IdentifierType): 'not_supported' | 'not_applicable' {
  return type === 'registration_number' ? 'not_applicable' : 'not_supported';
}

/** One capability per country that has a format rule or a registry source. */
export function buildCountryCapabilities(
  rules: readonly FormatRule[],
  sources: readonly SourceCoverage[],
): CountryCapability[] {
  const codes = [
    ...new Set([...rules.map((r) => r.countryCode), ...sources.map((s) => s.countryCode)]),
  ].sort();
  return codes.map((code) => {
    const source = sources.find((s) => s.countryCode === code);
    const types = [
      ...new Set([
        ...rules.filter((r) => r.countryCode === code).map((r) => r.identifierType),
        ...(source?.identifiers.map((i) => i.identifierType) ?? []),
      ]),
    ].sort();
    return {
      country_code: code,
      name: COUNTRY_NAMES[code] ?? code,
      company_search: source?.companySearch ?? 'not_supported',
      identifier_capabilities: types.map((type) => {
        const rule = rules.find((r) => r.countryCode === code && r.identifierType === type);
        const registry = source?.identifiers.find((i) => i.identifierType === type);
        return {
          identifier_type: type,
          format_check: rule?.coverage ?? 'not_supported',
          registry_match: registry?.registryMatch ?? 'not_supported',
          tax_authority_check: taxAuthorityCheck(type),
          company_legal_status: registry?.companyLegalStatus ?? 'not_supported',
          format: rule
            ? {
                description: rule.description,
                examples: [...rule.examples],
                ...(rule.pattern ? { pattern: rule.pattern } : {}),
              }
            : {
                description: 'No format rule is published for this identifier type.',
                examples: [],
              },
        };
      }),
      // A country answered from a mirror: the date of the data its answers come from.
      updated_at: source?.dataRetrievedAt ?? CAPABILITIES_UPDATED_AT,
    };
  });
}

/**
 * The capabilities of a source as it declares them now: rebuilt only when its coverage changed
 * (a mirror's first import declares its country while the service runs), else reused.
 */
export function currentCapabilities(
  rules: readonly FormatRule[],
  source: { readonly coverage: readonly SourceCoverage[] },
): () => CountryCapability[] {
  let built: { key: string; capabilities: CountryCapability[] } | undefined;
  return () => {
    const coverage = source.coverage;
    const key = JSON.stringify(coverage);
    if (built?.key !== key)
      built = { key, capabilities: buildCountryCapabilities(rules, coverage) };
    return built.capabilities;
  };
}

/**
 * A country matches when the query is its code, or begins a word of its name ("de" finds Germany
 * and Denmark, "king" the United Kingdom), case-insensitive. Plain substrings would make "de"
 * find Sweden.
 */
export function filterCountries(
  capabilities: readonly CountryCapability[],
  query: string | undefined,
): CountryCapability[] {
  const needle = query?.trim().toLowerCase().replace(/\s+/g, ' ');
  if (!needle) return [...capabilities];
  return capabilities.filter((c) => {
    const name = c.name.toLowerCase();
    return (
      c.country_code.toLowerCase() === needle ||
      name.startsWith(needle) ||
      name.includes(` ${needle}`)
    );
  });
}

export function findCountry(
  capabilities: readonly CountryCapability[],
  countryCode: string,
): CountryCapability | undefined {
  const code = countryCode.toUpperCase();
  return capabilities.find((c) => c.country_code === code);
}
