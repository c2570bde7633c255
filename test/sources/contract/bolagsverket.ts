import { bolagsverketSource } from '../../../src/sources/bolagsverket/bolagsverket-source.js';
import { fixture } from '../fake-register.js';
import { type AdapterContract, answer, type StatusCase } from './adapter-contract.js';

/**
 * Bolagsverket's API for high-value datasets. Documents:
 * - the OpenAPI "VärdefullaDatamängder" v1 (Bolagsverket's developer portal,
 *   portal.api.bolagsverket.se, "Download Swagger"; server
 *   https://gw.api.bolagsverket.se/vardefulla-datamangder/v1): `POST /organisationer` with an
 *   `OrganisationerBegaran` answers an `OrganisationerSvar` (`organisationer`, a list of
 *   `Organisation`), its examples `organisationer-aktiebolag-svar` and
 *   `organisationer-fel-fran-en-uppgiftskalla-svar`, the `Fel`/`FelTyp` of every element, and
 *   `ApiError` (RFC 7807) for 400, 401, 403 and 500;
 * - the portal's code lists (kodlistor): "Pågående avvecklings- eller omstruktureringsförfarande"
 *   (AC, DEOL, DEOT, FR, FUOL, FUOT, GROM, KK, LI, OM, RES) and "Avregistreringsorsak";
 * - the connection establishment guide (Anslutningsanvisning, v1.01): the token endpoint
 *   `/oauth2/token`, the client credentials grant with both scopes, its answer.
 * The sample bodies are test/fixtures/sources/bolagsverket/ (bolagsverket.test.ts says where each
 * comes from).
 */
const SVAR =
  'an OrganisationerSvar of POST /organisationer (OpenAPI VärdefullaDatamängder v1, example organisationer-aktiebolag-svar)';
const organisation = (file = 'organisationer-aktiebolag.json') => fixture('bolagsverket', file);

/** The sample company with one ongoing procedure of the code list. */
function withProcedure(code: string, text: string) {
  const body = organisation() as { organisationer: Record<string, unknown>[] };
  (
    body.organisationer[0] as Record<string, unknown>
  ).pagaendeAvvecklingsEllerOmstruktureringsforfarande = {
    pagaendeAvvecklingsEllerOmstruktureringsforfarandeLista: [
      { kod: code, klartext: text, fromDatum: '2026-10-01' },
    ],
    dataproducent: 'Bolagsverket',
    fel: null,
  };
  return body;
}

/** Each code of the code list on the sample company, and what it means here. */
const PROCEDURES: Array<[string, string, StatusCase['company_legal_status']]> = [
  ['KK', 'Konkurs', 'insolvency'],
  ['FR', 'Företagsrekonstruktion', 'insolvency'],
  ['AC', 'Ackordsförhandling', 'insolvency'],
  ['RES', 'Resolution', 'insolvency'],
  ['LI', 'Likvidation', 'liquidation'],
  ['FUOL', 'Överlåtande i fusion', 'liquidation'],
  ['DEOL', 'Överlåtande vid delning', 'liquidation'],
  ['FUOT', 'Övertagande i fusion', 'active'],
  ['DEOT', 'Övertagande vid delning', 'active'],
  ['OM', 'Ombildning', 'active'],
  ['GROM', 'Gränsöverskridande ombildning', 'active'],
];

const lookupOf = (normalized: string) =>
  ({ countryCode: 'SE', identifierType: 'registration_number', normalized }) as const;

