import { cleanIdentifier, IDENTIFIER_TYPES } from '../../formats/format-rule.js';
import { checkFormat } from '../../formats/registry.js';
import { toTimestamp } from '../../lib/clock.js';
import type { CheckRowFilters } from './checks.store.js';

/** The filters of `GET /checks` (as validated: instants as RFC 3339 text, a two-letter country). */
export interface CheckFilters {
  client_reference?: string;
  identifier?: string;
  country_code?: string;
  created_after?: string;
  created_before?: string;
}

/**
 * The stored `identifier.normalized` values an `identifier` filter stands for. A check stores what
 * its country's format rule made of the number, and a rule may do more than clean it: a German
 * VAT number gains its `DE` prefix, a French SIRET becomes its SIREN. So the filter is cleaned as
 * every rule starts (case, Unicode forms, separators: `cleanIdentifier`) and, when `country_code`
 * names the country, also put through that country's rule for each identifier type, exactly as a
 * check of it would have been. Without a country the cleaned form alone is matched.
 */
export function identifierForms(identifier: string, countryCode: string | undefined): string[] {
  const forms = new Set([cleanIdentifier(identifier)]);
  if (countryCode !== undefined) {
    for (const type of IDENTIFIER_TYPES) {
      forms.add(checkFormat(countryCode, type, identifier).normalized);
    }
  }
  return [...forms].sort();
}

/** The filters as the store compares them. */
export function checkRowFilters(filters: CheckFilters): CheckRowFilters {
  const countryCode = filters.country_code?.toUpperCase();
  const instant = (value: string | undefined) =>
    value === undefined ? undefined : toTimestamp(new Date(value));
  return {
    clientReference: filters.client_reference,
    identifiers:
      filters.identifier === undefined
        ? undefined
        : identifierForms(filters.identifier, countryCode),
    countryCode,
    createdAfter: instant(filters.created_after),
    createdBefore: instant(filters.created_before),
  };
}

/**
 * The filters' part of the list's identity in a cursor, so a cursor only continues the list it was
 * made for. Nothing without filters: a cursor of the unfiltered list made before the filters
 * existed stays valid.
 */
export function checkFiltersKey(filters: CheckRowFilters): string[] {
  const key = [
    filters.clientReference ?? '',
    filters.identifiers?.join(',') ?? '',
    filters.countryCode ?? '',
    filters.createdAfter ?? '',
    filters.createdBefore ?? '',
  ];
  return key.some((value) => value !== '') ? key : [];
}
