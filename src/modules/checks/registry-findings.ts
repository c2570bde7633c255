import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { IdentifierType } from '../../formats/format-rule.js';
import { toTimestamp } from '../../lib/clock.js';
import type { CompanyRecord, LookupResult, RegistrySource } from '../../sources/registry-source.js';
import { foldText } from '../../sources/source-text.js';
import type { Principal } from '../accounts/principal.js';
import type { Company } from '../companies/companies.schemas.js';
import {
  type CompaniesDeps,
  type LastWrites,
  saveCompanySnapshots,
} from '../companies/companies.service.js';
import { tenantOf } from '../tenancy/tenant.js';
import type { Check, Evidence, Warning } from './checks.schemas.js';

// The registry's findings of a check (contract section 1, registry_match and company_legal_status)
// from the registry's answer: what is not covered, matched, not matched, ambiguous or unavailable.
// The check that records them is made in checks.service.ts.

export type RegistryFindings = Pick<Check, 'registry_match_status' | 'company_legal_status'> & {
  company?: Company;
  evidence: Evidence[];
  warnings: Warning[];
};

/** Says exactly what is not covered: this identifier type in this country, in this environment. */
export function registryNotSupported(
  source: RegistrySource,
  principal: Principal,
  country: string,
  type: IdentifierType,
  normalized?: string,
): RegistryFindings {
  const covered = source.coverage.find((c) => c.countryCode === country);
  const typesHere = covered?.identifiers.map((i) => i.identifierType) ?? [];
  const countries = source.coverage.map((c) => c.countryCode).join(', ');
  const reason = source.notSupportedReason?.(country, type, normalized);
  const where =
    principal.environment === 'live'
      ? (reason ?? `No live registry source covers ${type} numbers in ${country}.`)
      : typesHere.length > 0
        ? `The sandbox has no registry fixtures for ${type} numbers in ${country}; there it covers ${typesHere.join(' and ')}.`
        : `The sandbox has registry fixtures for ${countries} only; ${country} is not one of them.`;
  return {
    registry_match_status: 'not_supported',
    company_legal_status: 'not_supported',
    evidence: [],
    warnings: [
      {
        dimension: 'registry_match',
        code: 'registry_not_supported',
        message: `${where} The format was still checked.`,
        retryable: false,
      },
    ],
  };
}

/** How many of an ambiguous number's companies a check names (and stores). */
const AMBIGUOUS_NAMED = 5;

/**
 * Names the companies that carry an ambiguous number and says which search tells them apart: a
 * search by the number and `city_or_state` does when the register gives each a different city
 * (the search filters the number's companies by city); otherwise no search does, and the caller
 * chooses by id.
 */
function ambiguousMessage(all: readonly CompanyRecord[], named: readonly Company[]): string {
  const list = named.map((c) => `"${c.legal_name}" (${c.id})`).join(', ');
  const more = all.length > named.length ? `, and ${all.length - named.length} more` : '';
  const cities = all.map((c) => c.city_or_state);
  const distinct = new Set(cities.map((c) => (c === undefined ? undefined : foldText(c))));
  const apart =
    cities.every((c) => c !== undefined) && distinct.size === all.length
      ? `POST /companies/search with this registration_number and city_or_state (${cities.join(', ')}) tells them apart.`
      : 'The register gives them no different city, so no search tells them apart: choose by id (GET /companies/{id}).';
  return `${all.length} companies in the registry carry this number: ${list}${more}. ${apart}`;
}

export async function registryFindings(
  db: Kysely<Database>,
  deps: CompaniesDeps,
  principal: Principal,
  source: RegistrySource,
  lookup: LookupResult,
  now: Date,
  last: LastWrites,
): Promise<RegistryFindings> {
  // The register that holds the record and when it was fetched from it, which for a cached record
  // is earlier than now.
  const origin = (lookup.outcome !== 'unavailable' && lookup.source) || source.info;
  const fetchedAt = (lookup.outcome !== 'unavailable' && lookup.retrievedAt) || now;
  const evidence = (dimension: Evidence['dimension'], raw_status?: string): Evidence => ({
    dimension,
    source_type: origin.source_type,
    ...(origin.source_name ? { source_name: origin.source_name } : {}),
    ...(origin.source_url ? { source_url: origin.source_url } : {}),
    ...(raw_status ? { raw_status } : {}),
    retrieved_at: toTimestamp(fetchedAt),
  });
  switch (lookup.outcome) {
    case 'matched': {
      const [company] = await saveCompanySnapshots(
        db,
        deps,
        tenantOf(principal),
        origin,
        [lookup.company],
        fetchedAt,
        last,
      );
      return {
        registry_match_status: 'matched',
        company_legal_status: lookup.company.company_legal_status,
        ...(company ? { company } : {}),
        evidence: [
          evidence('registry_match', 'matched'),
          ...(lookup.notes ?? []).map((note) => evidence('registry_match', note.raw_status)),
          evidence('company_legal', lookup.company.raw_company_legal_status),
        ],
        warnings: [
          ...(lookup.matchNote
            ? [
                {
                  dimension: 'registry_match',
                  code: 'matched_through_embedded_number',
                  message: lookup.matchNote,
                  retryable: false,
                },
              ]
            : []),
          ...(lookup.company.legal_name_withheld
            ? [
                {
                  dimension: 'registry_match',
                  code: 'legal_name_not_published',
                  message: `The register holds this company but does not publish its name (${lookup.company.legal_name_withheld}); legal_name says so instead of giving one, and company_name was not compared.`,
                  retryable: false,
                },
              ]
            : []),
          ...(lookup.notes ?? []).map((note) => ({
            dimension: 'registry_match',
            code: note.code,
            message: note.message,
            retryable: false,
          })),
        ],
      };
    }
    case 'ambiguous': {
      // The candidates are stored as companies, as a search stores its results, so the warning
      // can name each by a `cmp_` id the caller can fetch (GET /companies/{id}).
      const named = await saveCompanySnapshots(
        db,
        deps,
        tenantOf(principal),
        origin,
        lookup.companies.slice(0, AMBIGUOUS_NAMED),
        fetchedAt,
        last,
      );
      return {
        registry_match_status: 'ambiguous',
        // Several companies, no one legal status: that finding was not made.
        company_legal_status: 'not_checked',
        evidence: [evidence('registry_match', 'ambiguous')],
        warnings: [
          {
            dimension: 'registry_match',
            code: 'registry_ambiguous',
            message: ambiguousMessage(lookup.companies, named),
            retryable: false,
          },
        ],
      };
    }
    case 'not_matched':
      return {
        registry_match_status: 'not_matched',
        // No associated company, so no legal status to report; this is not a negative finding.
        company_legal_status: 'not_applicable',
        evidence: [evidence('registry_match', 'not_matched')],
        warnings: [],
      };
    case 'unavailable':
      // Kept as unavailable: an outage is never turned into not_matched or invalid.
      return {
        registry_match_status: 'unavailable',
        company_legal_status: 'unavailable',
        evidence: [evidence('registry_match', 'unavailable')],
        warnings: [
          {
            dimension: 'registry_match',
            code: 'registry_unavailable',
            message: `The company registry did not answer (${lookup.reason}); retry the check later.`,
            retryable: true,
          },
        ],
      };
  }
}