export const bolagsverketContract: AdapterContract = {
  name: 'bolagsverket',
  build: ({ client, baseUrl }) =>
    bolagsverketSource({
      client,
      baseUrl: `${baseUrl}/vardefulla-datamangder/v1`,
      clientId: 'firmwatch-test-client',
      clientSecret: 'firmwatch-test-secret',
    }),
  contentType: 'application/json',
  session: {
    opens: (request) => new URL(request.url ?? '/', 'http://register').pathname === '/oauth2/token',
    answer: {
      value: answer(200, fixture('bolagsverket', 'token.json'), 'application/json'),
      documented:
        'token.json: the token answer of the connection establishment guide (client credentials grant, both scopes, token_type Bearer, expires_in)',
    },
  },
  errorBody: {
    value: fixture('bolagsverket', 'api-error-500.json'),
    documented: 'api-error-500.json: the ApiError of a 500 (OpenAPI VärdefullaDatamängder v1)',
  },
  lookup: {
    query: lookupOf('5299999994'),
    found: {
      body: { value: organisation(), documented: `organisationer-aktiebolag.json: ${SVAR}` },
      company: {
        key: 'bolagsverket:5299999994',
        legal_name: 'Cykelbolaget AB',
        registration_number: '5299999994',
        vat_numbers: [],
        tax_identifiers: [],
        country_code: 'SE',
        company_legal_status: 'active',
        legal_form: 'Aktiebolag',
        incorporation_date: '2000-01-23',
        registered_address: {
          formatted: 'C/o Annat företag, Jobbstigen 2, 12345 Grönköping',
        },
        city_or_state: 'Grönköping',
      },
      sourceUrl: 'https://bolagsverket.se',
      requests: ['/vardefulla-datamangder/v1/organisationer'],
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${fixture<{ access_token: string }>('bolagsverket', 'token.json').access_token}`,
      },
    },
    notFound: {
      style: 'empty_results',
      status: 200,
      body: {
        value: fixture('bolagsverket', 'organisationer-finns-ej.json'),
        documented:
          "organisationer-finns-ej.json: an Organisation whose organisationsnamn carries fel ORGANISATION_FINNS_EJ (FelTyp of the OpenAPI; felBeskrivning as the portal's test data workbook words it)",
      },
      requests: ['/vardefulla-datamangder/v1/organisationer'],
    },
    statuses: [
      {
        value: 'no avregistrering, no pågående förfarande',
        body: { value: organisation(), documented: `organisationer-aktiebolag.json: ${SVAR}` },
        company_legal_status: 'active',
        raw_company_legal_status: undefined,
      },
      {
        value: 'avregistreradOrganisation',
        body: {
          value: organisation('organisationer-avregistrerad.json'),
          documented: `organisationer-avregistrerad.json: ${SVAR}, with its avregistreradOrganisation and avregistreringsorsak LIAV`,
        },
        query: lookupOf('5299999978'),
        company_legal_status: 'dissolved',
        raw_company_legal_status:
          'avregistreradOrganisation 2023-05-05; avregistreringsorsak LIAV Likvidation',
      },
      {
        value: 'KK and LI together',
        body: {
          value: organisation('organisationer-konkurs.json'),
          documented: `organisationer-konkurs.json: ${SVAR}, with its list of KK and LI`,
        },
        query: lookupOf('5299999986'),
        company_legal_status: 'insolvency',
        raw_company_legal_status:
          'pagaende KK Konkurs 2024-01-26; pagaende LI Likvidation 2024-05-26',
      },
      ...PROCEDURES.map(
        ([code, text, status]): StatusCase => ({
          value: `pågående ${code}`,
          body: {
            value: withProcedure(code, text),
            documented: `organisationer-aktiebolag.json with ${code} (${text}) of the code list "Pågående avvecklings- eller omstruktureringsförfarande": ${SVAR}`,
          },
          company_legal_status: status,
          raw_company_legal_status: `pagaende ${code} ${text} 2026-10-01`,
        }),
      ),
      {
        value: 'a code outside the code list',
        body: {
          value: withProcedure('XYZ', 'Okänt förfarande'),
          documented: `organisationer-aktiebolag.json with a code the code list does not have: ${SVAR}`,
        },
        company_legal_status: 'unknown',
        raw_company_legal_status: 'pagaende XYZ Okänt förfarande 2026-10-01',
      },
    ],
  },
  rateLimited: {
    documented:
      "Bolagsverket documents its limit (60 requests a minute, its page on the API) but no 429: the OpenAPI lists 200, 400, 401, 403 and 500. Its gateway is WSO2 API Manager (the OpenAPI's x-throttling-tier and x-auth-type), whose throttled answer is a 429 with {code, message 'Message throttled out', description, nextAccessTime} (WSO2 API Manager documentation, 'Handle Rate Limiting Errors'); the fake adds the HTTP standard Retry-After in seconds (RFC 6585 section 4, RFC 9110 section 10.2.3).",
    headers: (waitSeconds) => ({ 'retry-after': String(waitSeconds) }),
    body: fixture('bolagsverket', 'throttled-out.json'),
  },
};
