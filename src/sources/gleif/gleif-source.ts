import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { checkFormat } from '../../formats/registry.js';
import type { BucketPolicy } from '../../lib/token-bucket.js';
import { LIVE_SOURCE_DEFAULT_BASE_URLS } from '../live-source-names.js';
import {
  answeredWithoutAsking,
  type CompanyRecord,
  type LookupQuery,
  type LookupResult,
  type RegistrySource,
  type SearchQuery,
  type SearchResult,
  type SourceInfo,
} from '../registry-source.js';
import type { SourceCoverage } from '../source-coverage.js';
import { foldText, inCityOrState } from '../source-text.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { elfLegalFormName } from './elf-legal-forms.js';
import {
  compactRegisteredAs,
  GLEIF_COUNTRIES,
  GLEIF_REGISTERED_AS,
  type RegisteredAsRule,
} from './gleif-registered-as.js';
import { GLEIF_IGNORED_REGISTRATION_STATUSES, gleifLegalStatus } from './gleif-statuses.js';

export const GLEIF_DEFAULT_BASE_URL = LIVE_SOURCE_DEFAULT_BASE_URLS.gleif;

/** The upstream's name in budgets, logs and unavailable reasons. */
export const GLEIF_UPSTREAM_NAME = 'gleif';

/**
 * GLEIF's API documentation gives a limit of 60 requests per minute per user. A token bucket lets
 * through at most `capacity + 60 * refillPerSecond` requests in any minute: 10 + 48 = 58. A lookup
 * that misses may ask for up to three spellings of a number, so the burst of 10 covers a few
 * lookups at once.
 */
export const GLEIF_BUDGET: BucketPolicy = { capacity: 10, refillPerSecond: 0.8 };

export const GLEIF_REGISTER_URL = 'https://search.gleif.org';
export const gleifRecordUrl = (lei: string): string =>
  `${GLEIF_REGISTER_URL}/#/record/${encodeURIComponent(lei)}`;

/** Records asked for per lookup (enough to see that a number is ambiguous) and per name search. */
const LOOKUP_PAGE_SIZE = 10;
export const GLEIF_SEARCH_PAGE_SIZE = 100;

const GLEIF_INFO: SourceInfo = {
  source_type: 'official_public_record',
  source_name: 'GLEIF',
  source_url: GLEIF_REGISTER_URL,
};

// The JSON:API shape of GET /lei-records as GLEIF documents and serves it; only the members read
// here are checked, extra members are allowed. Many members are null when not reported.
const nullable = <T extends Type.TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const AddressSchema = Type.Object({
  addressLines: Type.Array(Type.String()),
  addressNumber: Type.Optional(nullable(Type.String())),
  city: Type.String(),
  region: Type.Optional(nullable(Type.String())),
  country: Type.String({ pattern: '^[A-Z]{2}$' }),
  postalCode: Type.Optional(nullable(Type.String())),
});
type Address = Static<typeof AddressSchema>;

const CodeSchema = Type.Object({
  id: nullable(Type.String()),
  other: Type.Optional(nullable(Type.String())),
});
type Code = Static<typeof CodeSchema>;

// A legal name and the entity's other names: previous legal names, trading names, names in other
// languages and their transliterations (LEI-CDF OtherEntityNames), each with its language.
const NameSchema = Type.Object({
  name: Type.String(),
  language: Type.Optional(nullable(Type.String())),
});
const OtherNamesSchema = Type.Optional(nullable(Type.Array(NameSchema)));

