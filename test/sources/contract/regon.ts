import { REGON_INFO, regonSource } from '../../../src/sources/regon/regon-source.js';
import {
  BIR_CONTENT_TYPE,
  birAnswer,
  notFoundResult,
  SAMPLE_ENTITY,
  searchResult,
  TEST_KEY,
} from '../regon-fake.js';
import type { AdapterContract } from './adapter-contract.js';

/**
 * GUS's REGON BIR1.1 service (UslugaBIRzewnPubl.svc, SOAP 1.2 with WS-Addressing). Documents:
 * the service's WSDL (wyszukiwarkaregon.stat.gov.pl/wsBIR/wsdl/UslugaBIRzewnPubl-ver11-prod.wsdl)
 * and GUS's BIR1.1 documentation as published clients quote it; every answer is framed as BIR
 * frames it, one MTOM part holding the envelope. test/sources/regon-fake.ts names the document of
 * each answer (the captured Zaloguj answer, the search result's fields, ErrorCode 4).
 */
const SEARCH =
  'a DaneSzukajPodmiotyResponse (WSDL DaneSzukajPodmioty) whose result is <root><dane> with the documented fields, in its MTOM framing';
const search = (row: typeof SAMPLE_ENTITY) => birAnswer('DaneSzukajPodmioty', searchResult(row));

/** A captured session id (johnzuk/GusApi tests/resources/rawSOAPResponse.xsd). */
const SID = 'c47xb5n78ppgc9hks85f';

export const regonContract: AdapterContract = {
  name: 'regon',
  build: ({ client, baseUrl }) => regonSource({ client, baseUrl, apiKey: TEST_KEY }),
  contentType: BIR_CONTENT_TYPE,
  bodies: 'text',
  otherShapes: [
    [
      'an envelope with an empty Body',
      '<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body/></s:Envelope>',
    ],
    ['another operation’s answer', birAnswer('Zaloguj', SID)],
    ['a result that is not XML', birAnswer('DaneSzukajPodmioty', 'OK')],
    ['a result without rows', birAnswer('DaneSzukajPodmioty', '<root></root>')],
    ['a row without its name', search({ ...SAMPLE_ENTITY, Nazwa: '' })],
    ['a row whose Typ is not documented', search({ ...SAMPLE_ENTITY, Typ: 'X' })],
    [
      'a MIME part that is not XOP',
      search(SAMPLE_ENTITY).replace('application/xop+xml', 'text/plain'),
    ],
  ],
  session: {
    opens: (request) => String(request.headers['content-type']).includes('/Zaloguj"'),
    answer: {
      value: (_request, response) => {
        response.writeHead(200, { 'content-type': BIR_CONTENT_TYPE });
        response.end(birAnswer('Zaloguj', SID));
      },
      documented:
        'a ZalogujResponse with its session id, in the MTOM framing of johnzuk/GusApi tests/resources/rawSOAPResponse.xsd (a captured BIR answer)',
    },
  },
  lookup: {
    query: { countryCode: 'PL', identifierType: 'vat_number', normalized: 'PL8567346215' },
    found: {
      body: { value: search(SAMPLE_ENTITY), documented: SEARCH },
      company: {
        key: 'regon:192598184',
        legal_name: SAMPLE_ENTITY.Nazwa,
        registration_number: '192598184',
        vat_numbers: [],
        tax_identifiers: ['8567346215'],
        country_code: 'PL',
        company_legal_status: 'active',
        registered_address: { formatted: 'ul. Test-Wilcza 12/4, 00-950 Warszawa' },
        city_or_state: 'Warszawa',
      },
      sourceUrl: REGON_INFO.source_url as string,
      requests: ['/'],
      headers: {
        sid: SID,
        'content-type':
          'application/soap+xml; charset=utf-8; action="http://CIS/BIR/PUBL/2014/07/IUslugaBIRzewnPubl/DaneSzukajPodmioty"',
      },
    },
    notFound: {
      style: 'empty_results',
      status: 200,
      body: {
        value: birAnswer('DaneSzukajPodmioty', notFoundResult('Nip', '8567346215')),
        documented:
          'BIR1.1’s not-found result: <root><dane><ErrorCode>4</ErrorCode><ErrorMessagePl>Nie znaleziono podmiotu dla podanych kryteriów wyszukiwania.</ErrorMessagePl>… (johnzuk/GusApi DataSearchDecoder.php; janexpl/guslookup examples)',
      },
      requests: ['/'],
    },
    statuses: [
      {
        value: 'DataZakonczeniaDzialalnosci empty',
        body: { value: search(SAMPLE_ENTITY), documented: SEARCH },
        company_legal_status: 'active',
        raw_company_legal_status: undefined,
      },
      {
        value: 'DataZakonczeniaDzialalnosci 2023-06-30',
        body: {
          value: search({ ...SAMPLE_ENTITY, DataZakonczeniaDzialalnosci: '2023-06-30' }),
          documented: `${SEARCH}, DataZakonczeniaDzialalnosci (end of activity) set`,
        },
        company_legal_status: 'dissolved',
        raw_company_legal_status: 'DataZakonczeniaDzialalnosci 2023-06-30',
      },
      {
        value: 'StatusNip Uchylony (the NIP’s status: a note, not a legal status)',
        body: {
          value: search({ ...SAMPLE_ENTITY, StatusNip: 'Uchylony' }),
          documented: `${SEARCH}, StatusNip Uchylony (a documented value of the NIP's status)`,
        },
        company_legal_status: 'active',
        raw_company_legal_status: undefined,
      },
    ],
  },
  rateLimited: {
    documented:
      'BIR documents no 429 and no request limit (its documentation and terms name none). The fake sends the HTTP standard form, a 429 with Retry-After in seconds (RFC 6585 section 4, RFC 9110 section 10.2.3), without a body.',
    headers: (waitSeconds) => ({ 'retry-after': String(waitSeconds) }),
  },
};
