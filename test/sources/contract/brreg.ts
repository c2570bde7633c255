import { brregSource } from '../../../src/sources/brreg/brreg-source.js';
import { fixture } from '../fake-register.js';
import type { AdapterContract } from './adapter-contract.js';

/**
 * Brønnøysund Enhetsregisteret, open data API. Documents:
 * - the published OpenAPI description (github.com/brreg/openAPI, specs/enhetsregisteret.yml):
 *   `GET /enheter/{organisasjonsnummer}` answers an `Enhet`, 404 "Enheten finnes ikke" and 410
 *   "Enheten er fjernet"; `GET /underenheter/{organisasjonsnummer}` 404 "Underenhet finnes ikke";
 *   neither 404 has a body in the description, and no 429 is described (only "default: Udefinert
 *   feil");
 * - the API documentation (data.brreg.no/enhetsregisteret/api/dokumentasjon, "Hent en spesifikk
 *   enhet", "Søk etter enheter") for the Enhet's status fields and dates and the search page.
 * The sample bodies are test/fixtures/sources/brreg/ (brreg.test.ts says where each comes from).
 */
const ENHET = 'the Enhet of GET /enheter/{orgnr} (specs/enhetsregisteret.yml, API documentation)';
const unit = (change: Record<string, unknown> = {}) => ({
  ...fixture('brreg', 'enhet.json'),
  ...change,
});
const lookupOf = (normalized: string) =>
  ({ countryCode: 'NO', identifierType: 'registration_number', normalized }) as const;

export const brregContract: AdapterContract = {
  name: 'brreg',
  build: ({ client, baseUrl }) => brregSource({ client, baseUrl }),
  contentType: 'application/json',
  lookup: {
    query: lookupOf('995525828'),
    found: {
      body: { value: unit(), documented: `enhet.json: ${ENHET}` },
      company: {
        key: 'brreg:995525828',
        legal_name: 'FJORDLYS TEKNIKK AS',
        registration_number: '995525828',
        vat_numbers: ['NO995525828MVA'],
        tax_identifiers: [],
        country_code: 'NO',
        company_legal_status: 'active',
        legal_form: 'Aksjeselskap',
        incorporation_date: '2010-02-15',
        registered_address: { formatted: 'Bryggen 7, 5003 BERGEN' },
        city_or_state: 'BERGEN',
        website: 'www.fjordlys.example',
      },
      sourceUrl: 'https://data.brreg.no/enhetsregisteret/oppslag/enheter/995525828',
      requests: ['/enheter/995525828'],
      headers: { 'user-agent': 'firmwatch (registry check)' },
    },
    notFound: {
      // No unit has the number, and no sub-unit either: both 404s, as the description gives them.
      style: 'not_found_status',
      status: 404,
      body: {
        value: undefined,
        documented:
          'specs/enhetsregisteret.yml: 404 "Enheten finnes ikke" and "Underenhet finnes ikke", without a body',
      },
      requests: ['/enheter/995525828', '/underenheter/995525828'],
    },
    statuses: [
      {
        value: 'no status signal',
        body: { value: unit(), documented: `enhet.json: ${ENHET}` },
        company_legal_status: 'active',
        raw_company_legal_status: undefined,
      },
      {
        value: 'slettedato',
        body: {
          value: fixture('brreg', 'enhet-slettet.json'),
          documented: `enhet-slettet.json: ${ENHET}, a deleted unit (slettedato)`,
        },
        query: lookupOf('988077917'),
        company_legal_status: 'dissolved',
        raw_company_legal_status: 'slettedato 2021-06-30',
      },
      {
        value: 'konkurs',
        body: {
          value: unit({ konkurs: true, konkursdato: '2024-05-06' }),
          documented: `${ENHET}: konkurs and konkursdato`,
        },
        company_legal_status: 'insolvency',
        raw_company_legal_status: 'konkurs; konkursdato 2024-05-06',
      },
      {
        value: 'underRekonstruksjonsforhandlingDato',
        body: {
          value: fixture('brreg', 'enhet-rekonstruksjon.json'),
          documented: `enhet-rekonstruksjon.json: ${ENHET}, underRekonstruksjonsforhandlingDato`,
        },
        query: lookupOf('911223341'),
        company_legal_status: 'insolvency',
        raw_company_legal_status: 'underRekonstruksjonsforhandlingDato 2025-09-15',
      },
      {
        value: 'underUtenlandskInsolvensbehandlingDato',
        body: {
          value: unit({ underUtenlandskInsolvensbehandlingDato: '2024-03-01' }),
          documented: `${ENHET}: underUtenlandskInsolvensbehandlingDato`,
        },
        company_legal_status: 'insolvency',
        raw_company_legal_status: 'underUtenlandskInsolvensbehandlingDato 2024-03-01',
      },
      {
        value: 'underTvangsavviklingEllerTvangsopplosning',
        body: {
          value: fixture('brreg', 'enhet-tvangsopplost.json'),
          documented: `enhet-tvangsopplost.json: ${ENHET}, underTvangsavviklingEllerTvangsopplosning and tvangsopplostPgaMangelfulltStyreDato`,
        },
        query: lookupOf('987654325'),
        company_legal_status: 'liquidation',
        raw_company_legal_status:
          'underTvangsavviklingEllerTvangsopplosning; tvangsopplostPgaMangelfulltStyreDato 2024-02-12',
      },
      {
        value: 'underAvvikling',
        body: {
          value: unit({ underAvvikling: true, underAvviklingDato: '2024-03-01' }),
          documented: `${ENHET}: underAvvikling and underAvviklingDato`,
        },
        company_legal_status: 'liquidation',
        raw_company_legal_status: 'underAvvikling; underAvviklingDato 2024-03-01',
      },
    ],
  },
  rateLimited: {
    documented:
      'Brønnøysund documents no request limit and no 429 (specs/enhetsregisteret.yml describes none; docs/sources/brreg.md). The fake sends the HTTP standard form, a 429 with Retry-After in seconds (RFC 6585 section 4, RFC 9110 section 10.2.3), without a body.',
    headers: (waitSeconds) => ({ 'retry-after': String(waitSeconds) }),
  },
  search: {
    query: { countryCode: 'NO', name: 'Fjordlys' },
    found: {
      value: fixture('brreg', 'search.json'),
      documented: 'search.json: a page of GET /enheter (API documentation, "Søk etter enheter")',
    },
    keys: ['brreg:995525828', 'brreg:910000012'],
    empty: {
      value: fixture('brreg', 'search-empty.json'),
      documented: 'search-empty.json: the same page when nothing matches (no _embedded)',
    },
    requests: ['/enheter?size=25&navn=Fjordlys'],
  },
};
