import { gleifSource } from '../../../src/sources/gleif/gleif-source.js';
import { fixture } from '../fake-register.js';
import type { AdapterContract } from './adapter-contract.js';

/**
 * GLEIF API (api.gleif.org/api/v1). Documents: the GLEIF API documentation (its quick-start
 * guide: requests follow the JSON:API specification; "GET /lei-records" with `filter[...]` and
 * `page[size]`; 60 requests per minute per user) and the LEI Common Data File format for the status
 * values (EntityStatus, ExpirationReason, RegistrationStatus). The sample bodies are
 * test/fixtures/sources/gleif/ (gleif.test.ts says where each comes from).
 *
 * Only the members gleif.test.ts does not own are pinned here: the legal form's wording and the
 * search's query are that file's (they are being changed there).
 */
// biome-ignore lint/suspicious/noExplicitAny: fixtures are arbitrary JSON this file edits.
type Json = any;
const RECORDS = 'GET /lei-records (GLEIF API documentation, JSON:API)';

/** The sample record with its entity status (and expiration reason) set. */
function recordWith(status: string, reason: string | null): Json {
  const body = fixture<Json>('gleif', 'lei-records-de.json');
  body.data[0].attributes.entity.status = status;
  body.data[0].attributes.entity.expiration = {
    date: reason ? '2025-12-31T00:00:00Z' : null,
    reason,
  };
  return body;
}

const lookup = (spelling: string) =>
  `/lei-records?filter%5Bentity.registeredAs%5D=${spelling}&filter%5Bentity.legalAddress.country%5D=DE&page%5Bsize%5D=10`;

/** EntityStatus values, with ExpirationReason for an inactive entity (LEI-CDF format). */
const STATUSES: Array<[string, string | null, 'active' | 'inactive' | 'dissolved' | 'unknown']> = [
  ['ACTIVE', null, 'active'],
  ['INACTIVE', null, 'inactive'],
  ['INACTIVE', 'DISSOLVED', 'dissolved'],
  ['INACTIVE', 'CORPORATE_ACTION', 'dissolved'],
  ['INACTIVE', 'OTHER', 'inactive'],
  ['NULL', null, 'unknown'],
];

export const gleifContract: AdapterContract = {
  name: 'gleif',
  build: ({ client, baseUrl }) => gleifSource({ client, baseUrl }),
  // JSON:API's media type.
  contentType: 'application/vnd.api+json',
  errorBody: {
    value: { errors: [{ status: '500', title: 'Internal Server Error' }] },
    documented: 'a JSON:API error document (JSON:API 1.0, "Error Objects"), as the API follows',
  },
  lookup: {
    query: { countryCode: 'DE', identifierType: 'registration_number', normalized: 'HRB99042' },
    found: {
      body: {
        value: fixture('gleif', 'lei-records-de.json'),
        documented: `lei-records-de.json: ${RECORDS}, one record`,
      },
      company: {
        key: 'gleif:529900FIXTUREDE00177',
        legal_name: 'Fixture Maschinenbau AG',
        registration_number: 'HRB 99042',
        vat_numbers: [],
        tax_identifiers: [],
        country_code: 'DE',
        company_legal_status: 'active',
        raw_company_legal_status: 'ACTIVE; LEI ISSUED',
        incorporation_date: '2004-06-07',
        registered_address: { formatted: 'Fixturestraße 1, 60311 Frankfurt am Main, DE' },
        city_or_state: 'Frankfurt am Main',
      },
      sourceUrl: 'https://search.gleif.org/#/record/529900FIXTUREDE00177',
      requests: [lookup('HRB+99042')],
      headers: { accept: 'application/vnd.api+json' },
    },
    notFound: {
      // Every spelling of the number is asked for before the answer is not_matched.
      style: 'empty_results',
      status: 200,
      body: {
        value: fixture('gleif', 'lei-records-empty.json'),
        documented: `lei-records-empty.json: ${RECORDS} with no data`,
      },
      requests: [lookup('HRB+99042'), lookup('HRB99042')],
    },
    statuses: STATUSES.map(([status, reason, expected]) => ({
      value: reason ? `${status} (${reason})` : status,
      body: {
        value: recordWith(status, reason),
        documented: `lei-records-de.json: ${RECORDS}, entity.status ${status}${reason ? `, entity.expiration.reason ${reason}` : ''} (LEI-CDF EntityStatus, ExpirationReason)`,
      },
      company_legal_status: expected,
      raw_company_legal_status: `${reason ? `${status} (${reason})` : status}; LEI ISSUED`,
    })),
  },
  rateLimited: {
    documented:
      'GLEIF documents its limit (60 requests per minute per user, GLEIF API documentation) but not the form of its 429. The fake sends the HTTP standard form, a 429 with Retry-After in seconds (RFC 6585 section 4, RFC 9110 section 10.2.3), with a JSON:API error document.',
    headers: (waitSeconds) => ({ 'retry-after': String(waitSeconds) }),
    body: { errors: [{ status: '429', title: 'Too Many Requests' }] },
  },
  search: {
    query: { countryCode: 'DE', name: 'Fixture Werke' },
    found: {
      value: fixture('gleif', 'lei-records-search.json'),
      documented: `lei-records-search.json: ${RECORDS}, four records, one of them a DUPLICATE LEI`,
    },
    // The DUPLICATE record (…00662) is not a company of its own.
    keys: [
      'gleif:529900FIXTUREDE00468',
      'gleif:529900FIXTUREDE00565',
      'gleif:529900FIXTUREDE00759',
    ],
    empty: {
      value: fixture('gleif', 'lei-records-empty.json'),
      documented: `lei-records-empty.json: ${RECORDS} with no data`,
    },
  },
};
