/**
 * The Swiss UID register adapter against a fake of the FSO's public SOAP services on 127.0.0.1.
 *
 * Where the bodies in test/fixtures/sources/uid/ get their shape:
 * - the service's WSDL (https://www.uid-wse.admin.ch/V5.0/PublicServices.svc?wsdl, interface 5.0):
 *   operations GetByUID and Search in namespace http://www.uid.admin.ch/xmlns/uid-wse, SOAPAction
 *   http://www.uid.admin.ch/xmlns/uid-wse/IPublicServices/<operation>, GetByUIDResult a list of
 *   organisationType, SearchResult a list of uidEntitySearchResultItem (uid-wse/5: organisation,
 *   rating, isHistoryMatch), faults businessFault/securityFault/infrastructureFault (uid-wse-shared/2
 *   serviceFault: operation, error, errorDetail). The same types appear in published svcutil output
 *   of this WSDL (github.com/anthonychaussin/AdminChWrapper, "Connected Services/wseAdmin").
 * - eCH-0108 version 5 (UID register data standard) for uidregInformation
 *   (uidregStatusEnterpriseDetail 1-7), commercialRegisterInformation and vatRegisterInformation
 *   (vatStatus, vatEntryStatus, vatEntryDate, vatLiquidationDate, uidVat); eCH-0097/eCH-0098
 *   version 5 for organisationIdentification (uid, organisationName, organisationLegalName,
 *   legalForm) and address (addressCategory LEGAL, street, houseNumber, swissZipCode, town).
 * - get-by-uid.xml: element for element and namespace for namespace the GetByUID answer published
 *   as a capture of the live service (a federal office's public record, HTTP 200), with a made-up
 *   company (valid UID check digit) and a commercial-register block.
 * - get-by-uid-empty.xml: the empty GetByUIDResult the service sends for a UID no entity has, as
 *   published clients of the service record it.
 * - search.xml, search-empty.xml: a SearchResponse as published clients of interface 5.0 record it.
 * - fault-request-limit.xml: the fault the FSO documents for its limit of 20 requests a minute per
 *   client (UID interfaces page; published as captured: HTTP 500, faultcode s:Client, businessFault
 *   error Request_limit_exceeded, errorDetail "Maximum number of 20 requests per 1 minute(s)
 *   exceeded").
 * - fault-data-validation.xml: the businessFault Data_validation_failed ("Invalid UID. The checksum
 *   is invalid"), published as captured.
 * - fault-infrastructure.xml: the WSDL's infrastructureFault in the same SOAP 1.1 Fault.
 *
 * The cases every adapter shares are the contract suite's (registration contract/uid.ts); this
 * file keeps what is particular to the UID register.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LookupResult, SearchResult } from '../../src/sources/registry-source.js';
import { searchEnvelope, soapBody } from '../../src/sources/uid/uid-soap.js';
import {
  UID_BUDGET,
  UID_DEFAULT_BASE_URL,
  UID_LEGAL_STATUS,
  uidSource,
} from '../../src/sources/uid/uid-source.js';
import { uidEntity, uidFixture } from './contract/uid.js';
import { type FakeRegister, type Handler, startFakeRegister, testClient } from './fake-register.js';

const reasonOf = (result: LookupResult | SearchResult) =>
  result.outcome === 'unavailable' ? result.reason : `not unavailable but ${result.outcome}`;

describe('the UID register adapter', () => {
  let uid: FakeRegister;
  const envelopes: string[] = [];
  let reply: { status: number; body: string } = { status: 200, body: '' };

  const fake: Handler = (request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      envelopes.push(body);
      response.writeHead(reply.status, { 'content-type': 'text/xml; charset=utf-8' });
      response.end(reply.body);
    });
  };
  const answer = (body: string, status = 200) => {
    reply = { status, body };
  };
  const source = (waits: number[] = []) =>
    uidSource({ client: testClient('uid', { retries: 1 }, waits), baseUrl: uid.base });
  const lookUp = (type: 'registration_number' | 'vat_number', normalized: string) =>
    source().lookup({ countryCode: 'CH', identifierType: type, normalized });

  beforeAll(async () => {
    uid = await startFakeRegister();
    uid.respond(fake);
  });
  afterAll(() => uid.close());
  beforeEach(() => {
    envelopes.length = 0;
    uid.requests.length = 0;
  });

  it('asks GetByUID with the UID as eCH-0097 gives it, at the service path, as SOAP 1.1', async () => {
    answer(uidFixture('get-by-uid.xml'));
    expect((await lookUp('registration_number', 'CHE119900018')).outcome).toBe('matched');
    expect(uid.requests).toEqual(['/V5.0/PublicServices.svc']);
    const request = soapBody(envelopes[0] ?? '');
    expect(request).toEqual({
      GetByUID: { uid: { uidOrganisationIdCategorie: 'CHE', uidOrganisationId: '119900018' } },
    });
    expect(envelopes[0]).toContain('xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"');
    expect(envelopes[0]).toContain('xmlns:ech97="http://www.ech.ch/xmlns/eCH-0097/5"');
    expect(UID_DEFAULT_BASE_URL).toBe('https://www.uid-wse.admin.ch');
  });

  it('builds the Search envelope with an XML builder: a name is text, never markup', () => {
    const envelope = searchEnvelope('Müller & Söhne</uid5:organisationName><evil/>', 20);
    expect(envelope).not.toContain('<evil/>');
    expect(soapBody(envelope)).toEqual({
      Search: {
        searchParameters: {
          uidEntitySearchParameters: {
            organisationName: 'Müller & Söhne</uid5:organisationName><evil/>',
          },
        },
        config: {
          searchMode: 'Auto',
          maxNumberOfRecords: '20',
          searchNameAndAddressHistory: 'false',
        },
      },
    });
  });

  it('finds a VAT number (CHE + 9 digits + MWST) through the UID it is, and lists it while vatStatus is 2', async () => {
    answer(uidFixture('get-by-uid.xml'));
    const result = await lookUp('vat_number', 'CHE119900018');
    if (result.outcome !== 'matched') throw new Error(reasonOf(result));
    expect(result.company.vat_numbers).toEqual(['CHE119900018']);
    expect(result.notes).toBeUndefined();
  });

  it('says so, in the register words, when the record does not list the VAT number asked: ended, or under a VAT group', async () => {
    const ended = uidEntity().replace(
      '<vatStatus>2</vatStatus>',
      '<vatStatus>3</vatStatus><vatLiquidationDate>2023-12-31</vatLiquidationDate>',
    );
    answer(ended);
    const outside = await lookUp('vat_number', 'CHE119900018');
    if (outside.outcome !== 'matched') throw new Error(reasonOf(outside));
    expect(outside.company.vat_numbers).toEqual([]);
    expect(outside.notes).toEqual([
      expect.objectContaining({
        code: 'vat_not_registered_in_company_record',
        raw_status: 'vatStatus 3; uidVat CHE-119.900.018; vatLiquidationDate 2023-12-31',
      }),
    ]);
    // A member of a VAT group: the record's VAT number is the group's UID, not the one asked.
    answer(uidEntity().replace(/(<uidVat>[\s\S]*?)119900018/, '$1119900024'));
    const group = await lookUp('vat_number', 'CHE119900018');
    if (group.outcome !== 'matched') throw new Error(reasonOf(group));
    expect(group.company.vat_numbers).toEqual(['CHE119900024']);
    expect(group.notes?.[0]?.raw_status).toBe('vatStatus 2; uidVat CHE-119.900.024');
    // A registration number carries no VAT note, whatever the VAT state.
    answer(ended);
    const byUid = await lookUp('registration_number', 'CHE119900018');
    expect(byUid.outcome === 'matched' && byUid.notes).toBeUndefined();
  });

  it('keeps a cancelled duplicate unknown, naming the UID that replaces it', async () => {
    answer(
      uidEntity({ status: '7' }).replace(
        '<uidregPublicStatus>1</uidregPublicStatus>',
        '<uidregPublicStatus>1</uidregPublicStatus><uidReplacement><uidOrganisationIdCategorie xmlns="http://www.ech.ch/xmlns/eCH-0097/5">CHE</uidOrganisationIdCategorie><uidOrganisationId xmlns="http://www.ech.ch/xmlns/eCH-0097/5">119900024</uidOrganisationId></uidReplacement>',
      ),
    );
    const result = await lookUp('registration_number', 'CHE119900018');
    if (result.outcome !== 'matched') throw new Error(reasonOf(result));
    expect(result.company.company_legal_status).toBe('unknown');
    expect(result.company.raw_company_legal_status).toBe(
      'uidregStatusEnterpriseDetail 7; uidReplacement CHE-119.900.024; commercialRegisterStatus 2',
    );
  });

  it('reads a deleted entry as dissolved even when its name still says in Liquidation', async () => {
    answer(uidEntity({ status: '5', name: 'Alpenblick Werkzeuge AG en liquidation' }));
    const result = await lookUp('registration_number', 'CHE119900018');
    expect(result.outcome === 'matched' && result.company.company_legal_status).toBe('dissolved');
  });

  it('waits out the register limit (a Request_limit_exceeded fault names no wait): nothing goes out for its minute', async () => {
    const waits: number[] = [];
    answer(uidFixture('fault-request-limit.xml'), 500);
    const limited = source(waits);
    expect(
      reasonOf(
        await limited.lookup({
          countryCode: 'CH',
          identifierType: 'registration_number',
          normalized: 'CHE119900018',
        }),
      ),
    ).toMatch(
      /^rate_limited: uid: businessFault Request_limit_exceeded \(Maximum number of 20 requests per 1 minute\(s\) exceeded\)/,
    );
    // One request, no retry: a minute's wait runs past the call's deadline.
    expect(uid.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('answers a refused UID (Data_validation_failed) as rejected and an infrastructure fault as server_error, never not_matched', async () => {
    answer(uidFixture('fault-data-validation.xml'), 500);
    expect(reasonOf(await lookUp('registration_number', 'CHE119900018'))).toBe(
      'rejected: uid: businessFault Data_validation_failed (Invalid UID. The checksum is invalid)',
    );
    expect(uid.requests).toHaveLength(1);
    answer(uidFixture('fault-infrastructure.xml'), 500);
    expect(reasonOf(await lookUp('registration_number', 'CHE119900018'))).toMatch(
      /^server_error: uid: infrastructureFault Infrastructure_error/,
    );
  });

  it('takes a 404 for a missing endpoint, not for a missing entity', async () => {
    answer('', 404);
    expect(reasonOf(await lookUp('registration_number', 'CHE119900018'))).toBe(
      'rejected: uid: the service endpoint answered 404',
    );
  });

  it('refuses a document type declaration (SOAP forbids one) instead of expanding its entities', async () => {
    answer(
      `<?xml version="1.0"?><!DOCTYPE s [<!ENTITY a "aaaaaaaaaa">]>${uidFixture('get-by-uid.xml')}`,
    );
    expect(reasonOf(await lookUp('registration_number', 'CHE119900018'))).toBe(
      'malformed_response: uid: a document type declaration',
    );
  });

  it('searches by a number through GetByUID, and by a name whose town is filtered here', async () => {
    answer(uidFixture('get-by-uid.xml'));
    const byNumber = await source().search({
      countryCode: 'CH',
      vatNumber: 'CHE-119.900.018 MWST',
    });
    expect(byNumber.outcome === 'ok' && byNumber.companies.map((c) => c.key)).toEqual([
      'uid:CHE119900018',
    ]);
    expect(soapBody(envelopes[0] ?? '')).toHaveProperty('GetByUID');
    const notAUid = await source().search({ countryCode: 'CH', registrationNumber: 'CHE-123' });
    expect(notAUid).toMatchObject({ outcome: 'ok', companies: [] });
    expect(envelopes).toHaveLength(1);

    answer(uidFixture('search.xml'));
    const inSpiez = await source().search({
      countryCode: 'CH',
      name: 'Alpenblick',
      cityOrState: ['spiez'],
    });
    expect(inSpiez.outcome === 'ok' && inSpiez.companies.map((c) => c.legal_name)).toEqual([
      'Alpenblick Bäckerei Meier',
    ]);
  });

  it('keeps under the documented limit: at most 19 requests in any minute', () => {
    expect(UID_BUDGET.capacity + UID_BUDGET.refillPerSecond * 60).toBeLessThan(20);
  });

  it('documents every row of its status table in docs/sources/uid.md', () => {
    const doc = readFileSync(new URL('../../docs/sources/uid.md', import.meta.url), 'utf8');
    const rows = doc.split('\n').filter((line) => line.startsWith('| `'));
    for (const [raw, status] of Object.entries(UID_LEGAL_STATUS)) {
      const row = rows.find((line) => line.startsWith(`| \`${raw}\` |`));
      expect(row, `${raw} has a row`).toBeDefined();
      expect(row?.trimEnd().endsWith(`| \`${status}\` |`), `${raw} -> ${status}`).toBe(true);
    }
  });
});
