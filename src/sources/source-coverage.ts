import type { IdentifierType } from '../formats/format-rule.js';

export type Coverage = 'supported' | 'partial' | 'not_verified' | 'not_supported';

/**
 * What a registry source declares it can do for one country. Sources (issue 5) publish these; the
 * countries endpoint combines them with the format rules, so capabilities never drift from what
 * checks actually do.
 */
export interface SourceCoverage {
  countryCode: string;
  companySearch: Coverage;
  /**
   * For a source that answers from a copy of its register (a mirror): when that copy was
   * retrieved from the register. GET /countries gives it as the country's `updated_at`.
   */
  dataRetrievedAt?: string;
  identifiers: ReadonlyArray<{
    identifierType: IdentifierType;
    registryMatch: Coverage;
    companyLegalStatus: Coverage;
  }>;
}