const LeiRecordSchema = Type.Object({
  id: Type.String(),
  attributes: Type.Object({
    lei: Type.String({ pattern: '^[0-9A-Z]{20}$' }),
    entity: Type.Object({
      legalName: Type.Object({
        name: Type.String({ minLength: 1 }),
        language: Type.Optional(nullable(Type.String())),
      }),
      otherNames: OtherNamesSchema,
      transliteratedOtherNames: OtherNamesSchema,
      legalAddress: AddressSchema,
      registeredAt: Type.Optional(nullable(CodeSchema)),
      registeredAs: Type.Optional(nullable(Type.String())),
      legalForm: Type.Optional(nullable(CodeSchema)),
      status: Type.String(),
      expiration: Type.Optional(
        nullable(
          Type.Object({
            date: Type.Optional(nullable(Type.String())),
            reason: Type.Optional(nullable(Type.String())),
          }),
        ),
      ),
      creationDate: Type.Optional(
        nullable(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9:]+)$' })),
      ),
    }),
    registration: Type.Object({ status: Type.String() }),
  }),
});
type LeiRecord = Static<typeof LeiRecordSchema>;

const leiRecords = Compile(Type.Object({ data: Type.Array(LeiRecordSchema) }));

function firstError(body: unknown): string {
  const [error] = leiRecords.Errors(body);
  return error ? `${error.instancePath || 'the body'} ${error.message}` : 'unexpected shape';
}

/**
 * The calendar day of an LEI record's creation date. Issuers report the local midnight of the day
 * in UTC ("2004-06-06T22:00:00Z" for 7 June in Germany, "2017-06-30T18:30:00Z" for 1 July in
 * India), so the day is read 12 hours later, which is right for any offset from -12 to +12 hours.
 */
function creationDay(instant: string): string | undefined {
  const at = Date.parse(instant);
  return Number.isNaN(at) ? undefined : new Date(at + 12 * 3600 * 1000).toISOString().slice(0, 10);
}

function formatAddress(address: Address): string {
  const [first, ...rest] = address.addressLines.map((line) => line.trim()).filter(Boolean);
  const street = first && address.addressNumber ? `${first} ${address.addressNumber}` : first;
  const town = [address.postalCode, address.city].filter(Boolean).join(' ');
  return [street, ...rest, town, address.country].filter(Boolean).join(', ');
}

/**
 * The entity's legal form in words: the ELF list's local name (and abbreviation) for its ISO 20275
 * code, in the language of the legal name where the code has several (src/sources/gleif/
 * elf-legal-forms.ts); for 8888 ("other") the words in `legalForm.other`; nothing for 9999 (no
 * legal form of its own). A code our copy of the list does not hold is shown as the code, saying
 * so, never as a guessed name.
 */
function gleifLegalForm(
  legalForm: Code | null | undefined,
  language?: string | null,
): string | undefined {
  const id = legalForm?.id?.trim();
  if (id && id !== '8888' && id !== '9999') {
    return (
      elfLegalFormName(id, language) ?? `ELF code ${id} (not in firmwatch's copy of the ELF list)`
    );
  }
  return legalForm?.other?.trim() || undefined;
}

/** A name's words as a search compares them: case, accents and punctuation ignored. */
const wordsOf = (text: string): string[] =>
  foldText(text.replace(/ß/g, 'ss'))
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/**
 * Whether one of the record's names (legal name, other names, transliterated names) holds every
 * word asked for, each as a whole word or the start of one ("Werk" finds "Fixture Werke AG").
 */
function namedAs(record: LeiRecord, wanted: readonly string[]): boolean {
  const { legalName, otherNames, transliteratedOtherNames } = record.attributes.entity;
  const names = [legalName, ...(otherNames ?? []), ...(transliteratedOtherNames ?? [])];
  return names.some(({ name }) => {
    const words = wordsOf(name);
    return wanted.every((w) => words.some((word) => word.startsWith(w)));
  });
}

