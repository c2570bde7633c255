/**
 * The REGON adapter (GUS BIR1.1) against a fake of the service on 127.0.0.1. The fake's answers
 * and the documents each comes from are in test/sources/regon-fake.ts: the service's WSDL
 * (UslugaBIRzewnPubl-ver11-prod.wsdl), GUS's BIR1.1 documentation as published clients quote it
 * (session id in the `sid` header, GetValue KomunikatKod 4 and 7), the search result's fields
 * (a test-service answer kept by johnzuk/GusApi), BIR1.1's ErrorCode 4 not-found result, and the
 * MTOM framing of every answer (johnzuk/GusApi tests/resources/rawSOAPResponse.xsd; WCF's MTOM
 * encoding).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LookupQuery, LookupResult } from '../../src/sources/registry-source.js';
import { regonSource } from '../../src/sources/regon/regon-source.js';
import type { UpstreamClient } from '../../src/sources/upstream/upstream-client.js';
import { type FakeRegister, startFakeRegister, testClient, text } from './fake-register.js';
import {
  BIR_CONTENT_TYPE,
  type BirFake,
  birAnswer,
  birFake,
  SAMPLE_ENTITY,
  TEST_KEY,
} from './regon-fake.js';

const byNip = (nip: string): LookupQuery => ({
  countryCode: 'PL',
  identifierType: 'vat_number',
  normalized: `PL${nip}`,
});
const byRegon = (regon: string): LookupQuery => ({
  countryCode: 'PL',
  identifierType: 'registration_number',
  normalized: regon,
});
const reasonOf = (result: LookupResult) =>
  result.outcome === 'unavailable' ? result.reason : `not unavailable but ${result.outcome}`;

describe('the REGON BIR1.1 adapter', () => {
  let register: FakeRegister;
  let fake: BirFake;
  const clients: UpstreamClient[] = [];
  beforeAll(async () => {
    register = await startFakeRegister();
  });
  afterAll(() => register.close());
  beforeEach(() => {
    register.requests.length = 0;
    register.headers.length = 0;
    fake = birFake();
    register.respond(fake.handler);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  function source(apiKey: string | undefined = TEST_KEY) {
    const client = testClient('regon');
    clients.push(client);
    return regonSource({ client, baseUrl: `${register.base}/wsBIR/UslugaBIRzewnPubl.svc`, apiKey });
  }

  it('logs in with the key, then finds an entity by the NIP of a PL VAT number, sending the session id as the sid header', async () => {
    const result = await source().lookup(byNip('8567346215'));
    expect(result).toMatchObject({
      outcome: 'matched',
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
      source: { source_name: 'REGON (Statistics Poland, BIR1.1)' },
    });
    expect(result.outcome === 'matched' && result.company.raw_company_legal_status).toBe(undefined);
    expect(fake.calls.map((c) => c.operation)).toEqual(['Zaloguj', 'DaneSzukajPodmioty']);
    expect(fake.calls[0]?.sid).toBe('');
    expect(fake.calls[1]?.sid).toMatch(/^s\d{19}$/);
    expect(register.requests).toEqual([
      '/wsBIR/UslugaBIRzewnPubl.svc',
      '/wsBIR/UslugaBIRzewnPubl.svc',
    ]);
    expect(register.headers[1]?.['content-type']).toBe(
      'application/soap+xml; charset=utf-8; action="http://CIS/BIR/PUBL/2014/07/IUslugaBIRzewnPubl/DaneSzukajPodmioty"',
    );
  });

  it('finds an entity by REGON, and reuses its session for the next lookup', async () => {
    const regon = source();
    expect((await regon.lookup(byRegon('192598184'))).outcome).toBe('matched');
    expect((await regon.lookup(byNip('8567346215'))).outcome).toBe('matched');
    expect(fake.calls.map((c) => c.operation)).toEqual([
      'Zaloguj',
      'DaneSzukajPodmioty',
      'DaneSzukajPodmioty',
    ]);
    expect(fake.calls[1]?.sid).toBe(fake.calls[2]?.sid);
  });

  it('logs in again once when BIR says the session has expired (empty result, KomunikatKod 7), then answers', async () => {
    const regon = source();
    await regon.lookup(byNip('8567346215'));
    fake.expireSessions();
    const result = await regon.lookup(byNip('8567346215'));
    expect(result.outcome).toBe('matched');
    expect(fake.calls.map((c) => c.operation)).toEqual([
      'Zaloguj',
      'DaneSzukajPodmioty',
      'DaneSzukajPodmioty',
      'GetValue',
      'Zaloguj',
      'DaneSzukajPodmioty',
    ]);
    expect(fake.calls[5]?.sid).not.toBe(fake.calls[2]?.sid);
  });

  it('is unavailable, not a loop, when a new session is refused at once again', async () => {
    // Every search answers "no session": the adapter logs in again once, then gives up.
    const regon = source();
    await regon.lookup(byNip('8567346215'));
    fake.entities.clear();
    const expire = fake.handler;
    register.respond((request, response) => {
      fake.expireSessions();
      expire(request, response);
    });
    const result = await regon.lookup(byNip('8567346215'));
    expect(reasonOf(result)).toBe('rejected: regon: no session after a new login');
  });

  it.each(['error_code', 'empty_result'] as const)(
    'answers not_matched when BIR finds nothing (%s style)',
    async (style) => {
      fake.notFoundStyle = style;
      const result = await source().lookup(byNip('5260250995'));
      expect(result).toMatchObject({ outcome: 'not_matched', source: { source_name: /REGON/ } });
      expect(fake.calls.map((c) => c.operation)).toEqual(
        style === 'error_code'
          ? ['Zaloguj', 'DaneSzukajPodmioty']
          : ['Zaloguj', 'DaneSzukajPodmioty', 'GetValue'],
      );
    },
  );

  it('is unavailable (rejected) when the key is refused (an empty ZalogujResult), never naming the key', async () => {
    const result = await source('wrongkey1234567890ab').lookup(byNip('8567346215'));
    expect(reasonOf(result)).toBe('rejected: regon: the service refused the key (no session id)');
    expect(reasonOf(result)).not.toContain('wrongkey');
    expect(fake.calls.map((c) => c.operation)).toEqual(['Zaloguj']);
  });

  it('never puts the key or the session id in a reason', async () => {
    const regon = source();
    await regon.lookup(byNip('8567346215'));
    const sid = fake.calls[1]?.sid ?? '';
    register.respond(text(503, '', BIR_CONTENT_TYPE));
    const result = await regon.lookup(byNip('8567346215'));
    expect(reasonOf(result)).toMatch(/^server_error: /);
    expect(reasonOf(result)).not.toContain(TEST_KEY);
    expect(reasonOf(result)).not.toContain(sid);
  });

  it('is unavailable (rejected) on another message code (2: too many identifiers)', async () => {
    const regon = source();
    register.respond((request, response) => {
      // The documented code 2 after an empty result.
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        const operation = /<ns:Zaloguj>/.test(body)
          ? 'Zaloguj'
          : /GetValue/.test(body)
            ? 'GetValue'
            : 'DaneSzukajPodmioty';
        response.writeHead(200, { 'content-type': BIR_CONTENT_TYPE });
        response.end(
          birAnswer(
            operation,
            operation === 'Zaloguj' ? 's1' : operation === 'GetValue' ? '2' : '',
          ),
        );
      });
    });
    expect(reasonOf(await regon.lookup(byNip('8567346215')))).toBe(
      'rejected: regon: KomunikatKod 2',
    );
  });

  describe('status (DataZakonczeniaDzialalnosci) and the record notes', () => {
    it('an end of activity is dissolved, with the date as the raw status', async () => {
      fake.entities.set('Regon:192598184', [
        { ...SAMPLE_ENTITY, DataZakonczeniaDzialalnosci: '2023-06-30' },
      ]);
      const result = await source().lookup(byRegon('192598184'));
      expect(result).toMatchObject({
        outcome: 'matched',
        company: {
          company_legal_status: 'dissolved',
          raw_company_legal_status: 'DataZakonczeniaDzialalnosci 2023-06-30',
        },
      });
    });

    it('an end of activity that is not a date is a malformed answer, never a guess', async () => {
      fake.entities.set('Regon:192598184', [
        { ...SAMPLE_ENTITY, DataZakonczeniaDzialalnosci: 'wkrótce' },
      ]);
      expect(reasonOf(await source().lookup(byRegon('192598184')))).toMatch(
        /^malformed_response: regon: DataZakonczeniaDzialalnosci/,
      );
    });

    it.each(['Uchylony', 'Unieważniony'])(
      'a NIP REGON records as %s is a note in the register’s words, not a legal status',
      async (status) => {
        fake.entities.set('Nip:8567346215', [{ ...SAMPLE_ENTITY, StatusNip: status }]);
        const result = await source().lookup(byNip('8567346215'));
        expect(result).toMatchObject({
          outcome: 'matched',
          company: { company_legal_status: 'active' },
          notes: [
            { code: 'identifier_revoked_in_company_record', raw_status: `StatusNip ${status}` },
          ],
        });
      },
    );

    it('a 14-digit REGON of a local unit is matched as a sub-unit of its entity', async () => {
      const unit = {
        ...SAMPLE_ENTITY,
        Regon: '19259818400023',
        Nazwa: 'MAZOWIECKIE NARZĘDZIA SP. Z O.O. ODDZIAŁ W RADOMIU',
        Typ: 'LP',
        SilosID: '6',
      };
      fake.entities.set('Regon:19259818400023', [unit]);
      const result = await source().lookup(byRegon('19259818400023'));
      expect(result).toMatchObject({
        outcome: 'matched',
        company: { key: 'regon:19259818400023', registration_number: '19259818400023' },
        notes: [{ code: 'matched_sub_unit', raw_status: 'Typ LP' }],
      });
      expect(result.outcome === 'matched' && result.notes?.[0]?.message).toContain('192598184');
    });

    it('two entities for one NIP are ambiguous', async () => {
      fake.entities.set('Nip:8567346215', [
        { ...SAMPLE_ENTITY, Typ: 'F', SilosID: '1' },
        { ...SAMPLE_ENTITY, Regon: '123456785', Typ: 'F', SilosID: '2' },
      ]);
      const result = await source().lookup(byNip('8567346215'));
      expect(result.outcome).toBe('ambiguous');
    });

    it('a row for another number than the one asked is a malformed answer', async () => {
      fake.entities.set('Nip:8567346215', [{ ...SAMPLE_ENTITY, Nip: '5260250995' }]);
      expect(reasonOf(await source().lookup(byNip('8567346215')))).toMatch(/^malformed_response: /);
    });
  });

  it('supports PL VAT numbers and REGONs, never KRS numbers, other countries or a search', () => {
    const regon = source();
    expect(regon.supports('PL', 'vat_number', 'PL8567346215')).toBe(true);
    expect(regon.supports('PL', 'registration_number', '192598184')).toBe(true);
    expect(regon.supports('PL', 'registration_number', '19259818400023')).toBe(true);
    expect(regon.supports('PL', 'registration_number', '0000019193')).toBe(false);
    expect(regon.supports('CZ', 'registration_number', '192598184')).toBe(false);
    expect(regon.searches('PL')).toBe(false);
  });
});
