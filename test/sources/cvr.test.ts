/**
 * The Danish CVR adapter against a fake of Erhvervsstyrelsen's system-til-system access (an
 * Elasticsearch index, `POST /cvr-permanent/virksomhed/_search`, HTTP basic credentials) on
 * 127.0.0.1.
 *
 * Where the sample bodies in test/fixtures/sources/cvr/ get their shape (docs/sources/cvr.md says
 * why this access, and what could and could not be read):
 * - Erhvervsstyrelsen's description of the access (datahub.virk.dk/dataset/
 *   system-til-system-adgang-til-cvr-data, "Om løsningen", "Hvordan hentes data?"): near-real-time
 *   CVR data "baseret på ElasticSearch og JSON", free, credentials by mail to
 *   cvrselvbetjening@erst.dk after accepting the terms on advertising protection.
 * - The published documentation of the access, written from its live answers (github.com/
 *   Brokk-Sindre/cvr-documentation, also T-Andreasen/cvr-documentation, served at
 *   brokk-sindre.github.io/cvr-documentation): getting-started/quick-start.md ("Search by CVR
 *   Number": a `term` query on Vrvirksomhed.cvrNummer; "Search by Company Name": a `match` on
 *   Vrvirksomhed.navne.navn with `size`; "Understanding the Response": took, timed_out, _shards
 *   {total, successful, skipped, failed}, hits {total, max_score, hits [{_index, _type "_doc", _id,
 *   _score, _source {Vrvirksomhed}}]}); api-reference/field-reference.md ("Virksomhed (Companies)
 *   Fields": cvrNummer, navne [{navn, periode {gyldigFra, gyldigTil}, sidstOpdateret}],
 *   beliggenhedsadresse [{vejnavn, vejkode, husnummerFra, husnummerTil, bogstavFra, bogstavTil,
 *   etage, sidedoer, conavn, postboks, postnummer, postdistrikt, bynavn, landekode, kommune
 *   {kommuneKode, kommuneNavn}, adresseId, periode}], hjemmeside [{kontaktoplysning, hemmelig,
 *   periode}], virksomhedsstatus [{status, periode}], virksomhedsform [{virksomhedsformkode,
 *   kortBeskrivelse, langBeskrivelse, periode}], livsforloeb [{periode}]); api-reference/
 *   overview.md ("Enum Reference" 1 and 2: the company form codes and the 14 virksomhedsstatus
 *   values; "Status Interpretation": sammensatStatus "Aktiv" and "Ophørt"; "Limitations": the
 *   result window, "Rate Limiting": no documented limits).
 * - Published clients of the access (for example the Danish "signrule" ingest, which filters on
 *   Vrvirksomhed.virksomhedMetadata.sammensatStatus "Normal" and "Aktiv") for the combined status
 *   `virksomhedMetadata.sammensatStatus`, which carries the current status in the register's
 *   capitalisation ("Normal", "Under konkurs", ...), and published real answers (a 2016 capture
 *   with virksomhedsstatus "NORMAL" then "UNDER TVANGSOPLØSNING").
 * - Elasticsearch's reference (6.8, "Search API", "Request body search" with `_source` filtering,
 *   and its error object {error {root_cause, type, reason}, status}) for the envelope and errors.
 * Erhvervsstyrelsen's own written guide to the access (sent with the credentials) could not be read
 * here.
 *
 * Files: virksomhed.json (an active ApS, sammensatStatus Normal, a former name), virksomhed-under-
 * konkurs.json (an A/S under bankruptcy), virksomhed-frivillig-likvidation.json (an ApS in
 * voluntary liquidation), virksomhed-tvangsoploest.json (an ApS dissolved by the court, every entry
 * ended), virksomhed-ophoert.json (a ceased sole proprietorship: no virksomhedsstatus, sammensatStatus
 * Ophørt), empty.json (no hits), search.json (a name search), error-400.json (Elasticsearch's error
 * object). The names and numbers are made up (valid modulus-11 CVR numbers); they describe no real
 * company.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CVR_LEGAL_STATUS } from '../../src/sources/cvr/cvr-record.js';
import { CVR_DEFAULT_BASE_URL, cvrSource } from '../../src/sources/cvr/cvr-source.js';
import { LIVE_SOURCE_DEFAULT_BASE_URLS } from '../../src/sources/live-source-names.js';
import type { LookupResult } from '../../src/sources/registry-source.js';
import {
  type FakeRegister,
  fixture,
  json,
  startFakeRegister,
  testClient,
} from './fake-register.js';

const companyOf = (result: LookupResult) => (result.outcome === 'matched' ? result.company : null);
const reasonOf = (result: { outcome: string; reason?: string }) =>
  result.outcome === 'unavailable' ? result.reason : null;

describe('the CVR adapter', () => {
  let cvr: FakeRegister;
  const bodies: unknown[] = [];
  beforeAll(async () => {
    cvr = await startFakeRegister();
  });
  afterAll(() => cvr.close());
  beforeEach(() => {
    cvr.requests.length = 0;
    cvr.headers.length = 0;
    bodies.length = 0;
  });

  /** Answers `body`, remembering each POSTed query. */
  function answer(body: unknown) {
    cvr.respond((request, response) => {
      let text = '';
      request.on('data', (chunk) => {
        text += chunk;
      });
      request.on('end', () => {
        bodies.push({ method: request.method, body: JSON.parse(text) });
        json(200, body)(request, response);
      });
    });
  }

  const source = (credentials = { username: 'fixture-user', password: 's3cret:pa ss' }) =>
    cvrSource({ client: testClient('cvr'), baseUrl: `${cvr.base}/`, ...credentials });
  const lookup = (identifierType: 'registration_number' | 'vat_number', normalized: string) =>
    source().lookup({ countryCode: 'DK', identifierType, normalized });

  it('is configured with the access Erhvervsstyrelsen serves', () => {
    expect(CVR_DEFAULT_BASE_URL).toBe('http://distribution.virk.dk');
    expect(LIVE_SOURCE_DEFAULT_BASE_URLS.cvr).toBe(CVR_DEFAULT_BASE_URL);
  });

  it('asks for a CVR number with a term query, sending the basic credentials', async () => {
    answer(fixture('cvr', 'virksomhed.json'));
    const company = companyOf(await lookup('registration_number', '35123458'));
    expect(company).toMatchObject({
      key: 'cvr:35123458',
      legal_name: 'Fixture Vindmøller ApS',
      company_legal_status: 'active',
      raw_company_legal_status: 'sammensatStatus Normal',
    });
    expect(cvr.requests).toEqual(['/cvr-permanent/virksomhed/_search']);
    expect(bodies[0]).toMatchObject({
      method: 'POST',
      body: { query: { term: { 'Vrvirksomhed.cvrNummer': '35123458' } }, size: 2 },
    });
    expect((bodies[0] as { body: { _source: string[] } }).body._source).toContain(
      'Vrvirksomhed.virksomhedMetadata.sammensatStatus',
    );
    expect(cvr.headers[0]?.authorization).toBe(
      `Basic ${Buffer.from('fixture-user:s3cret:pa ss').toString('base64')}`,
    );
  });

  it('finds a DK VAT number through the CVR number it embeds, and lists no VAT number CVR does not record', async () => {
    answer(fixture('cvr', 'virksomhed.json'));
    const result = await lookup('vat_number', 'DK35123458');
    expect(companyOf(result)).toMatchObject({ registration_number: '35123458', vat_numbers: [] });
    expect(result.outcome === 'matched' && result.notes).toBeUndefined();
    expect(bodies[0]).toMatchObject({
      body: { query: { term: { 'Vrvirksomhed.cvrNummer': '35123458' } } },
    });
  });

  it('keeps the current name, form and address, and the first start of the company', async () => {
    answer(fixture('cvr', 'virksomhed-tvangsoploest.json'));
    // Every entry of a dissolved company has ended: the last one is what it was.
    expect(companyOf(await lookup('registration_number', '29445567'))).toMatchObject({
      legal_name: 'Fixture Handel ApS',
      company_legal_status: 'dissolved',
      raw_company_legal_status: 'sammensatStatus Tvangsopløst',
      incorporation_date: '2006-01-05',
    });
    answer(fixture('cvr', 'virksomhed.json'));
    const company = companyOf(await lookup('registration_number', '35123458'));
    expect(company?.legal_name).toBe('Fixture Vindmøller ApS');
    expect(company?.legal_form).toBe('Anpartsselskab');
    expect(company?.registered_address?.formatted).toBe('Rådhusstræde 15, 2. tv, 1466 København K');
  });

  it('reads the current virksomhedsstatus when a record carries no combined status', async () => {
    const page = fixture<{
      hits: { hits: Array<{ _source: { Vrvirksomhed: Record<string, unknown> } }> };
    }>('cvr', 'virksomhed-under-konkurs.json');
    const company = page.hits.hits[0]?._source.Vrvirksomhed as Record<string, unknown>;
    delete company.virksomhedMetadata;
    answer(page);
    expect(companyOf(await lookup('registration_number', '36987650'))).toMatchObject({
      company_legal_status: 'insolvency',
      raw_company_legal_status: 'virksomhedsstatus UNDER KONKURS',
    });
  });

  it.each([
    ['Under reassumering', 'unknown'],
    ['Uden retsvirkning', 'unknown'],
    ['Under Fusion', 'unknown'],
    ['Opløst efter fusion', 'dissolved'],
    ['Under rekonstruktion', 'insolvency'],
  ])(
    'reads sammensatStatus %s as %s, never guessing a value it does not list',
    async (value, status) => {
      const page = fixture<{
        hits: {
          hits: Array<{
            _source: { Vrvirksomhed: { virksomhedMetadata: Record<string, unknown> } };
          }>;
        };
      }>('cvr', 'virksomhed.json');
      (
        page.hits.hits[0] as (typeof page.hits.hits)[0]
      )._source.Vrvirksomhed.virksomhedMetadata.sammensatStatus = value;
      answer(page);
      expect(companyOf(await lookup('registration_number', '35123458'))).toMatchObject({
        company_legal_status: status,
        raw_company_legal_status: `sammensatStatus ${value}`,
      });
    },
  );

  it('says not_matched for no hits, and malformed for hits of another company', async () => {
    answer(fixture('cvr', 'empty.json'));
    expect((await lookup('registration_number', '35123458')).outcome).toBe('not_matched');
    answer(fixture('cvr', 'virksomhed-under-konkurs.json'));
    expect(reasonOf(await lookup('registration_number', '35123458'))).toMatch(
      /^malformed_response: cvr: asked for 35123458, got others/,
    );
  });

  it('says a refused login is unavailable (rejected), not not_matched', async () => {
    cvr.respond(json(401, fixture('cvr', 'error-400.json')));
    expect(reasonOf(await lookup('registration_number', '35123458'))).toMatch(/^rejected: /);
  });

  it('asks nothing for another country or a number that cannot be a CVR number', async () => {
    answer(fixture('cvr', 'virksomhed.json'));
    expect(
      (
        await source().lookup({
          countryCode: 'NO',
          identifierType: 'registration_number',
          normalized: '35123458',
        })
      ).outcome,
    ).toBe('not_matched');
    expect((await lookup('vat_number', 'SE35123458')).outcome).toBe('not_matched');
    expect(await source().search({ countryCode: 'DK', registrationNumber: '1234' })).toMatchObject({
      outcome: 'ok',
      companies: [],
      noRegisterAsked: true,
    });
    expect(cvr.requests).toEqual([]);
  });

  it('searches the names with a match query, and filters by city', async () => {
    answer(fixture('cvr', 'search.json'));
    const result = await source().search({
      countryCode: 'DK',
      name: 'Fixture Vindmøller',
      cityOrState: ['esbjerg'],
    });
    expect(result.outcome === 'ok' && result.companies.map((c) => c.registration_number)).toEqual([
      '41223340',
    ]);
    expect(bodies[0]).toMatchObject({
      body: {
        query: {
          match: { 'Vrvirksomhed.navne.navn': { query: 'Fixture Vindmøller', operator: 'and' } },
        },
        size: 25,
      },
    });
    answer(fixture('cvr', 'virksomhed.json'));
    const byVat = await source().search({ countryCode: 'DK', vatNumber: 'DK 35 12 34 58' });
    expect(byVat.outcome === 'ok' && byVat.companies.map((c) => c.key)).toEqual(['cvr:35123458']);
  });

  it('documents every row of its status table in docs/sources/cvr.md', () => {
    const doc = readFileSync(new URL('../../docs/sources/cvr.md', import.meta.url), 'utf8');
    const rows = doc.split('\n').filter((line) => line.startsWith('| `'));
    for (const [raw, status] of Object.entries(CVR_LEGAL_STATUS)) {
      const row = rows.find((line) => line.startsWith(`| \`${raw}\` |`));
      expect(row, `${raw} has a row`).toBeDefined();
      expect(row?.trimEnd().endsWith(`| \`${status}\` |`), `${raw} -> ${status}`).toBe(true);
    }
  });
});
