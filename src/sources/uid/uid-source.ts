import { cleanIdentifier, type IdentifierType } from '../../formats/format-rule.js';
import type { BucketPolicy } from '../../lib/token-bucket.js';
import { type Json, malformedAnswer, UnexpectedShape } from '../body-shape.js';
import type {
  CompanyLegalStatus,
  CompanyRecord,
  LookupQuery,
  LookupResult,
  RecordNote,
  RegistrySource,
  SearchQuery,
  SearchResult,
  SourceInfo,
} from '../registry-source.js';
import { answeredWithoutAsking } from '../registry-source.js';
import type { SourceCoverage } from '../source-coverage.js';
import { inCityOrState, searchAnswerOfLookup, unavailableFrom } from '../source-text.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import {
  child,
  children,
  getByUidEnvelope,
  SOAP_CONTENT_TYPE,
  searchEnvelope,
  soapAction,
  soapBody,
  text,
  uidFaultOf,
} from './uid-soap.js';

/**
 * The Swiss Federal Statistical Office's (FSO/BFS) UID register, through its public web service
 * `PublicServices` (SOAP, interface version 5.0): `GetByUID` for one UID entity and `Search` by
 * name. Free, no key. The base URL is the service's host; the endpoint is
 * `<base>/V5.0/PublicServices.svc`. docs/sources/uid.md records the terms, the coverage and the
 * status table. `ValidateUID` and `ValidateVatNumber` are not used: the first says less than
 * `GetByUID`, and the second is a VAT question, which checks leave to the record's own evidence.
 */
export const UID_DEFAULT_BASE_URL = 'https://www.uid-wse.admin.ch';
export const UID_SERVICE_PATH = '/V5.0/PublicServices.svc';

/**
 * The FSO limits the public services to 20 requests a minute per client address, and answers one
 * more with a `Request_limit_exceeded` fault ("Maximum number of 20 requests per 1 minute(s)
 * exceeded"). A bucket of 4 refilled at one every 4 seconds sends at most 4 + 15 = 19 in any
 * minute, whatever the register's window; the shared record cache makes one call per UID per
 * window, however many monitors watch it.
 */
export const UID_BUDGET: BucketPolicy = { capacity: 4, refillPerSecond: 0.25 };

/** Results asked of one `Search` (the service's `maxNumberOfRecords`). */
export const UID_SEARCH_MAX_RECORDS = 20;

/**
 * Every legal-status signal a UID entity carries, and what it means; the first row that applies
 * decides, in this order. `uidregStatusEnterpriseDetail` is eCH-0108's detailed status of the
 * entry in the UID register: 1 provisional, 2 in reactivation, 3 definitive, 4 in mutation (a
 * change being recorded), 5 deleted, 6 definitively deleted, 7 cancelled (a duplicate, replaced by
 * `uidReplacement`). A company in liquidation must add "in Liquidation" (en liquidation, in
 * liquidazione) to its name (Swiss Code of Obligations, art. 739), and the register records the
 * name so: such a name of a live entry is liquidation. A provisional or reactivating entry, a
 * cancelled duplicate, and a code outside the list are `unknown`, never guessed.
 */
export const UID_LEGAL_STATUS = {
  'uidregStatusEnterpriseDetail 5': 'dissolved',
  'uidregStatusEnterpriseDetail 6': 'dissolved',
  'uidregStatusEnterpriseDetail 7': 'unknown',
  'uidregStatusEnterpriseDetail unlisted': 'unknown',
  'uidregStatusEnterpriseDetail absent': 'unknown',
  'uidregStatusEnterpriseDetail 1': 'unknown',
  'uidregStatusEnterpriseDetail 2': 'unknown',
  'organisationName in Liquidation': 'liquidation',
  'uidregStatusEnterpriseDetail 3': 'active',
  'uidregStatusEnterpriseDetail 4': 'active',
} as const satisfies Record<string, CompanyLegalStatus>;

type StatusRow = keyof typeof UID_LEGAL_STATUS;

const LISTED_CODES = ['1', '2', '3', '4', '5', '6', '7'] as const;

/** The addition a name carries during liquidation (German, French, Italian), at its end. */
const IN_LIQUIDATION = /\b(in\s+liquidation|en\s+liquidation|in\s+liquidazione)\s*$/i;

/** eCH-0108's `vatStatus` of an entity in the VAT register (MWST/TVA/IVA). */
export const UID_VAT_REGISTERED = '2';

