import type { RegistrySource } from './registry-source.js';
import type { SourceCoverage } from './source-coverage.js';

/**
 * The coverage of several sources together, as routing uses them: per country and identifier
 * type, the coverage of the first source (in routing order) that covers it, and search likewise.
 * Publishing the best of them instead would promise what a lookup, which goes to the first, may
 * not deliver.
 */
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
      for (const entry of coverage.identifiers)
        if (!identifiers.some((i) => i.identifierType === entry.identifierType))
          identifiers.push({ ...entry });
      const retrieved = [known.dataRetrievedAt, coverage.dataRetrievedAt].filter(
        (at): at is string => at !== undefined,
      );
      countries.set(coverage.countryCode, {
        countryCode: coverage.countryCode,
        companySearch:
          known.companySearch === 'not_supported' ? coverage.companySearch : known.companySearch,
        identifiers,
        ...(retrieved.length > 0 ? { dataRetrievedAt: retrieved.sort().at(-1) } : {}),
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
  return {
    info: { source_type: 'official_public_record', source_name: 'firmwatch live registers' },
    // Read each time: a mirror's coverage follows whether its data is ready.
    get coverage() {
      return mergeCoverage(sources);
    },
    supports: (country, type, normalized) =>
      sources.some((source) => source.supports(country, type, normalized)),
    notSupportedReason: (country, type, normalized) =>
      sources.map((source) => source.notSupportedReason?.(country, type, normalized)).find(Boolean),
    async lookup(query) {
      const source = sources.find((s) =>
        s.supports(query.countryCode, query.identifierType, query.normalized),
      );
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