function companyRecord(record: LeiRecord): CompanyRecord {
  const { lei, entity, registration } = record.attributes;
  const created = entity.creationDate ? creationDay(entity.creationDate) : undefined;
  const form = gleifLegalForm(entity.legalForm, entity.legalName.language);
  const registeredAs = entity.registeredAs?.trim();
  return {
    key: `gleif:${lei}`,
    legal_name: entity.legalName.name,
    ...(registeredAs ? { registration_number: registeredAs } : {}),
    // LEI records carry no VAT numbers or tax identifiers.
    vat_numbers: [],
    tax_identifiers: [],
    country_code: entity.legalAddress.country,
    ...gleifLegalStatus(entity.status, entity.expiration?.reason, registration.status),
    ...(form ? { legal_form: form } : {}),
    ...(created ? { incorporation_date: created } : {}),
    registered_address: { formatted: formatAddress(entity.legalAddress) },
    ...(entity.legalAddress.city.trim() ? { city_or_state: entity.legalAddress.city.trim() } : {}),
  };
}

const unavailable = (reason: string) => ({ outcome: 'unavailable', reason }) as const;

/**
 * GLEIF's LEI records (free, no key): registration-number lookups in the countries it is given
 * (default `GLEIF_COUNTRIES`) and company search by name. Coverage is partial everywhere:
 * only entities with an LEI are there. GB is left to Companies House, so that GB stays
 * `not_supported` when Companies House is off.
 */
