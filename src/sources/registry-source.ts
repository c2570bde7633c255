import type { IdentifierType } from '../formats/format-rule.js';
import type { SourceCoverage } from './source-coverage.js';

export type CompanyLegalStatus =
  | 'active'
  | 'inactive'
  | 'dissolved'
  | 'liquidation'
  | 'insolvency'
  | 'unknown';

/** Where a record comes from (contract: Source). */
export interface SourceInfo {
  source_type: 'government_registry' | 'official_public_record' | 'licensed_data_provider';
  source_name?: string;
  source_url?: string;
}

/** A company as a source reports it; `key` identifies it within the source, stably. */
export interface CompanyRecord {
  key: string;
  legal_name: string;
  registration_number?: string;
  vat_numbers: string[];
  tax_identifiers: string[];
  country_code: string;
  company_legal_status: CompanyLegalStatus;
  raw_company_legal_status?: string;
  legal_form?: string;
  incorporation_date?: string;
  registered_address?: { formatted: string };
  website?: string;
  /** City, or US state, used by the search filter. */
  city_or_state?: string;
  /**
   * Set when the register holds the company but withholds its name (a French unit under partial
   * diffusion): why, in words. `legal_name` then says the name is not published, and a check
   * warns instead of presenting it as a name.
   */
  legal_name_withheld?: string;
}

/**
 * Where and when an answer came from, for a source that answers from several registers or from a
 * cache: `source` names the register that holds the record (default: the source's own `info`), and
 * `retrievedAt` is when the record was fetched from it (default: now).
 */
export interface Provenance {
  source?: SourceInfo;
  retrievedAt?: Date;
  /** How the record was matched, when it is not the obvious way (a check shows it as a warning). */
  matchNote?: string;
  /**
   * What the register's record says beside the match that the caller must not miss (a sub-unit
   * matched instead of a legal entity, a VAT number whose company the register records as outside
   * the VAT register). A check shows each as a `registry_match` warning with this code, and as a
   * `registry_match` evidence entry with the register's own wording as its `raw_status`.
   */
  notes?: RecordNote[];
}

/** One note of a matched record; `code` is one of the warning codes docs/decisions.md lists. */
export interface RecordNote {
  code:
    | 'matched_sub_unit'
    | 'vat_not_registered_in_company_record'
    | 'identifier_revoked_in_company_record';
  message: string;
  raw_status: string;
}

export type LookupResult =
  | ({ outcome: 'matched'; company: CompanyRecord } & Provenance)
  | ({ outcome: 'ambiguous'; companies: CompanyRecord[] } & Provenance)
  | ({ outcome: 'not_matched' } & Provenance)
  | { outcome: 'unavailable'; reason: string };

export interface LookupQuery {
  countryCode: string;
  identifierType: IdentifierType;
  normalized: string;
  /**
   * For a monitor's recheck: how many rechecks came before (0 for a check or a baseline). Only
   * sandbox timelines read it, to move a fixture's record along run by run.
   */
  recheck?: number;
}

export interface SearchQuery {
  countryCode: string;
  name?: string;
  registrationNumber?: string;
  vatNumber?: string;
  taxIdentifier?: string;
  cityOrState?: string[];
}

export type SearchResult =
  | ({
      outcome: 'ok';
      companies: CompanyRecord[];
      /**
       * Set when the source answered without asking its register (a number that cannot be one
       * of the register's, a VAT number a register without VAT numbers cannot be searched by):
       * the empty answer is firmwatch's own, so the search costs no credit.
       */
      noRegisterAsked?: true;
    } & Provenance)
  | { outcome: 'unavailable'; reason: string };

/**
 * A registry source. It reports outages as `unavailable` rather than throwing, so a check keeps
 * its other findings and says plainly that this one could not be made.
 */
export interface RegistrySource {
  readonly info: SourceInfo;
  /**
   * Answers from this process's memory, with no network round trip (the sandbox fixtures): an
   * operation that asks only it never leaves the database, so its idempotency record is written
   * with the operation instead of claimed ahead (see `idempotencyWithOperation`).
   */
  readonly inProcess?: true;
  /** What it covers, per country and identifier type; feeds GET /countries. */
  readonly coverage: readonly SourceCoverage[];
  /**
   * Whether it can be asked about this country and identifier type; with `normalized`, about this
   * number (a register may be asked by only one of the numbers a country's rule accepts: the KRS
   * by KRS number, not by REGON). Callers that know the number pass it.
   */
  supports(countryCode: string, identifierType: IdentifierType, normalized?: string): boolean;
  /** Why a country and identifier type (or number) it does not support get no registry finding. */
  notSupportedReason?(
    countryCode: string,
    identifierType: IdentifierType,
    normalized?: string,
  ): string | undefined;
  lookup(query: LookupQuery): Promise<LookupResult>;
  /**
   * Sandbox timelines only: whether this recheck is one where the workspace is made to look out of
   * credits (labelled as simulated), so that `vat.monitor.needs_credits` can be tried for free.
   */
  simulatesCreditShortage?(query: LookupQuery): boolean;
  searches(countryCode: string): boolean;
  search(query: SearchQuery): Promise<SearchResult>;
}

/** Whether a source answers without leaving the process (see `RegistrySource.inProcess`). */
export const answersInProcess = (source: RegistrySource): boolean => source.inProcess === true;

/** An empty search answer given without asking the register (see `noRegisterAsked`). */
export const answeredWithoutAsking = (source: SourceInfo): SearchResult => ({
  outcome: 'ok',
  companies: [],
  source,
  noRegisterAsked: true,
});

/** Live processing until real registry adapters exist: nothing is supported. */
export const noRegistrySource: RegistrySource = {
  info: { source_type: 'official_public_record', source_name: 'none' },
  coverage: [],
  supports: () => false,
  lookup: async () => ({ outcome: 'unavailable', reason: 'no source' }),
  searches: () => false,
  search: async () => ({ outcome: 'unavailable', reason: 'no source' }),
};
