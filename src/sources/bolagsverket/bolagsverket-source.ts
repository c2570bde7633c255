import { randomUUID } from 'node:crypto';
import type { IdentifierType } from '../../formats/format-rule.js';
import { type Clock, systemClock } from '../../lib/clock.js';
import type { BucketPolicy } from '../../lib/token-bucket.js';
import { isObject, malformedAnswer, UnexpectedShape } from '../body-shape.js';
import type {
  CompanyRecord,
  LookupQuery,
  LookupResult,
  RecordNote,
  RegistrySource,
  SearchResult,
  SourceInfo,
} from '../registry-source.js';
import type { SourceCoverage } from '../source-coverage.js';
import { unavailableFrom } from '../source-text.js';
import type { UpstreamClient, UpstreamResult } from '../upstream/upstream-client.js';
import {
  activeFlagOf,
  bolagsverketRecord,
  ElementFailure,
  isNotHeld,
} from './bolagsverket-record.js';
import { bolagsverketTokenCache, bolagsverketTokenUrl } from './bolagsverket-token.js';

/**
 * Bolagsverket's API for high-value datasets (API för värdefulla datamängder, OpenAPI
 * "VärdefullaDatamängder" v1): `POST /organisationer` with `{"identitetsbeteckning": "..."}`
 * answers the organisations registered under that number. Free, no agreement, OAuth 2.0 client
 * credentials (`BOLAGSVERKET_CLIENT_ID`, `BOLAGSVERKET_CLIENT_SECRET`). It has no search by name.
 * docs/sources/bolagsverket.md records the terms, the coverage and the status table.
 */
export const BOLAGSVERKET_DEFAULT_BASE_URL =
  'https://gw.api.bolagsverket.se/vardefulla-datamangder/v1';

/**
 * Bolagsverket's page for the API: "Prestandan för detta API tillåter varje användare att göra 60
 * frågor/minut". One a second with bursts of 10 keeps under it whatever the burst (token requests
 * included, once an hour); the shared record cache keeps repeated lookups of a number away from it.
 */
export const BOLAGSVERKET_BUDGET: BucketPolicy = { capacity: 10, refillPerSecond: 1 };

export const BOLAGSVERKET_INFO: SourceInfo = {
  source_type: 'government_registry',
  source_name: 'Bolagsverket, värdefulla datamängder',
  // The register publishes no free page per organisation.
  source_url: 'https://bolagsverket.se',
};

export const BOLAGSVERKET_COVERAGE: readonly SourceCoverage[] = [
  {
    countryCode: 'SE',
    // The API looks organisations up by number only; SE search stays with GLEIF.
    companySearch: 'not_supported',
    identifiers: [
      // Legal status is partial: an organisation only Statistics Sweden holds has none to read.
      {
        identifierType: 'registration_number',
        registryMatch: 'supported',
        companyLegalStatus: 'partial',
      },
      // SE + the organisation number + 01: the organisation is found by the number it embeds.
      { identifierType: 'vat_number', registryMatch: 'supported', companyLegalStatus: 'partial' },
    ],
  },
];

/** The organisation number (10 digits) in a normalized SE registration number or VAT number. */
export function organisationNumberOf(
  identifierType: IdentifierType,
  normalized: string,
): string | undefined {
  if (identifierType === 'registration_number')
    return /^\d{10}$/.test(normalized) ? normalized : undefined;
  if (identifierType === 'vat_number') return /^SE(\d{10})01$/.exec(normalized)?.[1];
  return undefined;
}

/**
 * A VAT number matched to an organisation Statistics Sweden marks as not active
 * (`verksamOrganisation` NEJ: it holds no F-skatt, VAT or employer registration). Company-record
 * evidence, not a tax authority's finding: no tax authority is asked.
 */
function vatNotes(query: LookupQuery, company: CompanyRecord, flag?: string): RecordNote[] {
  if (query.identifierType !== 'vat_number' || flag !== 'NEJ') return [];
  return [
    {
      code: 'vat_not_registered_in_company_record',
      message: `The record of ${company.registration_number} (Statistics Sweden's flag in Bolagsverket's dataset) says it holds no F-skatt, VAT or employer registration; this is the company record, not a tax authority's answer.`,
      raw_status: 'verksamOrganisation NEJ',
    },
  ];
}