export function gleifSource(options: {
  client: UpstreamClient;
  baseUrl: string;
  apiKey?: string;
  /** Countries to declare; default GLEIF_COUNTRIES (a country without a spelling rule is asked as given). */
  countries?: readonly string[];
}): RegistrySource {
  const { client } = options;
  const base = options.baseUrl.replace(/\/+$/, '');
  const countries = new Set((options.countries ?? GLEIF_COUNTRIES).map((c) => c.toUpperCase()));
  const headers = { accept: 'application/vnd.api+json' };
  const ruleOf = (country: string): RegisteredAsRule =>
    GLEIF_REGISTERED_AS[country] ?? {
      register: 'the national register',
      spellings: (normalized) => ({ canonical: normalized, spellings: [normalized] }),
    };

  /** One page of LEI records, validated; usable records only (no duplicates or annulled LEIs). */
  async function records(
    filters: Record<string, string>,
    pageSize: number,
  ): Promise<{ records: LeiRecord[]; retrievedAt?: Date } | { reason: string }> {
    const params = new URLSearchParams({ ...filters, 'page[size]': String(pageSize) });
    const result = await client.getJson(`${base}/lei-records?${params}`, headers);
    if (result.kind === 'unavailable') return { reason: `${result.reason}: ${result.detail}` };
    if (result.kind === 'not_found') return { records: [] };
    if (!leiRecords.Check(result.body)) {
      return {
        reason: `malformed_response: GLEIF sent LEI records not in the documented shape (${firstError(result.body)})`,
      };
    }
    const usable = result.body.data.filter(
      (r) => !GLEIF_IGNORED_REGISTRATION_STATUSES.has(r.attributes.registration.status),
    );
    for (const record of usable) {
      const { creationDate } = record.attributes.entity;
      if (creationDate && !creationDay(creationDate)) {
        return { reason: `malformed_response: GLEIF sent a creationDate that is not a date` };
      }
    }
    return { records: usable, retrievedAt: result.retrievedAt };
  }

  async function findByNumber(country: string, normalized: string): Promise<LookupResult> {
    const { canonical, spellings } = ruleOf(country).spellings(normalized);
    const wanted = compactRegisteredAs(canonical);
    let retrievedAt: Date | undefined;
    for (const spelling of spellings) {
      const page = await records(
        {
          'filter[entity.registeredAs]': spelling,
          'filter[entity.legalAddress.country]': country,
        },
        LOOKUP_PAGE_SIZE,
      );
      if ('reason' in page) return unavailable(page.reason);
      retrievedAt = page.retrievedAt ?? retrievedAt;
      // The number is the same whatever its separators; the court or authority (registeredAt) is
      // not part of it, so one number held at several courts is ambiguous.
      const hits = page.records.filter(
        (r) =>
          r.attributes.entity.legalAddress.country === country &&
          compactRegisteredAs(r.attributes.entity.registeredAs ?? '') === wanted,
      );
      const unique = [...new Map(hits.map((r) => [r.attributes.lei, r])).values()];
      const when = retrievedAt ? { retrievedAt } : {};
      const [only] = unique;
      if (unique.length === 1 && only) {
        return {
          outcome: 'matched',
          company: companyRecord(only),
          source: { ...GLEIF_INFO, source_url: gleifRecordUrl(only.attributes.lei) },
          ...when,
        };
      }
      const companies = unique.map(companyRecord);
      if (companies.length > 1)
        return { outcome: 'ambiguous', companies, source: GLEIF_INFO, ...when };
    }
    return { outcome: 'not_matched', source: GLEIF_INFO, ...(retrievedAt ? { retrievedAt } : {}) };
  }

  const coverage: SourceCoverage[] = [...countries].sort().map((countryCode) => ({
    countryCode,
    companySearch: 'partial',
    identifiers: [
      {
        identifierType: 'registration_number',
        registryMatch: 'partial',
        companyLegalStatus: 'partial',
      },
    ],
  }));

  return {
    info: GLEIF_INFO,
    coverage,
    supports: (countryCode, identifierType) =>
      identifierType === 'registration_number' && countries.has(countryCode.toUpperCase()),
    async lookup({ countryCode, identifierType, normalized }: LookupQuery): Promise<LookupResult> {
      const country = countryCode.toUpperCase();
      if (identifierType !== 'registration_number' || !countries.has(country)) {
        return unavailable(`GLEIF is not used for ${identifierType} numbers in ${country}`);
      }
      return findByNumber(country, normalized);
    },
    searches: (countryCode) => countries.has(countryCode.toUpperCase()),
    async search(query: SearchQuery): Promise<SearchResult> {
      const country = query.countryCode.toUpperCase();
      if (!countries.has(country)) return { outcome: 'ok', companies: [] };
      let companies: CompanyRecord[] = [];
      let retrievedAt: Date | undefined;
      let asked = false;
      if (query.registrationNumber !== undefined) {
        // The number decides: it names the companies registered under it, whatever the name sent.
        const format = checkFormat(country, 'registration_number', query.registrationNumber);
        if (format.status !== 'invalid') {
          asked = true;
          const found = await findByNumber(country, format.normalized);
          if (found.outcome === 'unavailable') return found;
          if (found.outcome === 'matched') companies = [found.company];
          if (found.outcome === 'ambiguous') companies = found.companies;
          retrievedAt = found.retrievedAt;
        }
      } else if (query.name !== undefined) {
        // GLEIF's `filter[entity.legalName]` matches the whole legal name only; its
        // `filter[entity.names]` searches the words of every name of the entity (legal, previous,
        // trading, transliterated), ranked, and is not documented to require every word (what
        // this rests on: docs/sources/gleif.md). A record is kept when one of its names holds
        // every word asked for.
        const wanted = wordsOf(query.name);
        if (wanted.length > 0) {
          asked = true;
          const page = await records(
            {
              'filter[entity.names]': query.name,
              'filter[entity.legalAddress.country]': country,
            },
            GLEIF_SEARCH_PAGE_SIZE,
          );
          if ('reason' in page) return unavailable(page.reason);
          companies = page.records
            .filter((r) => r.attributes.entity.legalAddress.country === country)
            .filter((r) => namedAs(r, wanted))
            .map(companyRecord);
          retrievedAt = page.retrievedAt;
        }
      }
      // LEI records carry no VAT numbers or tax identifiers: those find nothing here.
      if (query.vatNumber !== undefined || query.taxIdentifier !== undefined) companies = [];
      if (!asked) return answeredWithoutAsking(GLEIF_INFO);
      return {
        outcome: 'ok',
        companies: companies.filter((c) => inCityOrState(c, query.cityOrState)),
        source: GLEIF_INFO,
        ...(retrievedAt ? { retrievedAt } : {}),
      };
    },
  };
}
