import type { LookupResult, SearchQuery, SearchResult, SourceInfo } from './registry-source.js';
import type { UpstreamResult } from './upstream/upstream-client.js';

/** Text compared the way people mean it: no accents, case or runs of spaces (names, cities). */
export function foldText(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** An upstream failure as a source's `unavailable` answer, keeping the client's reason. */
export function unavailableFrom(result: Extract<UpstreamResult, { kind: 'unavailable' }>) {
  return { outcome: 'unavailable' as const, reason: `${result.reason}: ${result.detail}` };
}

/**
 * The `city_or_state` filter of a company search: with no cities asked for (none, or an empty
 * list, which the schema allows), every record passes; otherwise a record whose city (or US
 * state) is one of them, compared as `foldText` does.
 */
export function inCityOrState(
  record: { city_or_state?: string },
  cityOrState: readonly string[] | undefined,
): boolean {
  if (!cityOrState || cityOrState.length === 0) return true;
  if (record.city_or_state === undefined) return false;
  const city = foldText(record.city_or_state);
  return cityOrState.some((wanted) => foldText(wanted) === city);
}

/**
 * A company search by one number, answered through the source's own lookup of it: the company the
 * number matches, kept when it also holds the name asked for and lies in a city asked for.
 */
export function searchAnswerOfLookup(
  found: LookupResult,
  query: SearchQuery,
  source: SourceInfo,
): SearchResult {
  if (found.outcome === 'unavailable') return found;
  const companies =
    found.outcome === 'matched' &&
    (!query.name || foldText(found.company.legal_name).includes(foldText(query.name))) &&
    inCityOrState(found.company, query.cityOrState)
      ? [found.company]
      : [];
  return {
    outcome: 'ok',
    companies,
    ...(found.retrievedAt ? { retrievedAt: found.retrievedAt } : {}),
    source,
  };
}
