import type { IncomingMessage, ServerResponse } from 'node:http';
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import type { Handler } from './fake-register.js';

/**
 * A fake of GUS's REGON BIR1.1 service (UslugaBIRzewnPubl.svc), shaped from these documents:
 *
 * - The service's WSDL, https://wyszukiwarkaregon.stat.gov.pl/wsBIR/wsdl/UslugaBIRzewnPubl-ver11-prod.wsdl
 *   (a copy is published in johnzuk/GusApi, tests/UslugaBIRzewnPubl.xsd): operations Zaloguj
 *   (pKluczUzytkownika -> ZalogujResult), DaneSzukajPodmioty (pParametryWyszukiwania of
 *   DataContract ParametryWyszukiwania: Krs, Krsy, Nip, Nipy, Regon, Regony14zn, Regony9zn ->
 *   DaneSzukajPodmiotyResult, a string) in namespace http://CIS/BIR/PUBL/2014/07, and GetValue
 *   (pNazwaParametru -> GetValueResult) in http://CIS/BIR/2014/07; SOAP 1.2 binding with
 *   WS-Addressing (wsaw:UsingAddressing), actions `<namespace>/IUslugaBIRzewnPubl/<operation>` and
 *   `http://CIS/BIR/2014/07/IUslugaBIR/GetValue`.
 * - GUS's "BIR1.1 Usługa sieciowa - dokumentacja" (api.stat.gov.pl/Home/RegonApi), as the
 *   published clients quote it (its PDF was not in our document store): the session id returned
 *   by Zaloguj is sent as the `sid` HTTP header; an empty Zaloguj result means the key was not
 *   accepted; GetValue parameters StatusSesji, KomunikatKod, KomunikatTresc; KomunikatKod 0 (the
 *   previous operation succeeded), 2 (too many identifiers), 4 ("Nie znaleziono podmiotów."),
 *   5 (report name), 7 ("Brak sesji. Sesja wygasła lub przekazano nieprawidłową wartość nagłówka
 *   sid."). Sources: johnzuk/GusApi src/GusApi/RegonConstantsInterface.php (codes 1, 2, 4, 5, 7)
 *   and tests/Integration/GusApiTest.php (run against the test service: not found gives
 *   KomunikatKod 4, "Nie znaleziono podmiotów.", session status 1).
 * - The search result: an XML document `<root><dane>` with Regon, Nip, StatusNip, Nazwa,
 *   Wojewodztwo, Powiat, Gmina, Miejscowosc, KodPocztowy, Ulica, NrNieruchomosci, NrLokalu, Typ,
 *   SilosID, DataZakonczeniaDzialalnosci, MiejscowoscPoczty (johnzuk/GusApi
 *   tests/resources/response/searchDataResponseResultSingle.xsd, a test-service answer); StatusNip
 *   empty, "Uchylony" or "Unieważniony" (clients' enumerations of the documented values).
 * - Not found, as BIR1.1 answers today: a result `<root><dane><ErrorCode>4</ErrorCode>
 *   <ErrorMessagePl>Nie znaleziono podmiotu dla podanych kryteriów wyszukiwania.</ErrorMessagePl>
 *   <ErrorMessageEn>No data found for the specified search criteria.</ErrorMessageEn><Nip>…</Nip>
 *   </dane></root>` (johnzuk/GusApi src/GusApi/Util/DataSearchDecoder.php reads ErrorCode 4;
 *   janexpl/guslookup's examples carry this exact answer), with KomunikatKod 4 after it; and in
 *   the documentation's original style, an empty result whose KomunikatKod is 4
 *   (`notFoundStyle: 'empty_result'`). An unknown or expired sid gets an empty result too, and
 *   KomunikatKod 7.
 * - The answer's framing: BIR (a WCF service with MTOM) answers multipart/related, one
 *   application/xop+xml part holding the SOAP 1.2 envelope, even without attachments:
 *   johnzuk/GusApi tests/resources/rawSOAPResponse.xsd (a captured Zaloguj answer: boundary
 *   `uuid:…+id=…`, Content-ID <http://tempuri.org/0>, Content-Transfer-Encoding 8bit,
 *   Content-Type application/xop+xml;charset=utf-8;type="application/soap+xml", envelope with
 *   a:Action …Response) and src/GusApi/Client/MultipartResponseDecoder.php; the HTTP Content-Type
 *   is WCF's MTOM form (Microsoft's WCF "MTOM Encoding" sample: multipart/related;
 *   type="application/xop+xml"; start="<http://tempuri.org/0>"; boundary=…;
 *   start-info="application/soap+xml").
 */
const BOUNDARY = 'uuid:bc087375-9102-48d6-ae2d-c133e8ed89eb+id=8624';
export const BIR_CONTENT_TYPE = `multipart/related; type="application/xop+xml"; start="<http://tempuri.org/0>"; boundary="${BOUNDARY}"; start-info="application/soap+xml"`;

const PUBL = 'http://CIS/BIR/PUBL/2014/07';
const BIR = 'http://CIS/BIR/2014/07';
const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_' });
const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
});

