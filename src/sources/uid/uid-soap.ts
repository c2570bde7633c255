import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { isObject, type Json, UnexpectedShape } from '../body-shape.js';
import type { FailureReading } from '../upstream/upstream-client.js';

/**
 * SOAP 1.1 as the UID register's public web service (`PublicServices`, interface version 5.0)
 * speaks it: its WSDL (https://www.uid-wse.admin.ch/V5.0/PublicServices.svc?wsdl) declares the
 * operations in the `http://www.uid.admin.ch/xmlns/uid-wse` namespace with the SOAPAction
 * `http://www.uid.admin.ch/xmlns/uid-wse/IPublicServices/<operation>`, and the organisation in the
 * eCH-0108/eCH-0098/eCH-0097 version 5 namespaces. Envelopes are built by an XML builder (every
 * value escaped), never by pasting text into XML.
 */
export const NS = {
  soap: 'http://schemas.xmlsoap.org/soap/envelope/',
  uidWse: 'http://www.uid.admin.ch/xmlns/uid-wse',
  uidWse5: 'http://www.uid.admin.ch/xmlns/uid-wse/5',
  shared: 'http://www.uid.admin.ch/xmlns/uid-wse-shared/2',
  ech0097: 'http://www.ech.ch/xmlns/eCH-0097/5',
} as const;

export const SOAP_CONTENT_TYPE = 'text/xml; charset=utf-8';

/** The quoted SOAPAction header of an operation (SOAP 1.1, section 6.1.1). */
export const soapAction = (operation: 'GetByUID' | 'Search') =>
  `"${NS.uidWse}/IPublicServices/${operation}"`;

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_' });

function envelope(body: Json): string {
  return builder.build({
    'soap:Envelope': {
      '@_xmlns:soap': NS.soap,
      '@_xmlns:uid': NS.uidWse,
      '@_xmlns:uid5': NS.uidWse5,
      '@_xmlns:shared': NS.shared,
      '@_xmlns:ech97': NS.ech0097,
      'soap:Body': body,
    },
  }) as string;
}

/** `GetByUID`: the UID as eCH-0097's uidStructureType (category CHE, 9 digits). */
export function getByUidEnvelope(digits: string): string {
  return envelope({
    'uid:GetByUID': {
      'uid:uid': {
        'ech97:uidOrganisationIdCategorie': 'CHE',
        'ech97:uidOrganisationId': digits,
      },
    },
  });
}

/**
 * `Search` by organisation name (`uidEntitySearchParameters.organisationName`), with the
 * `searchConfiguration` the WSDL gives (`searchMode` Auto, `maxNumberOfRecords`, current names and
 * addresses only).
 */
export function searchEnvelope(name: string, maxNumberOfRecords: number): string {
  return envelope({
    'uid:Search': {
      'uid:searchParameters': {
        'uid5:uidEntitySearchParameters': { 'uid5:organisationName': name },
      },
      'uid:config': {
        'shared:searchMode': 'Auto',
        'shared:maxNumberOfRecords': String(maxNumberOfRecords),
        'shared:searchNameAndAddressHistory': 'false',
      },
    },
  });
}

/** Elements the schemas let repeat: read as lists even when one comes. */
const REPEATED = new Set([
  'organisationType',
  'uidEntitySearchResultItem',
  'address',
  'OtherOrganisationId',
]);

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  // Codes stay text: a legal form `0107` is not the number 107.
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => REPEATED.has(name),
});

/**
 * The children of a SOAP response's Body, or an UnexpectedShape: XML that is not well-formed, a
 * document type declaration (SOAP 1.1, section 3: a message must not contain one, so no entity of
 * the register's is expanded), or no Envelope/Body.
 */
export function soapBody(text: string): Json {
  if (/<!DOCTYPE/i.test(text)) throw new UnexpectedShape('a document type declaration');
  if (text.trim() === '' || XMLValidator.validate(text) !== true)
    throw new UnexpectedShape('not well-formed XML');
  const document = parser.parse(text) as unknown;
  const envelopeNode = isObject(document) ? document.Envelope : undefined;
  const body = isObject(envelopeNode) ? envelopeNode.Body : undefined;
  if (!isObject(body)) throw new UnexpectedShape('not a SOAP envelope with a Body');
  return body;
}

/** A text element's value; absent and empty are "not given". */
export function text(node: Json, field: string): string | undefined {
  const value = node[field];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new UnexpectedShape(`${field} is not text`);
  return value;
}

/** A child element; absent or empty is undefined. */
export function child(node: Json, field: string): Json | undefined {
  const value = node[field];
  if (value === undefined || value === '') return undefined;
  if (!isObject(value)) throw new UnexpectedShape(`${field} is not an element`);
  return value;
}

/** A repeated child element (see REPEATED): every occurrence. */
export function children(node: Json, field: string): Json[] {
  const value = node[field];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new UnexpectedShape(`${field} is not a list`);
  return value.map((entry) => {
    if (entry === '') return {};
    if (!isObject(entry)) throw new UnexpectedShape(`${field} is not an element`);
    return entry;
  });
}

/** The fault the register documents when its limit is spent (uid-wse-shared `error`). */
export const REQUEST_LIMIT_EXCEEDED = 'Request_limit_exceeded';

/**
 * The window of the register's limit, read from the fault's `errorDetail` ("Maximum number of 20
 * requests per 1 minute(s) exceeded"), in ms; one minute when it does not say.
 */
function limitWindowMs(detail: string | undefined): number {
  const minutes = /per\s+(\d+)\s+minute/i.exec(detail ?? '')?.[1];
  return (minutes ? Number(minutes) : 1) * 60_000;
}

/**
 * What a SOAP fault says went wrong (the service answers every fault with HTTP 500). The WSDL
 * declares three faults per operation, each a uid-wse-shared `serviceFault` (operation, error,
 * errorDetail): `Request_limit_exceeded` (in whichever fault carries it) is the register's limit,
 * and nothing goes out until its window has passed; a `businessFault` (such as
 * `Data_validation_failed`) or a `securityFault` refuses our request; an `infrastructureFault`, or
 * a fault of no documented kind, is the service failing. A body that is no SOAP fault leaves the
 * HTTP status to decide.
 */
export function uidFaultOf(statusCode: number, body: string): FailureReading | undefined {
  // SOAP 1.1 over HTTP (section 6.2) sends a fault with a 500; any other status speaks for itself.
  if (statusCode !== 500) return undefined;
  let fault: Json | undefined;
  try {
    fault = child(soapBody(body), 'Fault');
  } catch {
    return undefined;
  }
  if (!fault) return undefined;
  const detail = child(fault, 'detail') ?? {};
  const kinds = ['businessFault', 'securityFault', 'infrastructureFault'] as const;
  const kind = kinds.find((name) => isObject(detail[name]));
  const serviceFault = kind ? (detail[kind] as Json) : {};
  const read = (node: Json, field: string) => {
    const value = node[field];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const error = read(serviceFault, 'error') ?? read(fault, 'faultstring') ?? 'a SOAP fault';
  const errorDetail = read(serviceFault, 'errorDetail');
  const said = `${kind ?? 'fault'} ${error}${errorDetail ? ` (${errorDetail})` : ''}`;
  if (error === REQUEST_LIMIT_EXCEEDED)
    return { reason: 'rate_limited', detail: said, waitMs: limitWindowMs(errorDetail) };
  if (kind === 'businessFault' || kind === 'securityFault')
    return { reason: 'rejected', detail: said };
  return { reason: 'server_error', detail: said };
}
