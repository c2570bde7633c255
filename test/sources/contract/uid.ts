import { readFileSync } from 'node:fs';
import { SOAP_CONTENT_TYPE } from '../../../src/sources/uid/uid-soap.js';
import { uidSource } from '../../../src/sources/uid/uid-source.js';
import type { AdapterContract } from './adapter-contract.js';

/**
 * The Swiss UID register's public web service (FSO/BFS, `PublicServices`, interface 5.0).
 * Documents:
 * - the service's WSDL (https://www.uid-wse.admin.ch/V5.0/PublicServices.svc?wsdl): operations
 *   `GetByUID(uid)` answering `GetByUIDResult` (a list of eCH-0108 organisationType) and
 *   `Search(searchParameters, config)` answering `SearchResult` (uidEntitySearchResultItem:
 *   organisation, rating, isHistoryMatch), SOAPAction
 *   `http://www.uid.admin.ch/xmlns/uid-wse/IPublicServices/<operation>`, and per operation the
 *   faults `businessFault`, `securityFault`, `infrastructureFault` (uid-wse-shared/2
 *   serviceFault: operation, error, errorDetail);
 * - the FSO's page of the UID interfaces
 *   (bfs.admin.ch, Registers > UID register > UID interfaces, and its "UID public services"
 *   documentation): 20 requests a minute per client, answered beyond that with the fault
 *   `Request_limit_exceeded`;
 * - eCH-0108 version 5 (UID register data standard): uidregInformation, commercialRegisterInformation,
 *   vatRegisterInformation and their code lists; eCH-0097/eCH-0098 version 5 for the organisation.
 * test/sources/uid.test.ts says which published capture each fixture's shape follows.
 */
export function uidFixture(file: string): string {
  return readFileSync(new URL(`../../fixtures/sources/uid/${file}`, import.meta.url), 'utf8');
}

const GET_BY_UID = 'a GetByUIDResponse (WSDL GetByUID; eCH-0108/5 organisationType)';

/** The sample entity with its status code (and name) changed, as the register would send it. */
export function uidEntity(change: { status?: string; name?: string; extra?: string } = {}) {
  let body = uidFixture('get-by-uid.xml');
  if (change.status !== undefined)
    body = body.replace(
      '<uidregStatusEnterpriseDetail>3</uidregStatusEnterpriseDetail>',
      `<uidregStatusEnterpriseDetail>${change.status}</uidregStatusEnterpriseDetail>`,
    );
  if (change.name !== undefined) body = body.replaceAll('Alpenblick Werkzeuge AG', change.name);
  if (change.extra !== undefined)
    body = body.replace(
      '</commercialRegisterEntryDate>',
      `</commercialRegisterEntryDate>${change.extra}`,
    );
  return body;
}

const lookupOf = (normalized: string) =>
  ({ countryCode: 'CH', identifierType: 'registration_number', normalized }) as const;

const status = (
  code: string,
  companyLegalStatus: AdapterContract['lookup']['statuses'][number]['company_legal_status'],
) => ({
  value: `uidregStatusEnterpriseDetail ${code}`,
  body: {
    value: uidEntity({ status: code }),
    documented: `${GET_BY_UID}, eCH-0108 uidregStatusEnterpriseDetail ${code}`,
  },
  company_legal_status: companyLegalStatus,
  raw_company_legal_status: `uidregStatusEnterpriseDetail ${code}; commercialRegisterStatus 2`,
});