const PUBLIC_URL = 'https://www.uid.admin.ch';

export const UID_INFO: SourceInfo = {
  source_type: 'government_registry',
  source_name: 'Swiss UID register (Federal Statistical Office)',
  source_url: PUBLIC_URL,
};

/** The UID register's public page of one entity (CHE-NNN.NNN.NNN). */
export function uidRecordUrl(digits: string): string {
  return `${PUBLIC_URL}/Detail.aspx?uid_id=${formatUid(digits)}`;
}

/** CHE-NNN.NNN.NNN, as the register writes a UID. */
export function formatUid(digits: string): string {
  return `CHE-${digits.slice(0, 3)}.${digits.slice(3, 6)}.${digits.slice(6)}`;
}

export const UID_COVERAGE: readonly SourceCoverage[] = [
  {
    countryCode: 'CH',
    companySearch: 'supported',
    identifiers: [
      // Legal status is partial: the UID register records no insolvency proceedings, and a
      // provisional or cancelled entry has no status to read.
      {
        identifierType: 'registration_number',
        registryMatch: 'supported',
        companyLegalStatus: 'partial',
      },
      // A VAT number is the entity's UID with MWST/TVA/IVA: found by the UID it is, and the
      // record's VAT-register information decides whether the record lists it.
      { identifierType: 'vat_number', registryMatch: 'supported', companyLegalStatus: 'partial' },
    ],
  },
];

/** The 9 digits of a normalized CH number (CHE + 9 digits), either identifier type. */
export function uidDigitsOf(normalized: string): string | undefined {
  return /^CHE(\d{9})$/.exec(normalized)?.[1];
}

/** The digits of an eCH-0097 uidStructureType (category CHE), or an UnexpectedShape. */
function uidOf(node: Json | undefined, field: string): string {
  const category = node ? text(node, 'uidOrganisationIdCategorie') : undefined;
  const digits = node ? text(node, 'uidOrganisationId') : undefined;
  if (category !== 'CHE' || !digits || !/^\d{9}$/.test(digits))
    throw new UnexpectedShape(`${field} is not a CHE UID of 9 digits`);
  return digits;
}

interface Address {
  formatted: string;
  town?: string;
}

/** The legal address (addressCategory LEGAL), else the first, as eCH-0098 gives it. */
function addressOf(organisation: Json): Address | undefined {
  const addresses = children(organisation, 'address');
  const chosen = addresses.find((a) => text(a, 'addressCategory') === 'LEGAL') ?? addresses[0];
  if (!chosen) return undefined;
  const part = (field: string) => text(chosen, field)?.trim() || undefined;
  const town = part('town');
  const street = [part('street'), part('houseNumber')].filter(Boolean).join(' ');
  const box = part('postOfficeBoxNumber');
  const country = part('countryIdISO2');
  const parts = [
    part('addressLine1'),
    part('addressLine2'),
    street || undefined,
    box ? `Postfach ${box}` : undefined,
    [part('swissZipCode') ?? part('foreignZipCode'), town].filter(Boolean).join(' ') || undefined,
    country && country !== 'CH' ? country : undefined,
  ].filter((p): p is string => !!p);
  if (parts.length === 0) return undefined;
  return { formatted: parts.join(', '), ...(town ? { town } : {}) };
}

/** The legal status by the first row of UID_LEGAL_STATUS that applies, and its raw wording. */
function statusOf(entity: Json, name: string): { row: StatusRow; raw: string[] } {
  const uidreg = child(entity, 'uidregInformation');
  const code = uidreg ? text(uidreg, 'uidregStatusEnterpriseDetail') : undefined;
  const replacement = uidreg ? child(uidreg, 'uidReplacement') : undefined;
  const register = child(entity, 'commercialRegisterInformation');
  const registerStatus = register ? text(register, 'commercialRegisterStatus') : undefined;
  const registerDeleted = register
    ? text(register, 'commercialRegisterLiquidationDate')
    : undefined;
  const inLiquidation = IN_LIQUIDATION.test(name);
  const raw = [
    code === undefined
      ? 'uidregStatusEnterpriseDetail absent'
      : `uidregStatusEnterpriseDetail ${code}`,
    ...(replacement ? [`uidReplacement ${formatUid(uidOf(replacement, 'uidReplacement'))}`] : []),
    ...(registerStatus ? [`commercialRegisterStatus ${registerStatus}`] : []),
    ...(registerDeleted ? [`commercialRegisterLiquidationDate ${registerDeleted}`] : []),
    ...(inLiquidation ? ['organisationName in Liquidation'] : []),
  ];
  const listed = code !== undefined && (LISTED_CODES as readonly string[]).includes(code);
  const row: StatusRow =
    code === undefined
      ? 'uidregStatusEnterpriseDetail absent'
      : !listed
        ? 'uidregStatusEnterpriseDetail unlisted'
        : inLiquidation && (code === '3' || code === '4')
          ? 'organisationName in Liquidation'
          : (`uidregStatusEnterpriseDetail ${code}` as StatusRow);
  return { row, raw };
}