/** An answer envelope in its MTOM framing, the operation's Result holding `result` (escaped). */
export function birAnswer(operation: string, result: string): string {
  const namespace = operation === 'GetValue' ? BIR : PUBL;
  const contract = operation === 'GetValue' ? 'IUslugaBIR' : 'IUslugaBIRzewnPubl';
  const envelope = builder.build({
    's:Envelope': {
      '@_xmlns:s': 'http://www.w3.org/2003/05/soap-envelope',
      '@_xmlns:a': 'http://www.w3.org/2005/08/addressing',
      's:Header': {
        'a:Action': {
          '@_s:mustUnderstand': '1',
          '#text': `${namespace}/${contract}/${operation}Response`,
        },
      },
      's:Body': {
        [`${operation}Response`]: { '@_xmlns': namespace, [`${operation}Result`]: result },
      },
    },
  });
  return [
    `--${BOUNDARY}`,
    'Content-ID: <http://tempuri.org/0>',
    'Content-Transfer-Encoding: 8bit',
    'Content-Type: application/xop+xml;charset=utf-8;type="application/soap+xml"',
    '',
    envelope,
    `--${BOUNDARY}--`,
    '',
  ].join('\r\n');
}

/** One search row (`dane`), in the documented field order; fields not given are empty. */
export type BirRow = Partial<Record<(typeof ROW_FIELDS)[number], string>>;
const ROW_FIELDS = [
  'Regon',
  'Nip',
  'StatusNip',
  'Nazwa',
  'Wojewodztwo',
  'Powiat',
  'Gmina',
  'Miejscowosc',
  'KodPocztowy',
  'Ulica',
  'NrNieruchomosci',
  'NrLokalu',
  'Typ',
  'SilosID',
  'DataZakonczeniaDzialalnosci',
  'MiejscowoscPoczty',
] as const;

export function searchResult(...rows: BirRow[]): string {
  return builder.build({
    root: { dane: rows.map((row) => Object.fromEntries(ROW_FIELDS.map((f) => [f, row[f] ?? '']))) },
  });
}

export function notFoundResult(parameter: 'Nip' | 'Regon', value: string): string {
  return builder.build({
    root: {
      dane: {
        ErrorCode: '4',
        ErrorMessagePl: 'Nie znaleziono podmiotu dla podanych kryteriów wyszukiwania.',
        ErrorMessageEn: 'No data found for the specified search criteria.',
        [parameter]: value,
      },
    },
  });
}

/** The sample legal person (Typ P), invented in the test service's shape. */
export const SAMPLE_ENTITY: BirRow = {
  Regon: '192598184',
  Nip: '8567346215',
  Nazwa: 'MAZOWIECKIE NARZĘDZIA SPÓŁKA Z OGRANICZONĄ ODPOWIEDZIALNOŚCIĄ',
  Wojewodztwo: 'MAZOWIECKIE',
  Powiat: 'm. st. Warszawa',
  Gmina: 'Śródmieście',
  Miejscowosc: 'Warszawa',
  KodPocztowy: '00-950',
  Ulica: 'ul. Test-Wilcza',
  NrNieruchomosci: '12',
  NrLokalu: '4',
  Typ: 'P',
  SilosID: '6',
  MiejscowoscPoczty: 'Warszawa',
};

export const TEST_KEY = 'abcde12345abcde12345';

export interface BirFake {
  handler: Handler;
  /** Rows by `Nip:<nip>` or `Regon:<regon>`. */
  entities: Map<string, BirRow[]>;
  /** Operations asked, in order, and the sid each carried ('' for none). */
  calls: Array<{ operation: string; sid: string }>;
  notFoundStyle: 'error_code' | 'empty_result';
  /** Ends every session, as BIR does after inactivity. */
  expireSessions(): void;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

export function birFake(key = TEST_KEY): BirFake {
  const sessions = new Map<string, string>(); // sid -> KomunikatKod of its last operation
  let issued = 0;
  const fake: BirFake = {
    entities: new Map([
      [`Nip:${SAMPLE_ENTITY.Nip}`, [SAMPLE_ENTITY]],
      [`Regon:${SAMPLE_ENTITY.Regon}`, [SAMPLE_ENTITY]],
    ]),
    calls: [],
    notFoundStyle: 'error_code',
    expireSessions: () => sessions.clear(),
    handler: (request, response) => {
      void readBody(request).then((text) => answer(request, response, text));
    },
  };
  function answer(request: IncomingMessage, response: ServerResponse, text: string) {
    const envelope = parser.parse(text).Envelope;
    const body = envelope?.Body ?? {};
    const operation = Object.keys(body)[0] ?? '';
    const sid = String(request.headers.sid ?? '');
    fake.calls.push({ operation, sid });
    const send = (result: string) => {
      response.writeHead(200, { 'content-type': BIR_CONTENT_TYPE });
      response.end(birAnswer(operation, result));
    };
    if (operation === 'Zaloguj') {
      if (body.Zaloguj?.pKluczUzytkownika !== key) return send('');
      issued += 1;
      const id = `s${String(issued).padStart(19, '0')}`;
      sessions.set(id, '0');
      return send(id);
    }
    if (operation === 'GetValue') {
      const name = body.GetValue?.pNazwaParametru;
      const code = sessions.get(sid);
      if (name === 'StatusSesji') return send(code === undefined ? '0' : '1');
      if (name === 'KomunikatKod') return send(code ?? '7');
      return send('');
    }
    if (operation === 'DaneSzukajPodmioty') {
      if (!sessions.has(sid)) return send('');
      const parameters = body.DaneSzukajPodmioty?.pParametryWyszukiwania ?? {};
      const [name, value] = (Object.entries(parameters)[0] ?? ['', '']) as [string, string];
      const rows = fake.entities.get(`${name}:${value}`);
      if (rows) {
        sessions.set(sid, '0');
        return send(searchResult(...rows));
      }
      sessions.set(sid, '4');
      return send(
        fake.notFoundStyle === 'empty_result'
          ? ''
          : notFoundResult(name === 'Nip' ? 'Nip' : 'Regon', value),
      );
    }
    response.writeHead(500, { 'content-type': 'application/soap+xml' });
    response.end();
  }
  return fake;
}
