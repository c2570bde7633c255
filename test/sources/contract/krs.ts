import { type KrsStatusRow, krsSource } from '../../../src/sources/krs/krs-source.js';
import { fixture } from '../fake-register.js';
import type { AdapterContract, StatusCase } from './adapter-contract.js';

/**
 * The KRS open API of the Ministry of Justice (Swagger page prs.ms.gov.pl/krs/openApi, "Otwarte
 * API KRS"): `GET /api/krs/OdpisAktualny/{krs}?rejestr=P|S&format=json`, the current extract of
 * one entity. That page could not be fetched where these fakes were written, so the shapes are
 * those of real answers published in public repositories:
 * - michal-bed/el-proyecte-grande-naspolke, KRSMock.java: complete current extracts captured from
 *   the API (`odpis` {rodzaj "Aktualny", naglowekA {rejestr, numerKRS, dataRejestracjiWKRS,
 *   stanPozycji 1, ...}, dane {dzial1 {danePodmiotu, siedzibaIAdres}, ..., dzial6 {}}});
 * - the section 6 (dział 6) entries as published clients model them (nip24pl/nip24-cs-client,
 *   Dzial6: postepowanieUpadlosciowe, likwidacja, rozwiazanieUniewaznienie,
 *   zawieszenieWznowienie, ...) and probes of the API recorded them;
 * - a number not in the register asked: 404 without a documented body, as every published client
 *   reports (they ask `rejestr=P`, then `rejestr=S`).
 * No rate limit, 429 or error body is published. The sample bodies are
 * test/fixtures/sources/krs/ (krs.test.ts says where each comes from).
 */
const ODPIS =
  'the current extract of GET /api/krs/OdpisAktualny/{krs}?rejestr=P (Otwarte API KRS; as captured in KRSMock.java)';

type Extract = {
  // biome-ignore lint/suspicious/noExplicitAny: the sample extracts are changed field by field
  odpis: { naglowekA: Record<string, unknown>; dane: Record<string, any> };
};
const extract = (file = 'odpis-aktualny-p.json') => fixture<Extract>('krs', file);
/** The sample entrepreneur with its name, section 6 or a header field changed. */
function changed(change: { nazwa?: string; dzial6?: unknown; naglowekA?: object }): Extract {
  const body = extract();
  if (change.nazwa) body.odpis.dane.dzial1.danePodmiotu.nazwa = change.nazwa;
  if (change.dzial6 !== undefined) body.odpis.dane.dzial6 = change.dzial6;
  Object.assign(body.odpis.naglowekA, change.naglowekA ?? {});
  return body;
}
const lookupOf = (normalized: string) =>
  ({ countryCode: 'PL', identifierType: 'registration_number', normalized }) as const;
const extractOf = (register: 'P' | 'S', krs = '0000999001') =>
  `/api/krs/OdpisAktualny/${krs}?rejestr=${register}&format=json`;

/**
 * A case for every row of KRS_LEGAL_STATUS, as the register shows it (a row added to the table
 * does not compile until it has one here).
 */