/** The VAT-register information: its state and the UID its VAT number is. */
function vatOf(entity: Json): { status?: string; uidVat?: string; raw: string } {
  const vat = child(entity, 'vatRegisterInformation');
  if (!vat) return { raw: 'vatRegisterInformation absent' };
  const status = text(vat, 'vatStatus');
  const uidVatNode = child(vat, 'uidVat');
  const uidVat = uidVatNode ? uidOf(uidVatNode, 'uidVat') : undefined;
  const ended = text(vat, 'vatLiquidationDate');
  const raw = [
    `vatStatus ${status ?? 'absent'}`,
    ...(uidVat ? [`uidVat ${formatUid(uidVat)}`] : []),
    ...(ended ? [`vatLiquidationDate ${ended}`] : []),
  ].join('; ');
  return { ...(status ? { status } : {}), ...(uidVat ? { uidVat } : {}), raw };
}

/**
 * An eCH-0108 organisationType as the service sends it (in `GetByUIDResult`, and as a search
 * result's `organisation`), or an UnexpectedShape.
 */
export function uidRecord(entity: Json): CompanyRecord {
  const organisation = child(entity, 'organisation');
  const identification = organisation
    ? child(organisation, 'organisationIdentification')
    : undefined;
  if (!organisation || !identification)
    throw new UnexpectedShape('no organisation.organisationIdentification');
  const digits = uidOf(child(identification, 'uid'), 'uid');
  const name = (
    text(identification, 'organisationLegalName') ?? text(identification, 'organisationName')
  )?.trim();
  if (!name) throw new UnexpectedShape('no organisationName');
  const legalForm = text(identification, 'legalForm');
  const { row, raw } = statusOf(entity, name);
  const address = addressOf(organisation);
  const vat = vatOf(entity);
  return {
    key: `uid:CHE${digits}`,
    legal_name: name,
    registration_number: `CHE${digits}`,
    // The VAT-register entry is company-record evidence only: it lists the number, nothing more.
    vat_numbers: vat.status === UID_VAT_REGISTERED && vat.uidVat ? [`CHE${vat.uidVat}`] : [],
    tax_identifiers: [],
    country_code: 'CH',
    company_legal_status: UID_LEGAL_STATUS[row],
    raw_company_legal_status: raw.join('; '),
    ...(legalForm ? { legal_form: `eCH-0097 ${legalForm}` } : {}),
    ...(address ? { registered_address: { formatted: address.formatted } } : {}),
    ...(address?.town ? { city_or_state: address.town } : {}),
  };
}

/**
 * A VAT number matched to an entity whose record does not list it as its VAT number (no current
 * VAT-register entry, or one under another UID, a VAT group's), said as the register says it.
 * Company-record evidence, not a tax authority's finding: no tax authority is asked.
 */
function vatNotes(query: LookupQuery, company: CompanyRecord, entity: Json): RecordNote[] {
  if (query.identifierType !== 'vat_number' || company.vat_numbers.includes(query.normalized))
    return [];
  return [
    {
      code: 'vat_not_registered_in_company_record',
      message: `The UID register does not record ${formatUid(query.normalized.slice(3))} MWST as this entity's VAT number (its VAT-register information); this is the company record, not a tax authority's answer.`,
      raw_status: vatOf(entity).raw,
    },
  ];
}

/**
 * The UID register as a registry source for Switzerland. A lookup asks `GetByUID`; an empty
 * `GetByUIDResult` is `not_matched`. Every failure (a fault, the limit, a body of another shape) is
 * `unavailable`.
 */