/**
 * Bolagsverket as a registry source for Sweden. A lookup gets a token (cached until shortly
 * before it expires), then asks `POST /organisationer`; a 401 drops the token and asks once more
 * with a new one. An empty `organisationer`, or organisations the register says it does not hold
 * (`ORGANISATION_FINNS_EJ`), is `not_matched`; several (a sole trader's businesses under one
 * number) are `ambiguous`.
 */
export function bolagsverketSource(options: {
  client: UpstreamClient;
  baseUrl: string;
  clientId?: string;
  clientSecret?: string;
  clock?: Clock;
}): RegistrySource {
  const { client } = options;
  const base = options.baseUrl.replace(/\/+$/, '');
  const tokens =
    options.clientId && options.clientSecret
      ? bolagsverketTokenCache({
          client,
          tokenUrl: bolagsverketTokenUrl(base),
          clientId: options.clientId,
          clientSecret: options.clientSecret,
          clock: options.clock ?? systemClock,
        })
      : undefined;

  /** `POST /organisationer` with a current token, and once more with a new one after a 401. */
  async function ask(number: string): Promise<UpstreamResult> {
    if (!tokens)
      return {
        kind: 'unavailable',
        reason: 'rejected',
        detail: `${client.name}: no client credentials configured`,
      };
    for (let attempt = 0; ; attempt++) {
      const token = await tokens.get();
      if (token.kind !== 'ok') return token;
      const result = await client.postJson(
        `${base}/organisationer`,
        { identitetsbeteckning: number },
        {
          authorization: `Bearer ${token.token}`,
          'x-request-id': randomUUID(),
          'user-agent': 'firmwatch (registry check)',
        },
      );
      if (result.kind !== 'unavailable' || result.status !== 401 || attempt > 0) return result;
      tokens.refuse(token.token);
    }
  }

  async function lookup(query: LookupQuery): Promise<LookupResult> {
    if (query.countryCode !== 'SE') return { outcome: 'not_matched' };
    const number = organisationNumberOf(query.identifierType, query.normalized);
    if (!number) return { outcome: 'not_matched' };
    const result = await ask(number);
    // No 404 is documented for /organisationer; one would say the same as an empty answer.
    if (result.kind === 'not_found') return { outcome: 'not_matched', source: BOLAGSVERKET_INFO };
    if (result.kind === 'unavailable') return unavailableFrom(result);
    try {
      const body = result.body;
      if (!isObject(body) || !Array.isArray(body.organisationer))
        throw new UnexpectedShape('not an OrganisationerSvar (no organisationer list)');
      const held = body.organisationer.filter((o) => !isObject(o) || !isNotHeld(o));
      if (held.length === 0)
        return {
          outcome: 'not_matched',
          retrievedAt: result.retrievedAt,
          source: BOLAGSVERKET_INFO,
        };
      const found = held.map((organisation) => ({
        company: bolagsverketRecord(organisation),
        flag: activeFlagOf(organisation as Record<string, unknown>),
      }));
      // A sole trader's number may come back as the 12-digit personnummer (century first).
      const other = found.find(({ company }) => company.registration_number?.slice(-10) !== number);
      if (other)
        throw new UnexpectedShape(`asked for ${number}, got ${other.company.registration_number}`);
      const [first] = found;
      if (found.length > 1 || !first)
        return {
          outcome: 'ambiguous',
          companies: found.map(({ company }) => company),
          retrievedAt: result.retrievedAt,
          source: BOLAGSVERKET_INFO,
        };
      const notes = vatNotes(query, first.company, first.flag);
      return {
        outcome: 'matched',
        company: first.company,
        retrievedAt: result.retrievedAt,
        source: BOLAGSVERKET_INFO,
        ...(notes.length > 0 ? { notes } : {}),
      };
    } catch (error) {
      if (error instanceof ElementFailure)
        return {
          outcome: 'unavailable',
          reason: `${error.reason}: ${client.name}: ${error.message}`,
        };
      return malformedAnswer('bolagsverket', error);
    }
  }

  const supports = (country: string, type: IdentifierType, normalized?: string) =>
    country === 'SE' &&
    (type === 'registration_number' || type === 'vat_number') &&
    (normalized === undefined || organisationNumberOf(type, normalized) !== undefined);

  return {
    info: BOLAGSVERKET_INFO,
    coverage: BOLAGSVERKET_COVERAGE,
    supports,
    lookup,
    // Bolagsverket's API has no search; SE searches go to the next register that has one (GLEIF).
    searches: () => false,
    search: async (): Promise<SearchResult> => ({ outcome: 'ok', companies: [] }),
  };
}
