import type { DatabaseHandle } from '../../db/database.js';
import {
  findMirrorCompaniesByNumber,
  findReadyVersion,
  type MirrorCompanyRow,
  searchMirrorCompaniesByName,
} from '../../mirrors/mirror.store.js';
import type { CompanyRecord, RegistrySource, SourceInfo } from '../registry-source.js';
import type { SourceCoverage } from '../source-coverage.js';
import { foldText } from '../source-text.js';

export const EDGAR_MIRROR = 'edgar';
const SEARCH_LIMIT = 20;

/** The coverage the mirror declares once a version is ready (docs/sources/edgar.md). */
const EDGAR_COVERAGE: SourceCoverage = {
  countryCode: 'US',
  companySearch: 'partial',
  identifiers: [
    // SEC filers only; EDGAR records no legal status (docs/decisions.md, "Register mirrors").
    {
      identifierType: 'tax_identifier',
      registryMatch: 'partial',
      companyLegalStatus: 'not_supported',
    },
  ],
};

export const EDGAR_NO_DATA_REASON =
  "The SEC EDGAR mirror has no data yet: once an operator imports the SEC's submissions file (firmwatch mirror refresh edgar --file <dir>), SEC filers' EINs are answered from it (partial: filers only).";

export interface EdgarMirrorSource extends RegistrySource {
  /** Reads whether a version is ready; coverage follows it (docs/decisions.md, "Register mirrors"). */
  refresh(): Promise<void>;
}

/**
 * US SEC filers from the EDGAR mirror (src/mirrors): a US EIN is looked up, and a US name searched
 * by prefix, in the mirror's `ready` version. Coverage is synchronous, so whether a version is
 * ready is held in memory: read by `refresh()` (awaited at startup) and again by every lookup and
 * search. Until a version is ready the mirror declares nothing and says why.
 */
export function edgarMirrorSource(options: {
  database: DatabaseHandle;
  /** Where a filer's EDGAR page is linked from (EDGAR_BASE_URL). */
  baseUrl: string;
}): EdgarMirrorSource {
  const { database } = options;
  const base = options.baseUrl.replace(/\/+$/, '');
  let ready = false;
  const info: SourceInfo = {
    source_type: 'government_registry',
    source_name: 'SEC EDGAR',
    source_url: 'https://www.sec.gov/edgar/search/',
  };
  const sourceOf = (row: MirrorCompanyRow): SourceInfo => ({
    ...info,
    source_url: `${base}/cgi-bin/browse-edgar?action=getcompany&CIK=${row.register_key}`,
  });
  const record = (row: MirrorCompanyRow): CompanyRecord => ({
    key: row.register_key,
    legal_name: row.legal_name,
    vat_numbers: [],
    tax_identifiers: row.tax_identifier ? [row.tax_identifier] : [],
    country_code: 'US',
    // EDGAR has no status vocabulary: unknown, with no raw status claimed.
    company_legal_status: 'unknown',
    ...(row.address ? { registered_address: { formatted: row.address } } : {}),
    ...(row.city_or_state ? { city_or_state: row.city_or_state } : {}),
  });
  const readyVersion = async () => {
    const version = await findReadyVersion(database.db, EDGAR_MIRROR);
    ready = version !== undefined;
    return version;
  };
  const covers = (country: string) => ready && country === 'US';
  return {
    info,
    get coverage() {
      return ready ? [EDGAR_COVERAGE] : [];
    },
    supports: (country, type) => covers(country) && type === 'tax_identifier',
    notSupportedReason: (country) =>
      country === 'US' && !ready ? EDGAR_NO_DATA_REASON : undefined,
    async refresh() {
      await readyVersion();
    },
    async lookup(query) {
      const version = await readyVersion();
      if (!version) return { outcome: 'unavailable', reason: EDGAR_NO_DATA_REASON };
      const retrievedAt = new Date(version.retrieved_at);
      const rows = await findMirrorCompaniesByNumber(
        database.db,
        version.id,
        'tax_identifier',
        query.normalized,
      );
      const first = rows[0];
      if (!first) return { outcome: 'not_matched', source: info, retrievedAt };
      if (rows.length > 1)
        return { outcome: 'ambiguous', companies: rows.map(record), source: info, retrievedAt };
      return { outcome: 'matched', company: record(first), source: sourceOf(first), retrievedAt };
    },
    searches: covers,
    async search(query) {
      const version = await readyVersion();
      if (!version) return { outcome: 'unavailable', reason: EDGAR_NO_DATA_REASON };
      const retrievedAt = new Date(version.retrieved_at);
      if (query.registrationNumber || query.vatNumber)
        return { outcome: 'ok', companies: [], source: info, retrievedAt, noRegisterAsked: true };
      let rows: MirrorCompanyRow[];
      if (query.taxIdentifier) {
        const ein = query.taxIdentifier.replace(/[-\s]/g, '');
        rows = await findMirrorCompaniesByNumber(database.db, version.id, 'tax_identifier', ein);
      } else {
        const prefix = foldText(query.name ?? '');
        if (prefix === '') return { outcome: 'ok', companies: [], source: info, retrievedAt };
        rows = (
          await searchMirrorCompaniesByName(database.db, version.id, prefix, SEARCH_LIMIT)
        ).filter((row) => row.folded_name.startsWith(prefix));
      }
      const states = query.cityOrState?.map((s) => s.toUpperCase());
      const companies = rows
        .filter(
          (row) =>
            !states?.length ||
            (row.city_or_state && states.includes(row.city_or_state.toUpperCase())),
        )
        .map(record);
      return { outcome: 'ok', companies, source: info, retrievedAt };
    },
  };
}
