import { aresSource } from '../../../src/sources/ares/ares-source.js';
import { fixture } from '../fake-register.js';
import type { AdapterContract } from './adapter-contract.js';

/**
 * ARES REST API (Ministry of Finance). Documents: its published OpenAPI description
 * (ares.gov.cz/ekonomicke-subjekty-v-be/rest/v3/api-docs, shown in its Swagger UI):
 * `GET /ekonomicke-subjekty/{ico}` answers an `EkonomickySubjekt`, an unknown IČO a 404 with a
 * `Chyba` (kod, subKod, popis); `POST /ekonomicke-subjekty/vyhledat` answers an
 * `EkonomickeSubjektySeznam` (pocetCelkem, ekonomickeSubjekty). The sample bodies are
 * test/fixtures/sources/ares/ (ares.test.ts says where each comes from).
 */
const SUBJEKT = 'the EkonomickySubjekt of GET /ekonomicke-subjekty/{ico} (ARES OpenAPI)';
const subject = () => fixture('ares', 'ekonomicky-subjekt.json');
const withRegistration = (field: string, state: string) => {
  const body = subject();
  body.seznamRegistraci = { ...(body.seznamRegistraci as object), [field]: state };
  return body;
};
const lookupOf = (normalized: string) =>
  ({ countryCode: 'CZ', identifierType: 'registration_number', normalized }) as const;

export const aresContract: AdapterContract = {
  name: 'ares',
  build: ({ client, baseUrl }) => aresSource({ client, baseUrl }),
  contentType: 'application/json',
  errorBody: {
    value: { kod: 'OBECNA_CHYBA', popis: 'Obecná chyba.' },
    documented: 'the Chyba schema of the ARES OpenAPI (kod OBECNA_CHYBA, popis)',
  },
  lookup: {
    query: lookupOf('27100006'),
    found: {
      body: {
        value: fixture('ares', 'ekonomicky-subjekt.json'),
        documented: `ekonomicky-subjekt.json: ${SUBJEKT}`,
      },
      company: {
        key: 'ares:27100006',
        legal_name: 'Vltavská strojírna s.r.o.',
        registration_number: '27100006',
        vat_numbers: ['CZ27100006'],
        tax_identifiers: [],
        country_code: 'CZ',
        company_legal_status: 'active',
        legal_form: 'Společnost s ručením omezeným',
        incorporation_date: '2004-05-17',
        registered_address: { formatted: 'Jankovcova 1522/53, Holešovice, 17000 Praha 7' },
        city_or_state: 'Praha',
      },
      sourceUrl: 'https://ares.gov.cz/ekonomicke-subjekty?ico=27100006',
      requests: ['/ekonomicke-subjekty/27100006'],
      headers: { 'user-agent': 'firmwatch (registry check)' },
    },
    notFound: {
      style: 'not_found_status',
      status: 404,
      body: {
        value: fixture('ares', 'nenalezeno.json'),
        documented:
          'nenalezeno.json: the 404 Chyba of GET /ekonomicke-subjekty/{ico} (kod NENALEZENO, subKod VYSTUP_SUBJEKT_NENALEZEN)',
      },
      requests: ['/ekonomicke-subjekty/27100006'],
    },
    statuses: [
      {
        value: 'no datumZaniku',
        body: {
          value: fixture('ares', 'ekonomicky-subjekt.json'),
          documented: `ekonomicky-subjekt.json: ${SUBJEKT}`,
        },
        company_legal_status: 'active',
        raw_company_legal_status: undefined,
      },
      {
        value: 'datumZaniku',
        body: {
          value: fixture('ares', 'ekonomicky-subjekt-zanikly.json'),
          documented: `ekonomicky-subjekt-zanikly.json: ${SUBJEKT}, datumZaniku set`,
        },
        query: lookupOf('06400001'),
        company_legal_status: 'dissolved',
        // The ceased sample went through liquidation: its name still carries the addition.
        raw_company_legal_status: 'datumZaniku 2023-03-31; obchodniJmeno v likvidaci',
      },
      {
        value: 'stavZdrojeIr AKTIVNI',
        body: {
          value: fixture('ares', 'ekonomicky-subjekt-insolvence.json'),
          documented: `ekonomicky-subjekt-insolvence.json: ${SUBJEKT}, seznamRegistraci.stavZdrojeIr AKTIVNI`,
        },
        query: lookupOf('25596641'),
        company_legal_status: 'insolvency',
        raw_company_legal_status: 'stavZdrojeIr AKTIVNI',
      },
      {
        value: 'stavZdrojeCeu AKTIVNI',
        body: {
          value: withRegistration('stavZdrojeCeu', 'AKTIVNI'),
          documented: `ekonomicky-subjekt.json with seznamRegistraci.stavZdrojeCeu AKTIVNI: ${SUBJEKT} (SeznamRegistraci: the subject's state in CEÚ, the central register of bankrupts)`,
        },
        company_legal_status: 'insolvency',
        raw_company_legal_status: 'stavZdrojeCeu AKTIVNI',
      },
      {
        value: 'obchodniJmeno ending "v likvidaci"',
        body: {
          value: { ...subject(), obchodniJmeno: 'Vltavská strojírna s.r.o. v likvidaci' },
          documented: `ekonomicky-subjekt.json with the name a company in liquidation must use (Civil Code, 89/2012 Sb.): ${SUBJEKT}`,
        },
        company_legal_status: 'liquidation',
        raw_company_legal_status: 'obchodniJmeno v likvidaci',
      },
    ],
  },
  rateLimited: {
    documented:
      "ARES documents no 429: its operating conditions let the ministry cut off callers who send too many queries, and the OpenAPI describes no 429 response. The fake sends the HTTP standard form, a 429 with Retry-After in seconds (RFC 6585 section 4, RFC 9110 section 10.2.3), with ARES's documented error body (Chyba).",
    headers: (waitSeconds) => ({ 'retry-after': String(waitSeconds) }),
    body: { kod: 'OBECNA_CHYBA', popis: 'Obecná chyba.' },
  },
  search: {
    query: { countryCode: 'CZ', name: 'Vltavská' },
    found: {
      value: {
        pocetCelkem: 2,
        ekonomickeSubjekty: [
          fixture('ares', 'ekonomicky-subjekt.json'),
          fixture('ares', 'ekonomicky-subjekt-zanikly.json'),
        ],
      },
      documented:
        'EkonomickeSubjektySeznam of POST /ekonomicke-subjekty/vyhledat (ARES OpenAPI): pocetCelkem and ekonomickeSubjekty of EkonomickySubjekt',
    },
    keys: ['ares:27100006', 'ares:06400001'],
    empty: {
      value: { pocetCelkem: 0, ekonomickeSubjekty: [] },
      documented: 'the same EkonomickeSubjektySeznam when nothing matches',
    },
    requests: ['/ekonomicke-subjekty/vyhledat'],
  },
};