export const uidContract: AdapterContract = {
  name: 'uid',
  build: ({ client, baseUrl }) => uidSource({ client, baseUrl }),
  contentType: SOAP_CONTENT_TYPE,
  bodies: 'text',
  otherShapes: [
    ['not SOAP', '<html><head><title>UID</title></head><body>Wartung</body></html>'],
    [
      'an envelope with an empty Body',
      '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body/></s:Envelope>',
    ],
    [
      'another operation’s answer',
      '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><ValidateUIDResponse xmlns="http://www.uid.admin.ch/xmlns/uid-wse"><ValidateUIDResult>true</ValidateUIDResult></ValidateUIDResponse></s:Body></s:Envelope>',
    ],
    [
      'an organisation without its name',
      uidEntity()
        .replace(/<organisationName[^>]*>[^<]*<\/organisationName>/, '')
        .replace(/<organisationLegalName[^>]*>[^<]*<\/organisationLegalName>/, ''),
    ],
    ['a UID that is not 9 digits', uidEntity().replaceAll('119900018', '1199')],
  ],
  errorBody: {
    value: uidFixture('fault-infrastructure.xml'),
    documented:
      'fault-infrastructure.xml: the WSDL’s infrastructureFault of GetByUID (uid-wse-shared/2 serviceFault: operation, error, errorDetail), in the SOAP 1.1 Fault the service sends with HTTP 500',
  },
  lookup: {
    query: lookupOf('CHE119900018'),
    found: {
      body: { value: uidFixture('get-by-uid.xml'), documented: `get-by-uid.xml: ${GET_BY_UID}` },
      company: {
        key: 'uid:CHE119900018',
        legal_name: 'Alpenblick Werkzeuge AG',
        registration_number: 'CHE119900018',
        vat_numbers: ['CHE119900018'],
        tax_identifiers: [],
        country_code: 'CH',
        company_legal_status: 'active',
        raw_company_legal_status: 'uidregStatusEnterpriseDetail 3; commercialRegisterStatus 2',
        legal_form: 'eCH-0097 0106',
        registered_address: { formatted: 'Bahnhofstrasse 12, 3600 Thun' },
        city_or_state: 'Thun',
      },
      sourceUrl: 'https://www.uid.admin.ch/Detail.aspx?uid_id=CHE-119.900.018',
      requests: ['/V5.0/PublicServices.svc'],
      headers: {
        soapaction: '"http://www.uid.admin.ch/xmlns/uid-wse/IPublicServices/GetByUID"',
        'content-type': 'text/xml; charset=utf-8',
      },
    },
    notFound: {
      style: 'empty_results',
      status: 200,
      body: {
        value: uidFixture('get-by-uid-empty.xml'),
        documented:
          'get-by-uid-empty.xml: GetByUIDResponse with an empty GetByUIDResult (no entity has the UID)',
      },
      requests: ['/V5.0/PublicServices.svc'],
    },
    statuses: [
      status('1', 'unknown'),
      status('2', 'unknown'),
      status('3', 'active'),
      status('4', 'active'),
      status('5', 'dissolved'),
      status('6', 'dissolved'),
      status('7', 'unknown'),
      status('9', 'unknown'),
      {
        value: 'organisationName in Liquidation',
        body: {
          value: uidEntity({ name: 'Alpenblick Werkzeuge AG in Liquidation' }),
          documented: `${GET_BY_UID}: a name with the addition art. 739 of the Code of Obligations requires`,
        },
        company_legal_status: 'liquidation',
        raw_company_legal_status:
          'uidregStatusEnterpriseDetail 3; commercialRegisterStatus 2; organisationName in Liquidation',
      },
    ],
  },
  rateLimited: {
    documented:
      'fault-request-limit.xml: the FSO’s UID public services allow 20 requests a minute per client and answer more with a SOAP Fault (HTTP 500, faultcode s:Client) whose error is Request_limit_exceeded, errorDetail "Maximum number of 20 requests per 1 minute(s) exceeded"; no Retry-After',
    status: 500,
    headers: () => ({}),
    body: uidFixture('fault-request-limit.xml'),
    windowSeconds: 60,
  },
  search: {
    query: { countryCode: 'CH', name: 'Alpenblick' },
    found: {
      value: uidFixture('search.xml'),
      documented:
        'search.xml: a SearchResponse (WSDL Search; uidEntitySearchResultItem with organisation, rating, isHistoryMatch)',
    },
    keys: ['uid:CHE119900018', 'uid:CHE119900047'],
    empty: {
      value: uidFixture('search-empty.xml'),
      documented: 'search-empty.xml: a SearchResponse whose SearchResult has no item',
    },
    requests: ['/V5.0/PublicServices.svc'],
  },
};
