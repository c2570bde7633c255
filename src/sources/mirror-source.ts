import type { DatabaseHandle } from '../db/database.js';
import type { IdentifierType } from '../formats/format-rule.js';
import { checkFormat } from '../formats/registry.js';
import {
  findMirrorCompaniesByNumber,
  findReadyMirrorCompaniesByNumber,
  findReadyVersion,
  type MirrorCompanyRow,
  type MirrorNumberColumn,
  searchMirrorCompaniesByName,
} from '../mirrors/mirror.store.js';
import { storedNumber } from '../mirrors/mirror-format.js';
import { MIRROR_FORMATS, type MirrorName } from '../mirrors/mirror-formats.js';
import {
  answeredWithoutAsking,
  type CompanyLegalStatus,
  type CompanyRecord,
  type RegistrySource,
  type SearchQuery,
  type SourceInfo,
} from './registry-source.js';
import type { SourceCoverage } from './source-coverage.js';
import { foldText, inCityOrState } from './source-text.js';

const SEARCH_LIMIT = 20;

/**
 * What makes a mirror a live source: its coverage and how its evidence is named. Its country and
 * which column each identifier type reads are its format's (src/mirrors/mirror-format.ts), which
 * fills those columns.
 */
export interface MirrorSourceDefinition {
  mirror: MirrorName;
  info: SourceInfo;
  /** Declared once a version is ready; nothing is declared before (docs/decisions.md, "Register mirrors"). */
  coverage: SourceCoverage;
  /** Why the country is not_supported while no version is ready: what an operator runs. */
  noDataReason: string;
  /** The register's own page of one company, linked from its evidence. */
  recordUrl(baseUrl: string, row: MirrorCompanyRow): string;
}

export interface MirrorSource extends RegistrySource {
  /** Reads which version is ready (coverage follows it); true when that changed. */
  refresh(): Promise<boolean>;
}

export function isMirrorSource(source: RegistrySource): source is MirrorSource {
  return typeof (source as Partial<MirrorSource>).refresh === 'function';
}

function recordOf(row: MirrorCompanyRow): CompanyRecord {
  return {
    key: row.register_key,
    legal_name: row.legal_name,
    ...(row.registration_number ? { registration_number: row.registration_number } : {}),
    vat_numbers: row.vat_number ? [row.vat_number] : [],
    tax_identifiers: row.tax_identifier ? [row.tax_identifier] : [],
    country_code: row.country_code,
    company_legal_status: row.company_legal_status as CompanyLegalStatus,
    ...(row.raw_status ? { raw_company_legal_status: row.raw_status } : {}),
    ...(row.legal_form ? { legal_form: row.legal_form } : {}),
    ...(row.incorporation_date ? { incorporation_date: row.incorporation_date } : {}),
    ...(row.address ? { registered_address: { formatted: row.address } } : {}),
    ...(row.city_or_state ? { city_or_state: row.city_or_state } : {}),
  };
}

const SEARCHED_NUMBERS = [
  ['registration_number', 'registrationNumber'],
  ['vat_number', 'vatNumber'],
  ['tax_identifier', 'taxIdentifier'],
] as const satisfies ReadonlyArray<readonly [IdentifierType, keyof SearchQuery]>;

/**
 * A register answered from its mirror (src/mirrors): a number is looked up, and a name searched
 * by prefix, in the mirror's `ready` version; `retrieved_at` is when that version's file was
 * retrieved from the register. Coverage is synchronous, so whether a version is ready is held in
 * memory: read by `refresh()` (awaited at startup) and again by every lookup and search. Until a
 * version is ready the mirror declares nothing and says why.
 */
export function mirrorSource(
  definition: MirrorSourceDefinition,
  options: { database: DatabaseHandle; baseUrl: string },
): MirrorSource {
  const { database } = options;
  const { info, noDataReason } = definition;
  const format = MIRROR_FORMATS[definition.mirror];
  const { countryCode, numberColumns } = format;
  const base = options.baseUrl.replace(/\/+$/, '');
  // The ready version's retrieval time, or undefined while none is ready.
  let retrievedAt: string | undefined;
  const readyVersion = async () => {
    const version = await findReadyVersion(database.db, definition.mirror);
    retrievedAt = version?.retrieved_at;
    return version;
  };
  const covers = (country: string) => retrievedAt !== undefined && country === countryCode;
  return {
    info,
    get coverage() {
      return retrievedAt === undefined
        ? []
        : [{ ...definition.coverage, dataRetrievedAt: retrievedAt }];
    },
    supports: (country, type) => covers(country) && numberColumns[type] !== undefined,
    notSupportedReason: (country) =>
      country === countryCode && retrievedAt === undefined ? noDataReason : undefined,
    async refresh() {
      const before = retrievedAt;
      await readyVersion();
      return retrievedAt !== before;
    },
    async lookup(query) {
      const column = numberColumns[query.identifierType];
      // One statement when a company holds the number: its rows carry the serving version's
      // retrieval time. Only without one is the version read, to tell no match from no data.
      const rows = column
        ? await findReadyMirrorCompaniesByNumber(
            database.db,
            definition.mirror,
            column,
            storedNumber(format, query.identifierType, query.normalized),
          )
        : [];
      const first = rows[0];
      if (!first) {
        const version = await readyVersion();
        if (!version) return { outcome: 'unavailable', reason: noDataReason };
        return {
          outcome: 'not_matched',
          source: info,
          retrievedAt: new Date(version.retrieved_at),
        };
      }
      const retrievedAt = new Date(first.retrieved_at);
      if (rows.length > 1)
        return { outcome: 'ambiguous', companies: rows.map(recordOf), source: info, retrievedAt };
      const source = { ...info, source_url: definition.recordUrl(base, first) };
      return { outcome: 'matched', company: recordOf(first), source, retrievedAt };
    },
    searches: covers,
    async search(query) {
      const version = await readyVersion();
      if (!version) return { outcome: 'unavailable', reason: noDataReason };
      const retrievedAt = new Date(version.retrieved_at);
      // Numbers as the format rules normalise them: one the register does not hold, or one that
      // cannot be valid, matches no company (answered without reading the mirror).
      const numbers: Array<[MirrorNumberColumn, string]> = [];
      for (const [type, field] of SEARCHED_NUMBERS) {
        const input = query[field];
        if (typeof input !== 'string') continue;
        const column = numberColumns[type];
        const checked = checkFormat(countryCode, type, input);
        if (!column || checked.status !== 'valid') return answeredWithoutAsking(info);
        numbers.push([column, storedNumber(format, type, checked.normalized)]);
      }
      const prefix = foldText(query.name ?? '');
      let rows: MirrorCompanyRow[];
      const [first, ...others] = numbers;
      if (first) {
        rows = (await findMirrorCompaniesByNumber(database.db, version.id, ...first)).filter(
          (row) =>
            others.every(([column, value]) => row[column] === value) &&
            row.folded_name.includes(prefix),
        );
      } else if (prefix !== '') {
        rows = (
          await searchMirrorCompaniesByName(database.db, version.id, prefix, SEARCH_LIMIT)
        ).filter((row) => row.folded_name.startsWith(prefix));
      } else {
        rows = [];
      }
      const companies = rows.map(recordOf).filter((c) => inCityOrState(c, query.cityOrState));
      return { outcome: 'ok', companies, source: info, retrievedAt };
    },
  };
}
