import type { RegistrySource } from './registry-source.js';
import type { Coverage, SourceCoverage } from './source-coverage.js';

const RANK: Record<Coverage, number> = {
  not_supported: 0,
  not_verified: 1,
  partial: 2,
  supported: 3,
};
const best = (a: Coverage, b: Coverage): Coverage => (RANK[b] > RANK[a] ? b : a);

/** The coverage of several sources together: per country and identifier type, the best of them. */
export function mergeCoverage(sources: readonly RegistrySource[]): SourceCoverage[] {
  const countries = new Map<string, SourceCoverage>();
  for (const source of sources) {
    for (const coverage of source.coverage) {
      const known = countries.get(coverage.countryCode);
      if (!known) {
        countries.set(coverage.countryCode, {
          ...coverage,
          identifiers: coverage.identifiers.map((i) => ({ ...i })),
        });
        continue;
      }
      const identifiers = [...known.identifiers];
      for (const entry of coverage.identifiers) {
        const at = identifiers.findIndex((i) => i.identifierType === entry.identifierType);
        const current = identifiers[at];
        if (!current) identifiers.push({ ...entry });
        else
          identifiers[at] = {
            identifierType: entry.identifierType,
            registryMatch: best(current.registryMatch, entry.registryMatch),
            companyLegalStatus: best(current.companyLegalStatus, entry.companyLegalStatus),
          };
      }
      countries.set(coverage.countryCode, {
        countryCode: coverage.countryCode,
        companySearch: best(known.companySearch, coverage.companySearch),
        identifiers,
      });
    }
  }
  return [...countries.values()].sort((a, b) => a.countryCode.localeCompare(b.countryCode));
}

/**
 * The live registers as one source: each lookup and search goes to the first source, in the order
 * given, that covers the country and identifier type (a national register before GLEIF), and its
 * answer names that register.
 */
export function routedSource(sources: readonly RegistrySource[]): RegistrySource {
  const coverage = mergeCoverage(sources);
  return {
    info: { source_type: 'official_public_record', source_name: 'firmwatch live registers' },
    coverage,
    supports: (country, type) => sources.some((source) => source.supports(country, type)),
    notSupportedReason: (country, type) =>
      sources.map((source) => source.notSupportedReason?.(country, type)).find(Boolean),
    async lookup(query) {
      const source = sources.find((s) => s.supports(query.countryCode, query.identifierType));
      if (!source) return { outcome: 'unavailable', reason: 'no source' };
      const result = await source.lookup(query);
      return result.outcome === 'unavailable' ? result : { source: source.info, ...result };
    },
    searches: (country) => sources.some((source) => source.searches(country)),
    async search(query) {
      const source = sources.find((s) => s.searches(query.countryCode));
      if (!source) return { outcome: 'unavailable', reason: 'no source' };
      const result = await source.search(query);
      return result.outcome === 'unavailable' ? result : { source: source.info, ...result };
    },
  };
}