export function uidSource(options: {
  client: UpstreamClient;
  baseUrl: string;
  apiKey?: string;
}): RegistrySource {
  const { client } = options;
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}${UID_SERVICE_PATH}`;

  const call = (operation: 'GetByUID' | 'Search', body: string) =>
    client.postText(
      endpoint,
      { body, contentType: SOAP_CONTENT_TYPE, failureOf: uidFaultOf },
      { soapaction: soapAction(operation), 'user-agent': 'firmwatch (registry check)' },
    );

  /** The service never says "no such entity" with a 404: one means the endpoint is not there. */
  const endpointMissing = () =>
    ({
      outcome: 'unavailable',
      reason: 'rejected: uid: the service endpoint answered 404',
    }) as const;

  async function fetchEntity(digits: string, query?: LookupQuery): Promise<LookupResult> {
    const result = await call('GetByUID', getByUidEnvelope(digits));
    if (result.kind === 'not_found') return endpointMissing();
    if (result.kind === 'unavailable') return unavailableFrom(result);
    try {
      const response = child(soapBody(String(result.body)), 'GetByUIDResponse');
      if (!response || !('GetByUIDResult' in response))
        throw new UnexpectedShape('no GetByUIDResponse.GetByUIDResult');
      const entities = children(child(response, 'GetByUIDResult') ?? {}, 'organisationType');
      const found = entities.map((entity) => ({ entity, company: uidRecord(entity) }));
      const hit = found.find(({ company }) => company.registration_number === `CHE${digits}`);
      if (!hit) {
        if (found.length > 0) throw new UnexpectedShape(`asked for CHE${digits}, got others`);
        return { outcome: 'not_matched', retrievedAt: result.retrievedAt, source: UID_INFO };
      }
      const notes = query ? vatNotes(query, hit.company, hit.entity) : [];
      return {
        outcome: 'matched',
        company: hit.company,
        retrievedAt: result.retrievedAt,
        source: { ...UID_INFO, source_url: uidRecordUrl(digits) },
        ...(notes.length > 0 ? { notes } : {}),
      };
    } catch (error) {
      return malformedAnswer('uid', error);
    }
  }

  /** `Search` by organisation name: one page; the city filter is applied here, on the town. */
  async function searchByName(query: SearchQuery): Promise<SearchResult> {
    const result = await call(
      'Search',
      searchEnvelope(query.name?.trim() ?? '', UID_SEARCH_MAX_RECORDS),
    );
    if (result.kind === 'not_found') return endpointMissing();
    if (result.kind === 'unavailable') return unavailableFrom(result);
    let companies: CompanyRecord[];
    try {
      const response = child(soapBody(String(result.body)), 'SearchResponse');
      if (!response || !('SearchResult' in response))
        throw new UnexpectedShape('no SearchResponse.SearchResult');
      const items = children(child(response, 'SearchResult') ?? {}, 'uidEntitySearchResultItem');
      companies = items.map((item) => {
        const entity = child(item, 'organisation');
        if (!entity) throw new UnexpectedShape('a result item has no organisation');
        return uidRecord(entity);
      });
    } catch (error) {
      return malformedAnswer('uid', error);
    }
    return {
      outcome: 'ok',
      companies: companies.filter((c) => inCityOrState(c, query.cityOrState)),
      retrievedAt: result.retrievedAt,
      source: UID_INFO,
    };
  }

  async function lookup(query: LookupQuery): Promise<LookupResult> {
    if (query.countryCode !== 'CH') return { outcome: 'not_matched' };
    const digits = uidDigitsOf(query.normalized);
    if (!digits) return { outcome: 'not_matched' };
    return fetchEntity(digits, query);
  }

  async function search(query: SearchQuery): Promise<SearchResult> {
    if (query.countryCode !== 'CH') return { outcome: 'ok', companies: [] };
    const wanted = new Set<string>();
    for (const number of [query.registrationNumber, query.vatNumber]) {
      if (number === undefined) continue;
      const digits = /^(?:CHE)?(\d{9})(?:MWST|TVA|IVA|TPV)?$/.exec(cleanIdentifier(number))?.[1];
      // A number that cannot be a UID matches no entity.
      if (!digits) return answeredWithoutAsking(UID_INFO);
      wanted.add(digits);
    }
    if (wanted.size === 0) return searchByName(query);
    const [digits] = wanted;
    if (wanted.size > 1 || !digits) return answeredWithoutAsking(UID_INFO);
    return searchAnswerOfLookup(await fetchEntity(digits), query, UID_INFO);
  }

  return {
    info: UID_INFO,
    coverage: UID_COVERAGE,
    supports: (country, type: IdentifierType) =>
      country === 'CH' && (type === 'registration_number' || type === 'vat_number'),
    lookup,
    searches: (country) => country === 'CH',
    search,
  };
}