const STATUSES: Record<KrsStatusRow, Omit<StatusCase, 'value'>> = {
  postepowanieUpadlosciowe: {
    body: {
      value: extract('odpis-aktualny-upadlosc.json'),
      documented: `odpis-aktualny-upadlosc.json: ${ODPIS}, dzial6.postepowanieUpadlosciowe (nip24pl/nip24-cs-client PostepowanieUpadlosciowe) and the name "w upadłości"`,
    },
    query: lookupOf('0000999003'),
    company_legal_status: 'insolvency',
    raw_company_legal_status:
      'postepowanieUpadlosciowe UPADŁOŚĆ ogłoszona 20.05.2026; nazwa w upadłości',
  },
  postepowanieRestrukturyzacyjne: {
    body: {
      value: extract('odpis-aktualny-restrukturyzacja.json'),
      documented: `odpis-aktualny-restrukturyzacja.json: ${ODPIS}, dzial6.postepowanieRestrukturyzacyjneNaprawczePrzymusowaRestrukturyzacjaUporzadkowanaLikwidacja as probes of the API recorded it`,
    },
    query: lookupOf('0000999005'),
    company_legal_status: 'insolvency',
    raw_company_legal_status: 'POSTĘPOWANIE RESTRUKTURYZACYJNE',
  },
  likwidacja: {
    body: {
      value: extract('odpis-aktualny-likwidacja.json'),
      documented: `odpis-aktualny-likwidacja.json: ${ODPIS}, dzial6.likwidacja [{otwarcieLikwidacji, likwidatorzy}] and the name "w likwidacji"`,
    },
    query: lookupOf('0000999004'),
    company_legal_status: 'liquidation',
    raw_company_legal_status:
      'likwidacja: UCHWAŁA NADZWYCZAJNEGO ZGROMADZENIA WSPÓLNIKÓW Z DNIA 01.08.2026; nazwa w likwidacji',
  },
  rozwiazanieUniewaznienie: {
    body: {
      value: changed({
        dzial6: { rozwiazanieUniewaznienie: { okreslenieOkolicznosci: 'ROZWIĄZANIE' } },
      }),
      documented: `odpis-aktualny-p.json with dzial6.rozwiazanieUniewaznienie {okreslenieOkolicznosci}, as published clients of the API model it: ${ODPIS}`,
    },
    company_legal_status: 'liquidation',
    raw_company_legal_status: 'rozwiazanieUniewaznienie: ROZWIĄZANIE',
  },
  wUpadlosci: {
    body: {
      value: changed({ nazwa: 'WIŚLANE NARZĘDZIA S.A. W UPADŁOŚCI' }),
      documented: `odpis-aktualny-p.json with the name a company in bankruptcy must use ("w upadłości", Prawo upadłościowe art. 60): ${ODPIS}`,
    },
    company_legal_status: 'insolvency',
    raw_company_legal_status: 'nazwa w upadłości',
  },
  wRestrukturyzacji: {
    body: {
      value: changed({ nazwa: 'WIŚLANE NARZĘDZIA S.A. W RESTRUKTURYZACJI' }),
      documented: `odpis-aktualny-p.json with the name a company in restructuring must use ("w restrukturyzacji", Prawo restrukturyzacyjne art. 19a): ${ODPIS}`,
    },
    company_legal_status: 'insolvency',
    raw_company_legal_status: 'nazwa w restrukturyzacji',
  },
  wLikwidacji: {
    body: {
      value: changed({ nazwa: 'WIŚLANE NARZĘDZIA SP. Z O.O. W LIKWIDACJI' }),
      documented: `odpis-aktualny-p.json with the name a company in liquidation must use ("w likwidacji", Kodeks spółek handlowych art. 274 §2): ${ODPIS}`,
    },
    company_legal_status: 'liquidation',
    raw_company_legal_status: 'nazwa w likwidacji',
  },
  nieznanyWpisDzialu6: {
    body: {
      value: changed({
        dzial6: { zawieszenieWznowienie: [{ dataZawieszenia: '01.09.2026' }] },
      }),
      documented: `odpis-aktualny-p.json with dzial6.zawieszenieWznowienie [{dataZawieszenia}] (nip24pl/nip24-cs-client Dzial6), a section 6 entry the adapter does not read: ${ODPIS}`,
    },
    company_legal_status: 'unknown',
    raw_company_legal_status: 'dzial6.zawieszenieWznowienie',
  },
  stanPozycji: {
    body: {
      value: changed({ naglowekA: { stanPozycji: 3 } }),
      documented: `odpis-aktualny-p.json with naglowekA.stanPozycji 3 (the captured extracts have 1; other values are not documented): ${ODPIS}`,
    },
    company_legal_status: 'unknown',
    raw_company_legal_status: 'stanPozycji 3',
  },
  brak: {
    body: {
      value: extract(),
      documented: `odpis-aktualny-p.json: ${ODPIS}, dzial6 empty`,
    },
    company_legal_status: 'active',
    raw_company_legal_status: undefined,
  },
};

export const krsContract: AdapterContract = {
  name: 'krs',
  build: ({ client, baseUrl }) => krsSource({ client, baseUrl }),
  contentType: 'application/json',
  lookup: {
    query: lookupOf('0000999001'),
    found: {
      body: { value: extract(), documented: `odpis-aktualny-p.json: ${ODPIS}` },
      company: {
        key: 'krs:0000999001',
        legal_name: 'WIŚLANE NARZĘDZIA SPÓŁKA Z OGRANICZONĄ ODPOWIEDZIALNOŚCIĄ',
        registration_number: '0000999001',
        vat_numbers: [],
        tax_identifiers: ['8567346215'],
        country_code: 'PL',
        company_legal_status: 'active',
        legal_form: 'SPÓŁKA Z OGRANICZONĄ ODPOWIEDZIALNOŚCIĄ',
        incorporation_date: '2012-05-14',
        registered_address: { formatted: 'UL. PRZYKŁADOWA 7/2, 30-001 KRAKÓW' },
        city_or_state: 'KRAKÓW',
      },
      sourceUrl: `https://api-krs.ms.gov.pl${extractOf('P')}`,
      // Found in the register of entrepreneurs: the register of associations is not asked.
      requests: [extractOf('P')],
    },
    notFound: {
      // Neither the register of entrepreneurs nor that of associations has the number.
      style: 'not_found_status',
      status: 404,
      body: {
        value: undefined,
        documented:
          'a 404 for a number not in the register asked, as published clients of the Otwarte API KRS report it (its body not documented: none is sent)',
      },
      requests: [extractOf('P'), extractOf('S')],
    },
    statuses: Object.entries(STATUSES).map(([value, status]) => ({ value, ...status })),
  },
  rateLimited: {
    documented:
      'The Ministry of Justice publishes no request limit and no 429 for the Otwarte API KRS (prs.ms.gov.pl/krs/openApi; docs/sources/krs.md). The fake sends the HTTP standard form, a 429 with Retry-After in seconds (RFC 6585 section 4, RFC 9110 section 10.2.3), without a body.',
    headers: (waitSeconds) => ({ 'retry-after': String(waitSeconds) }),
  },
};
