import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { isObject, type Json, UnexpectedShape } from '../body-shape.js';

/**
 * Speaking GUS's BIR1.1 service (UslugaBIRzewnPubl, SOAP 1.2 with WS-Addressing). The envelopes
 * are built by fast-xml-parser's builder, which escapes every value (the key, a number), so no
 * request text is ever assembled by hand. Documents: the service's WSDL
 * (wyszukiwarkaregon.stat.gov.pl/wsBIR/wsdl/UslugaBIRzewnPubl-ver11-prod.wsdl) for the operations,
 * their namespaces and actions; GUS's "BIR1.1 Usługa sieciowa - dokumentacja" (api.stat.gov.pl,
 * RegonApi) for the `sid` HTTP header and GetValue. docs/sources/regon.md lists them.
 */
const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';
const ADDRESSING = 'http://www.w3.org/2005/08/addressing';
/** Zaloguj, DaneSzukajPodmioty (namespace and action prefix, WSDL `IUslugaBIRzewnPubl`). */
const PUBL = 'http://CIS/BIR/PUBL/2014/07';
const DATA_CONTRACT = 'http://CIS/BIR/PUBL/2014/07/DataContract';
/** GetValue belongs to the service's base contract (`IUslugaBIR`), in its own namespace. */
const BIR = 'http://CIS/BIR/2014/07';

export type BirOperation = 'Zaloguj' | 'DaneSzukajPodmioty' | 'GetValue';

export const BIR_ACTIONS: Record<BirOperation, string> = {
  Zaloguj: `${PUBL}/IUslugaBIRzewnPubl/Zaloguj`,
  DaneSzukajPodmioty: `${PUBL}/IUslugaBIRzewnPubl/DaneSzukajPodmioty`,
  GetValue: `${BIR}/IUslugaBIR/GetValue`,
};

/** The SOAP 1.2 media type of a request, with its action (RFC 3902's `action` parameter). */
export function birContentType(operation: BirOperation): string {
  return `application/soap+xml; charset=utf-8; action="${BIR_ACTIONS[operation]}"`;
}

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_' });

/** The search parameter BIR is asked by: one NIP, or one REGON of 9 or 14 digits. */
export type SearchParameter = { Nip: string } | { Regon: string };

function envelope(operation: BirOperation, endpoint: string, body: Json): string {
  return builder.build({
    'soap:Envelope': {
      '@_xmlns:soap': SOAP12,
      '@_xmlns:ns': PUBL,
      '@_xmlns:dat': DATA_CONTRACT,
      '@_xmlns:bir': BIR,
      'soap:Header': {
        '@_xmlns:wsa': ADDRESSING,
        'wsa:To': endpoint,
        'wsa:Action': BIR_ACTIONS[operation],
      },
      'soap:Body': body,
    },
  });
}

export const loginEnvelope = (endpoint: string, key: string) =>
  envelope('Zaloguj', endpoint, { 'ns:Zaloguj': { 'ns:pKluczUzytkownika': key } });

export function searchEnvelope(endpoint: string, parameter: SearchParameter): string {
  const [name, value] = Object.entries(parameter)[0] as [string, string];
  return envelope('DaneSzukajPodmioty', endpoint, {
    'ns:DaneSzukajPodmioty': { 'ns:pParametryWyszukiwania': { [`dat:${name}`]: value } },
  });
}

export const getValueEnvelope = (
  endpoint: string,
  name: 'KomunikatKod' | 'KomunikatTresc' | 'StatusSesji',
) => envelope('GetValue', endpoint, { 'bir:GetValue': { 'bir:pNazwaParametru': name } });

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  // Numbers stay text: a NIP or REGON may start with 0.
  parseTagValue: false,
  isArray: (name) => name === 'dane',
});

function parseXml(text: string, what: string): Json {
  if (XMLValidator.validate(text) !== true) throw new UnexpectedShape(`${what} is not XML`);
  const parsed: unknown = parser.parse(text);
  if (!isObject(parsed)) throw new UnexpectedShape(`${what} is not XML`);
  return parsed;
}

/**
 * The SOAP envelope of an answer. BIR answers in a multipart/related (MTOM/XOP) body whose one
 * part is the envelope (`Content-Type: application/xop+xml; type="application/soap+xml"`), even
 * without attachments; a bare envelope is read too. A part without its closing boundary (a body
 * cut off) is not an envelope.
 */
export function envelopeOf(body: string): string {
  const text = body.replace(/^\s+/, '');
  if (text.startsWith('<')) return text;
  if (!text.startsWith('--')) throw new UnexpectedShape('neither an envelope nor a MIME part');
  const delimiter = text.slice(0, text.search(/\r?\n/)).trim();
  if (delimiter.length < 3) throw new UnexpectedShape('no MIME boundary');
  const headersEnd = text.search(/\r?\n\r?\n/);
  if (headersEnd < 0) throw new UnexpectedShape('a MIME part without headers');
  const headers = text.slice(delimiter.length, headersEnd);
  if (!/content-type:\s*application\/xop\+xml/i.test(headers))
    throw new UnexpectedShape('the first MIME part is not application/xop+xml');
  const start = text.indexOf('<', headersEnd);
  const end = text.indexOf(delimiter, headersEnd);
  if (start < 0 || end < 0) throw new UnexpectedShape('the MIME part has no closing boundary');
  return text.slice(start, end).trim();
}

/** The text of `<Operation>Result` in the answer's Body ('' for an empty element). */
export function resultOf(body: string, operation: BirOperation): string {
  const parsed = parseXml(envelopeOf(body), 'the envelope');
  const soapBody = isObject(parsed.Envelope) ? parsed.Envelope.Body : undefined;
  if (!isObject(soapBody)) throw new UnexpectedShape('no SOAP Body');
  if (soapBody.Fault !== undefined) throw new UnexpectedShape('a SOAP Fault with a 200');
  const response = soapBody[`${operation}Response`];
  if (response === '') return '';
  if (!isObject(response)) throw new UnexpectedShape(`no ${operation}Response`);
  const result = response[`${operation}Result`];
  if (result === undefined || result === '') return '';
  if (typeof result !== 'string') throw new UnexpectedShape(`${operation}Result is not text`);
  return result;
}

/** The rows (`dane`) of a DaneSzukajPodmiotyResult, itself an XML document `<root><dane>...`. */
export function rowsOf(result: string): Json[] {
  const parsed = parseXml(result, 'DaneSzukajPodmiotyResult');
  if (!isObject(parsed.root)) throw new UnexpectedShape('DaneSzukajPodmiotyResult has no root');
  const rows = parsed.root.dane;
  if (!Array.isArray(rows) || rows.length === 0 || !rows.every(isObject))
    throw new UnexpectedShape('DaneSzukajPodmiotyResult has no dane');
  return rows as Json[];
}
