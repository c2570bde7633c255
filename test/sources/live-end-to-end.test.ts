import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainDeps } from '../../src/domain.js';
import { createMonitorScheduler } from '../../src/jobs/monitor-scheduler.js';
import { fixedClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { LIVE_SOURCE_NAMES, type LiveSourceName } from '../../src/sources/live-source-names.js';
import { createLiveSource, type LiveSource } from '../../src/sources/live-sources.js';
import { sandboxSource } from '../../src/sources/sandbox/sandbox-source.js';
import { DEFAULT_UPSTREAM_POLICY } from '../../src/sources/upstream/upstream-client.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { get, type Json, post, readJson } from '../helpers/http.js';
import { uidEntity, uidFixture } from './contract/uid.js';
import { type FakeRegister, type Handler, json, startFakeRegister } from './fake-register.js';
import { birFake, SAMPLE_ENTITY, TEST_KEY } from './regon-fake.js';

/**
 * Live checks, searches and a monitor recheck end to end: the real app with a live key (paid
 * access and credits) over the five live registers, each a fake upstream on 127.0.0.1 answering
 * with the adapters' documented sample bodies (test/fixtures/sources; each adapter's test names
 * where its shapes come from).
 */
const FIXTURES = join(import.meta.dirname, '../fixtures/sources');
const fixture = (source: string, name: string) =>
  JSON.parse(readFileSync(join(FIXTURES, source, name), 'utf8'));

// The French directory's answers to a direct search by SIREN (its `q`), set by a test.
const frenchUnits = new Map<string, unknown>();

/**
 * A unit under partial diffusion as the directory publishes it: open-api.yml (search-api,
 * app/doc) gives statut_diffusion "P" (diffusion partielle) to units that objected to
 * publication, whose protected fields read "[NON-DIFFUSIBLE]", both names included.
 */
function nonDiffusibleUnit(siren: string) {
  const page = fixture('recherche-entreprises', 'search-siren.json');
  const unit = page.results[0];
  Object.assign(unit, {
    siren,
    nom_complet: '[NON-DIFFUSIBLE]',
    nom_raison_sociale: '[NON-DIFFUSIBLE]',
    sigle: null,
    statut_diffusion: 'P',
  });
  Object.assign(unit.siege, {
    siret: `${siren}00013`,
    adresse: '[NON-DIFFUSIBLE]',
    code_postal: '[NON-DIFFUSIBLE]',
    latitude: '[NON-DIFFUSIBLE]',
    longitude: '[NON-DIFFUSIBLE]',
    coordonnees: '[NON-DIFFUSIBLE]',
    statut_diffusion_etablissement: 'P',
  });
  unit.matching_etablissements = [];
  unit.tva = [];
  return page;
}

// Brønnøysund's other units by path: a unit in forced dissolution outside the VAT register, one in
// restructuring, and a sub-unit (no main unit has its number) of the sample unit.
const BRREG_UNITS: Record<string, { status: number; body: unknown }> = {
  '/enheter/987654325': { status: 200, body: fixture('brreg', 'enhet-tvangsopplost.json') },
  '/enheter/911223341': { status: 200, body: fixture('brreg', 'enhet-rekonstruksjon.json') },
  '/enheter/973111221': { status: 404, body: { status: 404, error: 'Not Found' } },
  '/underenheter/973111221': { status: 200, body: fixture('brreg', 'underenhet.json') },
};

// The KRS extracts by register and number (P: entrepreneurs, S: associations).
const krsExtracts = new Map<string, unknown>([
  ['P:0000999001', fixture('krs', 'odpis-aktualny-p.json')],
  ['S:0000999002', fixture('krs', 'odpis-aktualny-s.json')],
  ['P:0000999003', fixture('krs', 'odpis-aktualny-upadlosc.json')],
]);

// REGON BIR1.1 speaks SOAP with a session: its fake keeps sessions and answers by NIP or REGON
// (test/sources/regon-fake.ts names the documents of each answer).
const regon = birFake();

/**
 * The UID register's entities by UID (contract/uid.ts and uid.test.ts name the documents): the
 * sample active company, one in liquidation, and the sample search's sole trader whose VAT-register
 * entry has ended; a test may replace one. Any other UID gets an empty GetByUIDResult.
 */
const uidEntities = new Map<string, string>();
function resetUidEntities() {
  uidEntities.clear();
  uidEntities.set('119900018', uidEntity());
  uidEntities.set(
    '119900024',
    uidEntity({ name: 'Seeland Holz AG in Liquidation' }).replaceAll('119900018', '119900024'),
  );
  uidEntities.set(
    '119900047',
    uidEntity({ name: 'Alpenblick Bäckerei Meier' })
      .replaceAll('119900018', '119900047')
      .replace(
        '<vatStatus>2</vatStatus><vatEntryStatus>1</vatEntryStatus><vatEntryDate>2012-04-01</vatEntryDate>',
        '<vatStatus>3</vatStatus><vatEntryStatus>1</vatEntryStatus><vatEntryDate>2015-01-01</vatEntryDate><vatLiquidationDate>2023-12-31</vatLiquidationDate>',
      ),
  );
}
resetUidEntities();

/** The UID register answers a SOAP POST by its SOAPAction: GetByUID by the UID asked, Search its sample page. */
const uidAsDocumented: Handler = (request, response) => {
  let envelope = '';
  request.on('data', (chunk: Buffer) => {
    envelope += chunk.toString('utf8');
  });
  request.on('end', () => {
    const action = String(request.headers.soapaction ?? '');
    const digits = /uidOrganisationId>(\d{9})</.exec(envelope)?.[1] ?? '';
    const body = action.endsWith('/Search"')
      ? uidFixture('search.xml')
      : (uidEntities.get(digits) ?? uidFixture('get-by-uid-empty.xml'));
    response.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' });
    response.end(body);
  });
};

// Each register answers its sample record, whatever was asked; GLEIF by the country filtered on.
const ANSWERS: Record<
  Exclude<LiveSourceName, 'uid' | 'regon' | 'edgar' | 'ariregister' | 'kbo'>,
  (url: URL) => { status: number; body: unknown }
> = {
  companies_house: (url) =>
    url.pathname.startsWith('/search/')
      ? { status: 200, body: fixture('companies-house', 'search-companies.json') }
      : url.pathname === '/company/09990001'
        ? { status: 200, body: fixture('companies-house', 'company-profile.json') }
        : { status: 404, body: fixture('companies-house', 'company-profile-not-found.json') },
  brreg: (url) =>
    url.pathname === '/enheter' && url.searchParams.has('navn')
      ? { status: 200, body: fixture('brreg', 'search.json') }
      : (BRREG_UNITS[url.pathname] ?? { status: 200, body: fixture('brreg', 'enhet.json') }),
  recherche_entreprises: (url) => ({
    status: 200,
    body:
      frenchUnits.get(url.searchParams.get('q') ?? '') ??
      fixture('recherche-entreprises', 'search-siren.json'),
  }),
  ares: (url) =>
    url.pathname === '/ekonomicke-subjekty/25596641'
      ? { status: 200, body: fixture('ares', 'ekonomicky-subjekt-insolvence.json') }
      : url.pathname === '/ekonomicke-subjekty/27100057'
        ? {
            status: 200,
            // In liquidation: the name carries the addition the Civil Code requires.
            body: {
              ...fixture('ares', 'ekonomicky-subjekt.json'),
              ico: '27100057',
              obchodniJmeno: 'Zelená louka s.r.o. v likvidaci',
            },
          }
        : { status: 200, body: fixture('ares', 'ekonomicky-subjekt.json') },
  gleif: (url) => {
    const country = url.searchParams.get('filter[entity.legalAddress.country]');
    if (country === 'SE') return { status: 200, body: fixture('gleif', 'lei-records-se.json') };
    // One number held at two courts (gleif.test.ts names where its shape comes from).
    if (country === 'DE' && url.searchParams.get('filter[entity.registeredAs]') === 'HRB 12345')
      return { status: 200, body: fixture('gleif', 'lei-records-de-two-courts.json') };
    if (country === 'DE') return { status: 200, body: fixture('gleif', 'lei-records-de.json') };
    return { status: 200, body: fixture('gleif', 'lei-records-empty.json') };
  },
  // YTJ answers a CompanyResult page to a business ID or a name (prh.test.ts names the documents):
  // the sample active company, one in bankruptcy, one whose VAT-register entry has ended.
  prh: (url) => {
    if (url.searchParams.has('name')) return { status: 200, body: fixture('prh', 'search.json') };
    const byId: Record<string, string> = {
      '3312345-3': 'company.json',
      '3312346-1': 'company-konkurssi.json',
      '3312351-7': 'company-ei-alv.json',
    };
    const file = byId[url.searchParams.get('businessId') ?? ''] ?? 'empty.json';
    return { status: 200, body: fixture('prh', file) };
  },
  // The KRS answers each register's extracts by number, and 404 otherwise (krs.test.ts names
  // where the shapes come from); a test may replace an extract (krsExtracts).
  krs: (url) => {
    const number = url.pathname.replace('/api/krs/OdpisAktualny/', '');
    const body = krsExtracts.get(`${url.searchParams.get('rejestr')}:${number}`);
    return body ? { status: 200, body } : { status: 404, body: '' };
  },
  // Answered by the request body (cvrAsDocumented); never reached by URL.
  cvr: () => ({ status: 500, body: {} }),
  // Bolagsverket answers POSTs only (answerAsDocumented reads their bodies); nothing else exists.
  bolagsverket: () => ({ status: 404, body: fixture('bolagsverket', 'api-error-401.json') }),
};

// CVR's Elasticsearch answers a POSTed query (cvr.test.ts names the documents): a `term` query on
// Vrvirksomhed.cvrNummer gets that company's sample, or no hits; a `match` on the names a page.
const CVR_COMPANIES: Record<string, string> = {
  '35123458': 'virksomhed.json',
  '36987650': 'virksomhed-under-konkurs.json',
};
const cvrAsDocumented: Handler = (request, response) => {
  let text = '';
  request.on('data', (chunk) => {
    text += chunk;
  });
  request.on('end', () => {
    const query = JSON.parse(text || '{}').query ?? {};
    const asked = query.term?.['Vrvirksomhed.cvrNummer'];
    const file = query.match ? 'search.json' : (CVR_COMPANIES[asked] ?? 'empty.json');
    json(200, fixture('cvr', file))(request, response);
  });
};

// Bolagsverket's organisations by identitetsbeteckning (bolagsverket.test.ts names the
// documents), and its OAuth token endpoint on the same host; a test may replace one.
const bolagsverketOrganisations = new Map<string, unknown>([
  ['5299999994', fixture('bolagsverket', 'organisationer-aktiebolag.json')],
  ['5299999986', fixture('bolagsverket', 'organisationer-konkurs.json')],
]);
const bolagsverketAsked: string[] = [];

const answerAsDocumented =
  (name: LiveSourceName): Handler =>
  (request, response) => {
    if (name === 'cvr') return cvrAsDocumented(request, response);
    if (name === 'uid') return uidAsDocumented(request, response);
    if (name === 'bolagsverket' && request.method === 'POST') {
      // Bolagsverket is asked by POST: the number is in the body, not the URL.
      let text = '';
      request.on('data', (chunk) => {
        text += chunk;
      });
      request.on('end', () => {
        if (request.url === '/oauth2/token')
          return json(200, fixture('bolagsverket', 'token.json'))(request, response);
        const number = (JSON.parse(text) as { identitetsbeteckning: string }).identitetsbeteckning;
        bolagsverketAsked.push(number);
        const body =
          bolagsverketOrganisations.get(number) ??
          fixture('bolagsverket', 'organisationer-finns-ej.json');
        json(200, body)(request, response);
      });
      return;
    }
    if (name === 'regon') return regon.handler(request, response);
    // The mirrors read the database (their own tests: edgar-, ariregister- and
    // kbo-mirror-source.test.ts), never this.
    if (name === 'edgar' || name === 'ariregister' || name === 'kbo')
      return json(500, {})(request, response);
    const answer = ANSWERS[name](new URL(request.url ?? '/', 'http://register'));
    json(answer.status, answer.body)(request, response);
  };

describe.each(DIALECTS)('live registers end to end [%s]', (dialect) => {
  let t: TestApp;
  let database: TestDatabase;
  let live: LiveSource;
  let key: string;
  const registers = {} as Record<LiveSourceName, FakeRegister>;
  // The registers' clock: when records are fetched.
  const upstreamClock = fixedClock('2026-11-21T11:00:00.000Z');

  beforeAll(async () => {
    for (const name of LIVE_SOURCE_NAMES) {
      const register = await startFakeRegister();
      register.respond(answerAsDocumented(name));
      registers[name] = register;
    }
    database = await createTestDatabase(dialect);
    live = createLiveSource(
      {
        enabled: [...LIVE_SOURCE_NAMES],
        credentials: {
          COMPANIES_HOUSE_API_KEY: 'test-key-0000',
          CVR_USERNAME: 'fixture-user',
          CVR_PASSWORD: 'fixture-password',
          BOLAGSVERKET_CLIENT_ID: 'firmwatch-test-client',
          BOLAGSVERKET_CLIENT_SECRET: 'firmwatch-test-secret',
          REGON_API_KEY: TEST_KEY,
        },
        baseUrls: Object.fromEntries(
          LIVE_SOURCE_NAMES.map((name) => [name, registers[name].base]),
        ) as Record<LiveSourceName, string>,
      },
      // The budgets read the registers' clock, so a window's reset is reached by moving it.
      {
        database,
        clock: upstreamClock,
        buckets: memoryTokenBuckets(() => upstreamClock.now().getTime()),
      },
    );
    t = await startTestApp({ database, sources: { sandbox: sandboxSource(), live } });
    const created = await t.createKey({ environment: 'live' });
    await t.fundWorkspace(created.workspace_id, 100);
    key = created.key;
  });
  afterAll(async () => {
    await t.close();
    await live.close();
    await database.cleanup();
    await Promise.all(Object.values(registers).map((register) => register.close()));
  });

  /**
   * Moves both clocks past the record cache's window and makes every other monitor not due, so
   * the scheduler returned rechecks only this one (through the register, not the cache).
   */
  const onlyThisMonitorDue = async (monitorId: string) => {
    t.clock.advance(31 * 24 * 3600_000);
    upstreamClock.advance(31 * 24 * 3600_000);
    await t.database.db
      .updateTable('monitors')
      .set({ next_check_at: '9999-01-01T00:00:00.000Z' })
      .where('id', '<>', monitorId)
      .execute();
    return createMonitorScheduler(
      t.database,
      domainDeps({ clock: t.clock, newId: t.newId, sources: { sandbox: sandboxSource(), live } }),
      { owner: 'live-test' },
    );
  };

  const credits = async () => {
    const usage = await readJson(await get(t.baseUrl, '/usage', key));
    return usage.totals.billable_units as number;
  };

  it('publishes live registry coverage for GB, NO, FR, CZ, FI and the GLEIF countries', async () => {
    const expected: Record<string, string> = {
      GB: 'registration_number',
      NO: 'vat_number',
      FR: 'registration_number',
      CZ: 'registration_number',
      FI: 'vat_number',
      CH: 'vat_number',
      DE: 'registration_number',
      SE: 'registration_number',
      PL: 'registration_number',
      DK: 'registration_number',
    };
    for (const [code, type] of Object.entries(expected)) {
      const country = await readJson(await get(t.baseUrl, `/countries/${code}`, key));
      const capability = country.identifier_capabilities.find(
        (c: Json) => c.identifier_type === type,
      );
      expect(capability?.registry_match, code).toMatch(/^(supported|partial)$/);
    }
    // GLEIF alone covers DE: only companies with an LEI, so partial.
    const germany = await readJson(await get(t.baseUrl, '/countries/DE', key));
    expect(
      germany.identifier_capabilities.find((c: Json) => c.identifier_type === 'registration_number')
        .registry_match,
    ).toBe('partial');
    // YTJ, not GLEIF, answers FI business IDs: every company, so supported.
    const finland = await readJson(await get(t.baseUrl, '/countries/FI', key));
    expect(
      finland.identifier_capabilities.find((c: Json) => c.identifier_type === 'registration_number')
        .registry_match,
    ).toBe('supported');
    // CVR, not GLEIF, answers DK CVR numbers once its credentials are set.
    const denmark = await readJson(await get(t.baseUrl, '/countries/DK', key));
    expect(
      denmark.identifier_capabilities.find((c: Json) => c.identifier_type === 'registration_number')
        .registry_match,
    ).toBe('supported');
    // The UID register, not GLEIF, answers CH UIDs: every UID entity, so supported, and search.
    const switzerland = await readJson(await get(t.baseUrl, '/countries/CH', key));
    for (const type of ['registration_number', 'vat_number'])
      expect(
        switzerland.identifier_capabilities.find((c: Json) => c.identifier_type === type),
      ).toMatchObject({ registry_match: 'supported', company_legal_status: 'partial' });
    expect(switzerland.company_search).toBe('supported');
    // The sandbox's capabilities are not the live ones.
    const sandboxKey = (await t.createKey()).key;
    const sandboxNorway = await readJson(await get(t.baseUrl, '/countries/NO', sandboxKey));
    expect(
      sandboxNorway.identifier_capabilities.find((c: Json) => c.identifier_type === 'vat_number')
        .registry_match,
    ).toBe('not_supported');
  });

  it.each([
    ['GB', 'registration_number', '09990001', 'FIXTURE WIDGETS LIMITED', 'Companies House'],
    ['NO', 'vat_number', 'NO995525828MVA', 'FJORDLYS TEKNIKK AS', 'Brønnøysundregistrene'],
    ['FR', 'registration_number', '812345676', 'ATELIERS DU CANAL', 'Annuaire des Entreprises'],
    ['CZ', 'registration_number', '27100006', 'Vltavská strojírna s.r.o.', 'ARES'],
    ['SE', 'registration_number', '529999-9994', 'Cykelbolaget AB', 'Bolagsverket'],
    ['SE', 'vat_number', 'SE529999999401', 'Cykelbolaget AB', 'Bolagsverket'],
    ['FI', 'registration_number', '3312345-3', 'Saimaan Konepaja Oy', 'PRH'],
    ['FI', 'vat_number', 'FI33123453', 'Saimaan Konepaja Oy', 'PRH'],
    ['PL', 'registration_number', 'KRS 0000999001', 'WIŚLANE NARZĘDZIA', 'KRS'],
    ['DK', 'registration_number', '35123458', 'Fixture Vindmøller ApS', 'CVR'],
    ['DK', 'vat_number', 'DK35123458', 'Fixture Vindmøller ApS', 'CVR'],
    ['CH', 'registration_number', 'CHE-119.900.018', 'Alpenblick Werkzeuge AG', 'UID register'],
    ['CH', 'vat_number', 'CHE-119.900.018 MWST', 'Alpenblick Werkzeuge AG', 'UID register'],
    ['PL', 'vat_number', 'PL 856-734-62-15', 'MAZOWIECKIE NARZĘDZIA', 'REGON'],
    ['PL', 'registration_number', '192598184', 'MAZOWIECKIE NARZĘDZIA', 'REGON'],
  ])(
    'a live check of a %s %s is matched by its register, with evidence and one credit',
    async (country, type, identifier, name, register) => {
      const before = await credits();
      const response = await post(
        t.baseUrl,
        '/checks',
        { identifier_type: type, identifier, country_code: country },
        key,
      );
      const check = await readJson(response);
      expect(response.status, JSON.stringify(check)).toBe(201);
      expect(check.format_status).toBe('valid');
      expect(check.registry_match_status).toBe('matched');
      expect(check.tax_authority_status).toBe(
        type === 'vat_number' ? 'not_supported' : 'not_applicable',
      );
      expect(check.company_legal_status).toBe('active');
      if (name) expect(check.company.legal_name).toContain(name);
      const evidence = check.evidence.find((e: Json) => e.dimension === 'registry_match');
      expect(evidence.source_name).toContain(register);
      expect(evidence.retrieved_at).toBe(upstreamClock.now().toISOString());
      expect(check.company.sources[0].source_name).toContain(register);
      expect(check.credits_used).toBe(1);
      expect(await credits()).toBe(before + 1);
    },
  );

  it('reports what Brønnøysund says: forced dissolution, restructuring, a sub-unit with its parent, a VAT number outside the VAT register', async () => {
    const check = async (identifier_type: string, identifier: string) =>
      readJson(
        await post(t.baseUrl, '/checks', { identifier_type, identifier, country_code: 'NO' }, key),
      );
    const dissolving = await check('vat_number', 'NO987654325MVA');
    expect(dissolving.registry_match_status).toBe('matched');
    expect(dissolving.company_legal_status).toBe('liquidation');
    // The register's VAT flag is company-record evidence: no tax authority was asked.
    expect(dissolving.tax_authority_status).toBe('not_supported');
    expect(dissolving.company.vat_numbers).toEqual([]);
    expect(dissolving.warnings).toEqual([
      expect.objectContaining({
        dimension: 'registry_match',
        code: 'vat_not_registered_in_company_record',
        retryable: false,
      }),
    ]);
    expect(
      dissolving.evidence.map((e: Json) => [e.dimension, e.source_type, e.raw_status]),
    ).toEqual([
      ['format', 'vatfind_rules', undefined],
      ['registry_match', 'government_registry', 'matched'],
      ['registry_match', 'government_registry', 'registrertIMvaregisteret false'],
      [
        'company_legal',
        'government_registry',
        'underTvangsavviklingEllerTvangsopplosning; tvangsopplostPgaMangelfulltStyreDato 2024-02-12',
      ],
    ]);

    const restructuring = await check('registration_number', '911223341');
    expect(restructuring.company_legal_status).toBe('insolvency');
    expect(restructuring.company.raw_company_legal_status).toBe(
      'underRekonstruksjonsforhandlingDato 2025-09-15',
    );

    const subUnit = await check('registration_number', '973111221');
    expect(subUnit.registry_match_status).toBe('matched');
    expect(subUnit.company.legal_name).toBe('FJORDLYS TEKNIKK AS AVD STAVANGER');
    expect(subUnit.company_legal_status).toBe('active');
    expect(subUnit.warnings).toEqual([
      expect.objectContaining({ code: 'matched_sub_unit', dimension: 'registry_match' }),
    ]);
    expect(subUnit.warnings[0].message).toContain('995525828');
    expect(subUnit.evidence).toContainEqual(
      expect.objectContaining({
        dimension: 'registry_match',
        raw_status: 'underenhet; overordnetEnhet 995525828',
        source_url: 'https://data.brreg.no/enhetsregisteret/oppslag/underenheter/973111221',
      }),
    );
  });

  it('reports what ARES says: an active insolvency-register record, a DIČ whose VAT source is not active', async () => {
    const check = await readJson(
      await post(
        t.baseUrl,
        '/checks',
        { identifier_type: 'vat_number', identifier: 'CZ25596641', country_code: 'CZ' },
        key,
      ),
    );
    expect(check.registry_match_status).toBe('matched');
    expect(check.company_legal_status).toBe('insolvency');
    expect(check.tax_authority_status).toBe('not_supported');
    expect(check.company.vat_numbers).toEqual([]);
    expect(check.warnings).toEqual([
      expect.objectContaining({
        dimension: 'registry_match',
        code: 'vat_not_registered_in_company_record',
        retryable: false,
      }),
    ]);
    expect(check.evidence.map((e: Json) => [e.dimension, e.raw_status])).toEqual([
      ['format', undefined],
      ['registry_match', 'matched'],
      ['registry_match', 'stavZdrojeDph NEEXISTUJICI'],
      ['company_legal', 'stavZdrojeIr AKTIVNI'],
    ]);
  });

  it('reports what YTJ says: a bankruptcy with its code, a VAT number whose VAT-register entry has ended, an unknown business ID', async () => {
    const check = async (identifier_type: string, identifier: string) =>
      readJson(
        await post(t.baseUrl, '/checks', { identifier_type, identifier, country_code: 'FI' }, key),
      );
    const bankrupt = await check('registration_number', '3312346-1');
    expect(bankrupt.registry_match_status).toBe('matched');
    expect(bankrupt.company_legal_status).toBe('insolvency');
    expect(bankrupt.evidence).toContainEqual(
      expect.objectContaining({
        dimension: 'company_legal',
        raw_status: 'tradeRegisterStatus 1; companySituations KONK 2026-03-09',
        source_url: 'https://tietopalvelu.ytj.fi/yritys/3312346-1',
      }),
    );

    const outsideVat = await check('vat_number', 'FI33123517');
    expect(outsideVat.registry_match_status).toBe('matched');
    expect(outsideVat.company_legal_status).toBe('active');
    // The VAT-register entry is company-record evidence: no tax authority was asked.
    expect(outsideVat.tax_authority_status).toBe('not_supported');
    expect(outsideVat.company.vat_numbers).toEqual([]);
    expect(outsideVat.warnings).toEqual([
      expect.objectContaining({
        dimension: 'registry_match',
        code: 'vat_not_registered_in_company_record',
        retryable: false,
      }),
    ]);
    expect(outsideVat.evidence.map((e: Json) => [e.dimension, e.raw_status])).toEqual([
      ['format', undefined],
      ['registry_match', 'matched'],
      ['registry_match', 'registeredEntries register 6 type 80 endDate 2023-12-31'],
      ['company_legal', 'tradeRegisterStatus 1'],
    ]);

    const unknown = await check('registration_number', '3312353-3');
    expect(unknown.registry_match_status).toBe('not_matched');
  });

  it('reads liquidation from the name ARES records for a company in liquidation', async () => {
    const check = await readJson(
      await post(
        t.baseUrl,
        '/checks',
        { identifier_type: 'registration_number', identifier: '27100057', country_code: 'CZ' },
        key,
      ),
    );
    expect(check.registry_match_status).toBe('matched');
    expect(check.company_legal_status).toBe('liquidation');
    expect(check.evidence).toContainEqual(
      expect.objectContaining({
        dimension: 'company_legal',
        raw_status: 'obchodniJmeno v likvidaci',
      }),
    );
  });

  it('answers a second check of the same record from the shared cache, keeping the original retrieved_at', async () => {
    const asked = registers.ares.requests.length;
    const fetchedAt = upstreamClock.now().toISOString();
    upstreamClock.advance(60_000);
    const other = await t.createKey({ environment: 'live' });
    await t.fundWorkspace(other.workspace_id, 10);
    const check = await readJson(
      await post(
        t.baseUrl,
        '/checks',
        { identifier_type: 'registration_number', identifier: '27100006', country_code: 'CZ' },
        other.key,
      ),
    );
    expect(check.registry_match_status).toBe('matched');
    expect(registers.ares.requests.length).toBe(asked);
    expect(check.company.retrieved_at).toBe(fetchedAt);
    expect(check.evidence.find((e: Json) => e.dimension === 'registry_match').retrieved_at).toBe(
      fetchedAt,
    );
  });

  it.each([
    ['812 345 676 00017', 'SIRET'],
    ['RCS Paris B 812 345 676', 'RCS'],
  ])(
    'a live FR check of %s checks the SIREN it carries, and says so in a warning',
    async (identifier, kind) => {
      const asked = registers.recherche_entreprises.requests.length;
      const response = await post(
        t.baseUrl,
        '/checks',
        { identifier_type: 'registration_number', identifier, country_code: 'FR' },
        key,
      );
      const check = await readJson(response);
      expect(response.status, JSON.stringify(check)).toBe(201);
      expect(check.identifier).toMatchObject({ input: identifier, normalized: '812345676' });
      expect(check.format_status).toBe('valid');
      expect(check.registry_match_status).toBe('matched');
      expect(check.company.registration_number).toBe('812345676');
      const warning = check.warnings.find((w: Json) => w.code === 'read_as_carried_number');
      expect(warning).toMatchObject({ dimension: 'format', retryable: false });
      expect(warning.message).toContain(kind);
      expect(warning.message).toContain('812345676');
      // Asked by the SIREN (or answered from the shared cache of that SIREN).
      for (const path of registers.recherche_entreprises.requests.slice(asked))
        expect(path).toContain('q=812345676');
    },
  );

  it('says a non-diffusible FR unit has no published name, instead of giving [NON-DIFFUSIBLE] as one', async () => {
    frenchUnits.set('912345675', nonDiffusibleUnit('912345675'));
    const response = await post(
      t.baseUrl,
      '/checks',
      {
        identifier_type: 'registration_number',
        identifier: '912345675',
        country_code: 'FR',
        company_name: 'Someone Else SARL',
      },
      key,
    );
    const check = await readJson(response);
    expect(response.status, JSON.stringify(check)).toBe(201);
    expect(check.registry_match_status).toBe('matched');
    expect(JSON.stringify(check.company)).not.toContain('NON-DIFFUSIBLE');
    expect(check.company.legal_name).toBe('Name not published by the register (SIREN 912345675)');
    expect(check.company.registered_address).toBeUndefined();
    const codes = check.warnings.map((w: Json) => w.code);
    expect(codes).toContain('legal_name_not_published');
    // No name was published, so none was compared with company_name.
    expect(codes).not.toContain('company_name_mismatch');
    expect(check.warnings.find((w: Json) => w.code === 'legal_name_not_published').message).toMatch(
      /does not publish its name.*statut_diffusion P/,
    );
  });

  it('names the companies of an ambiguous number by legal name and cmp_ id, and the search that tells them apart', async () => {
    const response = await post(
      t.baseUrl,
      '/checks',
      { identifier_type: 'registration_number', identifier: 'HRB 12345', country_code: 'DE' },
      key,
    );
    const check = await readJson(response);
    expect(response.status, JSON.stringify(check)).toBe(201);
    expect(check.registry_match_status).toBe('ambiguous');
    const warning = check.warnings.find((w: Json) => w.code === 'registry_ambiguous');
    const ids = [...warning.message.matchAll(/\((cmp_[0-9a-z]+)\)/g)].map((m) => m[1]);
    expect(ids).toHaveLength(2);
    // Each id is a stored company the caller can fetch, with the name the warning gives it.
    const names: string[] = [];
    for (const id of ids) {
      const company = await readJson(await get(t.baseUrl, `/companies/${id}`, key));
      expect(company.id).toBe(id);
      expect(warning.message).toContain(`"${company.legal_name}" (${id})`);
      names.push(company.legal_name);
    }
    expect(names.sort()).toEqual(['Fixture Handel GmbH', 'Fixture Logistik GmbH']);
    expect(warning.message).toMatch(/city_or_state \(München, Hamburg\) tells them apart/);
    // And that search does tell them apart.
    const found = await readJson(
      await post(
        t.baseUrl,
        '/companies/search',
        { country_code: 'DE', registration_number: 'HRB 12345', city_or_state: ['Hamburg'] },
        key,
      ),
    );
    expect(found.data.map((c: Json) => [c.id, c.legal_name])).toEqual([
      [ids[names.indexOf('Fixture Logistik GmbH')], 'Fixture Logistik GmbH'],
    ]);
  });

  it('reports what the KRS says: an association found in the second register, a bankruptcy in section 6', async () => {
    const check = async (identifier: string) => {
      // The KRS budget is 3 requests at once, refilled by the second on the registers' clock.
      upstreamClock.advance(5_000);
      return readJson(
        await post(
          t.baseUrl,
          '/checks',
          { identifier_type: 'registration_number', identifier, country_code: 'PL' },
          key,
        ),
      );
    };
    const association = await check('0000999002');
    expect(association.registry_match_status).toBe('matched');
    expect(association.company.legal_form).toBe('STOWARZYSZENIE');
    expect(association.company.sources[0].source_url).toContain('rejestr=S');
    const bankrupt = await check('0000999003');
    expect(bankrupt.company_legal_status).toBe('insolvency');
    expect(bankrupt.evidence).toContainEqual(
      expect.objectContaining({
        dimension: 'company_legal',
        raw_status: 'postepowanieUpadlosciowe UPADŁOŚĆ ogłoszona 20.05.2026; nazwa w upadłości',
      }),
    );
    const missing = await check('0000999099');
    expect(missing.registry_match_status).toBe('not_matched');
    expect(registers.krs.requests.slice(-2)).toEqual([
      '/api/krs/OdpisAktualny/0000999099?rejestr=P&format=json',
      '/api/krs/OdpisAktualny/0000999099?rejestr=S&format=json',
    ]);
  });

  it('with REGON_API_KEY, a PL VAT number and a REGON reach REGON BIR (never the KRS, no tax authority), and the key and session id stay out of the logs', async () => {
    const asked = registers.krs.requests.length;
    // Another entity than the sample's, so no cached record answers.
    regon.entities.set('Nip:5260250995', [
      { ...SAMPLE_ENTITY, Nip: '5260250995', Regon: '123456785', StatusNip: 'Uchylony' },
    ]);
    const check = await readJson(
      await post(
        t.baseUrl,
        '/checks',
        { identifier_type: 'vat_number', identifier: 'PL5260250995', country_code: 'PL' },
        key,
      ),
    );
    expect(check.registry_match_status).toBe('matched');
    expect(check.tax_authority_status).toBe('not_supported');
    expect(check.company.tax_identifiers).toEqual(['5260250995']);
    expect(check.company.vat_numbers).toEqual([]);
    // The NIP's status in REGON is company-record evidence in the register's words.
    expect(check.warnings).toEqual([
      expect.objectContaining({
        dimension: 'registry_match',
        code: 'identifier_revoked_in_company_record',
      }),
    ]);
    expect(
      check.evidence.some(
        (e: Json) => e.dimension === 'registry_match' && e.raw_status === 'StatusNip Uchylony',
      ),
    ).toBe(true);
    expect(check.evidence.some((e: Json) => e.source_type === 'tax_authority')).toBe(false);
    expect(registers.krs.requests.length).toBe(asked);
    const sids = new Set(regon.calls.map((c) => c.sid).filter(Boolean));
    expect(sids.size).toBeGreaterThan(0);
    const logged = JSON.stringify(t.logs);
    expect(logged).not.toContain(TEST_KEY);
    for (const sid of sids) expect(logged).not.toContain(sid);
  });

  it('without REGON_API_KEY, keeps a PL REGON and a PL VAT number not_supported in live, saying the key is needed, and asks no register', async () => {
    const keyless = createLiveSource(
      {
        enabled: [...LIVE_SOURCE_NAMES],
        credentials: { COMPANIES_HOUSE_API_KEY: 'test-key-0000' },
        baseUrls: Object.fromEntries(
          LIVE_SOURCE_NAMES.map((name) => [name, registers[name].base]),
        ) as Record<LiveSourceName, string>,
      },
      { database, clock: upstreamClock, buckets: memoryTokenBuckets() },
    );
    const other = await startTestApp({
      database,
      sources: { sandbox: sandboxSource(), live: keyless },
    });
    try {
      const created = await other.createKey({ environment: 'live' });
      await other.fundWorkspace(created.workspace_id, 10);
      const asked = registers.krs.requests.length + registers.regon.requests.length;
      for (const [identifier_type, identifier] of [
        ['registration_number', '192598184'],
        ['vat_number', 'PL8567346215'],
      ]) {
        const check = await readJson(
          await post(
            other.baseUrl,
            '/checks',
            { identifier_type, identifier, country_code: 'PL' },
            created.key,
          ),
        );
        expect(check.format_status).toBe('valid');
        expect(check.registry_match_status).toBe('not_supported');
        expect(check.credits_used).toBe(0);
        expect(check.warnings[0].message).toMatch(/REGON BIR.*REGON_API_KEY/);
      }
      expect(registers.krs.requests.length + registers.regon.requests.length).toBe(asked);
    } finally {
      await other.close();
      await keyless.close();
    }
  });

  it('keeps GB VAT numbers not_supported in live, saying why', async () => {
    const check = await readJson(
      await post(
        t.baseUrl,
        '/checks',
        { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' },
        key,
      ),
    );
    expect(check.registry_match_status).toBe('not_supported');
    expect(check.warnings[0].message).toMatch(/HMRC/);
  });

  it("never opens the breaker on a register's refusals: after more 400s than the breaker's threshold, the next check still reaches Companies House", async () => {
    const check = async (identifier: string) =>
      readJson(
        await post(
          t.baseUrl,
          '/checks',
          { identifier_type: 'registration_number', identifier, country_code: 'GB' },
          key,
        ),
      );
    // A 400 in Companies House's error style: it refused the request, it is not down.
    registers.companies_house.respond(
      json(400, { errors: [{ error: 'invalid-request', type: 'ch:service' }] }),
    );
    const threshold = DEFAULT_UPSTREAM_POLICY.breaker.consecutiveFailures;
    for (let n = 0; n <= threshold; n++) {
      expect((await check(`0999100${n}`)).registry_match_status).toBe('unavailable');
    }
    registers.companies_house.respond(answerAsDocumented('companies_house'));
    const asked = registers.companies_house.requests.length;
    expect((await check('09993333')).registry_match_status).toBe('not_matched');
    expect(registers.companies_house.requests.length).toBe(asked + 1);
  });

  it('searches a live register by name', async () => {
    const response = await post(
      t.baseUrl,
      '/companies/search',
      { country_code: 'NO', name: 'Fjordlys' },
      key,
    );
    const body = await readJson(response);
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.data[0].sources[0].source_name).toContain('Brønnøysund');
    expect(body.credits_used).toBe(1);
  });

  it('charges nothing for a search answered without asking a register (a VAT number GLEIF cannot be searched by)', async () => {
    const asked = registers.gleif.requests.length;
    const before = await credits();
    const response = await post(
      t.baseUrl,
      '/companies/search',
      { country_code: 'DE', vat_number: 'DE129273398' },
      key,
    );
    const body = await readJson(response);
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ data: [], credits_used: 0 });
    expect(registers.gleif.requests.length).toBe(asked);
    expect(await credits()).toBe(before);
    // The same search by a name GLEIF is asked for costs its credit.
    const named = await readJson(
      await post(t.baseUrl, '/companies/search', { country_code: 'DE', name: 'Muster' }, key),
    );
    expect(named.credits_used).toBe(1);
    expect(registers.gleif.requests.length).toBe(asked + 1);
  });

  it.each([
    ['FI', 'prh', '1234567'],
    ['CH', 'uid', 'CHE-12345'],
    ['DK', 'cvr', '1234567'],
    ['NO', 'brreg', '12345678'],
  ] as const)(
    'charges nothing for a %s search by a number that cannot be one of its register’s, and never asks it',
    async (country_code, register, registration_number) => {
      const asked = registers[register].requests.length;
      const response = await post(
        t.baseUrl,
        '/companies/search',
        { country_code, registration_number },
        key,
      );
      const body = await readJson(response);
      expect(response.status, JSON.stringify(body)).toBe(200);
      expect(body).toMatchObject({ data: [], credits_used: 0 });
      expect(registers[register].requests.length).toBe(asked);
    },
  );

  it('searches YTJ by name for FI', async () => {
    const response = await post(
      t.baseUrl,
      '/companies/search',
      { country_code: 'FI', name: 'Saimaan', city_or_state: ['Imatra'] },
      key,
    );
    const body = await readJson(response);
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.data.map((c: Json) => [c.legal_name, c.registration_number])).toEqual([
      ['Saimaan Satama Oy', '3312353-3'],
    ]);
    expect(body.data[0].sources[0].source_name).toContain('PRH');
    expect(body.credits_used).toBe(1);
    expect(registers.prh.requests.at(-1)).toBe('/companies?name=Saimaan&location=Imatra');
  });

  it('reports what the UID register says: liquidation by the name, a VAT number whose VAT-register entry has ended, an unknown UID', async () => {
    // A minute on: the register's budget (20 requests a minute, UID_BUDGET) has refilled.
    upstreamClock.advance(60_000);
    const check = async (identifier_type: string, identifier: string) =>
      readJson(
        await post(t.baseUrl, '/checks', { identifier_type, identifier, country_code: 'CH' }, key),
      );
    const inLiquidation = await check('registration_number', 'CHE-119.900.024');
    expect(inLiquidation.registry_match_status).toBe('matched');
    expect(inLiquidation.company_legal_status).toBe('liquidation');
    expect(inLiquidation.evidence).toContainEqual(
      expect.objectContaining({
        dimension: 'company_legal',
        raw_status:
          'uidregStatusEnterpriseDetail 3; commercialRegisterStatus 2; organisationName in Liquidation',
        source_url: 'https://www.uid.admin.ch/Detail.aspx?uid_id=CHE-119.900.024',
      }),
    );

    const outsideVat = await check('vat_number', 'CHE-119.900.047 MWST');
    expect(outsideVat.registry_match_status).toBe('matched');
    expect(outsideVat.company_legal_status).toBe('active');
    // The VAT-register state is company-record evidence: no tax authority was asked.
    expect(outsideVat.tax_authority_status).toBe('not_supported');
    expect(outsideVat.company.vat_numbers).toEqual([]);
    expect(outsideVat.warnings).toEqual([
      expect.objectContaining({
        dimension: 'registry_match',
        code: 'vat_not_registered_in_company_record',
        retryable: false,
      }),
    ]);
    expect(outsideVat.evidence.map((e: Json) => [e.dimension, e.raw_status])).toEqual([
      ['format', undefined],
      ['registry_match', 'matched'],
      ['registry_match', 'vatStatus 3; uidVat CHE-119.900.047; vatLiquidationDate 2023-12-31'],
      ['company_legal', 'uidregStatusEnterpriseDetail 3; commercialRegisterStatus 2'],
    ]);

    const unknown = await check('registration_number', 'CHE-119.900.030');
    expect(unknown.registry_match_status).toBe('not_matched');
  });

  it('searches the UID register by name for CH', async () => {
    upstreamClock.advance(60_000);
    const response = await post(
      t.baseUrl,
      '/companies/search',
      { country_code: 'CH', name: 'Alpenblick', city_or_state: ['Spiez'] },
      key,
    );
    const body = await readJson(response);
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.data.map((c: Json) => [c.legal_name, c.registration_number])).toEqual([
      ['Alpenblick Bäckerei Meier', 'CHE119900047'],
    ]);
    expect(body.data[0].sources[0].source_name).toContain('UID register');
    expect(body.credits_used).toBe(1);
    expect(registers.uid.headers.at(-1)?.soapaction).toBe(
      '"http://www.uid.admin.ch/xmlns/uid-wse/IPublicServices/Search"',
    );
  });

  it('rechecks a live CH monitor through the UID register, and records the deletion that follows as a change', async () => {
    const created = await readJson(
      await post(
        t.baseUrl,
        '/monitors',
        { identifier_type: 'registration_number', identifier: 'CHE119900018', country_code: 'CH' },
        key,
      ),
    );
    expect(created.monitor.latest_snapshot).toMatchObject({
      registry_match_status: 'matched',
      company_legal_status: 'active',
    });
    const asked = registers.uid.requests.length;
    // The UID register now records the entity as deleted (uidregStatusEnterpriseDetail 5).
    uidEntities.set('119900018', uidEntity({ status: '5' }));
    const scheduler = await onlyThisMonitorDue(created.monitor.id);
    expect(await scheduler.tick()).toMatchObject({ claimed: 1, rechecked: 1 });
    expect(registers.uid.requests.slice(asked)).toEqual(['/V5.0/PublicServices.svc']);
    const monitor = await readJson(await get(t.baseUrl, `/monitors/${created.monitor.id}`, key));
    expect(monitor.health).toBe('healthy');
    expect(monitor.latest_snapshot.company_legal_status).toBe('dissolved');
    const events = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${created.monitor.id}`, key),
    );
    expect(events.data.map((e: Json) => e.type)).toEqual(['vat.monitor.change_detected']);
    expect(JSON.stringify(events.data[0])).toContain('dissolved');
    resetUidEntities();
  });

  it('rechecks a live FI monitor through YTJ, and records the bankruptcy that follows as a change', async () => {
    const created = await readJson(
      await post(
        t.baseUrl,
        '/monitors',
        { identifier_type: 'registration_number', identifier: '33123453', country_code: 'FI' },
        key,
      ),
    );
    expect(created.monitor.latest_snapshot).toMatchObject({
      registry_match_status: 'matched',
      company_legal_status: 'active',
    });
    const asked = registers.prh.requests.length;
    // YTJ now records a bankruptcy (KONK) for the company.
    const bankrupt = fixture('prh', 'company.json');
    bankrupt.companies[0].companySituations = [
      { type: 'KONK', registrationDate: '2026-12-01', source: '1' },
    ];
    registers.prh.respond(json(200, bankrupt));
    const scheduler = await onlyThisMonitorDue(created.monitor.id);
    expect(await scheduler.tick()).toMatchObject({ claimed: 1, rechecked: 1 });
    expect(registers.prh.requests.slice(asked)).toEqual(['/companies?businessId=3312345-3']);
    const monitor = await readJson(await get(t.baseUrl, `/monitors/${created.monitor.id}`, key));
    expect(monitor.health).toBe('healthy');
    expect(monitor.latest_snapshot.company_legal_status).toBe('insolvency');
    const events = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${created.monitor.id}`, key),
    );
    expect(events.data.map((e: Json) => e.type)).toEqual(['vat.monitor.change_detected']);
    expect(JSON.stringify(events.data[0])).toContain('insolvency');
    registers.prh.respond(answerAsDocumented('prh'));
  });

  it('reports what CVR says: a bankruptcy with its combined status, an unknown CVR number, and no VAT number on the record', async () => {
    const check = async (identifier_type: string, identifier: string) =>
      readJson(
        await post(t.baseUrl, '/checks', { identifier_type, identifier, country_code: 'DK' }, key),
      );
    const bankrupt = await check('registration_number', '36987650');
    expect(bankrupt.registry_match_status).toBe('matched');
    expect(bankrupt.company_legal_status).toBe('insolvency');
    expect(bankrupt.evidence).toContainEqual(
      expect.objectContaining({
        dimension: 'company_legal',
        raw_status: 'sammensatStatus Under konkurs',
        source_url: 'https://datacvr.virk.dk/enhed/virksomhed/36987650',
      }),
    );
    // CVR records no VAT registration: matched through the CVR number, no tax authority asked.
    const vat = await check('vat_number', 'DK36987650');
    expect(vat.registry_match_status).toBe('matched');
    expect(vat.tax_authority_status).toBe('not_supported');
    expect(vat.company.vat_numbers).toEqual([]);
    const unknown = await check('registration_number', '29445567');
    expect(unknown.registry_match_status).toBe('not_matched');
    // Every request carried the basic credentials.
    expect(registers.cvr.headers.at(-1)?.authorization).toBe(
      `Basic ${Buffer.from('fixture-user:fixture-password').toString('base64')}`,
    );
  });

  it('searches CVR by name for DK', async () => {
    const response = await post(
      t.baseUrl,
      '/companies/search',
      { country_code: 'DK', name: 'Fixture Vindmøller', city_or_state: ['Esbjerg'] },
      key,
    );
    const body = await readJson(response);
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.data.map((c: Json) => [c.legal_name, c.registration_number])).toEqual([
      ['Fixture Vindmøller Service ApS', '41223340'],
    ]);
    expect(body.data[0].sources[0].source_name).toContain('CVR');
    expect(body.credits_used).toBe(1);
    expect(registers.cvr.requests.at(-1)).toBe('/cvr-permanent/virksomhed/_search');
  });

  it('rechecks a live DK monitor through CVR, and records the bankruptcy that follows as a change', async () => {
    const created = await readJson(
      await post(
        t.baseUrl,
        '/monitors',
        { identifier_type: 'registration_number', identifier: '35123458', country_code: 'DK' },
        key,
      ),
    );
    expect(created.monitor.latest_snapshot).toMatchObject({
      registry_match_status: 'matched',
      company_legal_status: 'active',
    });
    const asked = registers.cvr.requests.length;
    // CVR now records the company under bankruptcy.
    const bankrupt = fixture('cvr', 'virksomhed.json');
    const company = bankrupt.hits.hits[0]._source.Vrvirksomhed;
    company.virksomhedsstatus[0].periode.gyldigTil = '2026-11-30';
    company.virksomhedsstatus.push({
      status: 'UNDER KONKURS',
      periode: { gyldigFra: '2026-12-01', gyldigTil: null },
      sidstOpdateret: '2026-12-01T16:45:12.000+01:00',
    });
    company.virksomhedMetadata.sammensatStatus = 'Under konkurs';
    registers.cvr.respond(json(200, bankrupt));
    const scheduler = await onlyThisMonitorDue(created.monitor.id);
    expect(await scheduler.tick()).toMatchObject({ claimed: 1, rechecked: 1 });
    expect(registers.cvr.requests.slice(asked)).toEqual(['/cvr-permanent/virksomhed/_search']);
    const monitor = await readJson(await get(t.baseUrl, `/monitors/${created.monitor.id}`, key));
    expect(monitor.health).toBe('healthy');
    expect(monitor.latest_snapshot.company_legal_status).toBe('insolvency');
    const events = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${created.monitor.id}`, key),
    );
    expect(events.data.map((e: Json) => e.type)).toEqual(['vat.monitor.change_detected']);
    expect(JSON.stringify(events.data[0])).toContain('insolvency');
    registers.cvr.respond(answerAsDocumented('cvr'));
  });

  it('leaves DK with GLEIF, as before CVR, while the CVR credentials are not both set', async () => {
    const withoutCvr = createLiveSource(
      {
        enabled: [...LIVE_SOURCE_NAMES],
        // A user name alone is not enough: the register is off until every variable is set.
        credentials: { COMPANIES_HOUSE_API_KEY: 'test-key-0000', CVR_USERNAME: 'fixture-user' },
        baseUrls: Object.fromEntries(
          LIVE_SOURCE_NAMES.map((name) => [name, registers[name].base]),
        ) as Record<LiveSourceName, string>,
      },
      {
        database,
        clock: upstreamClock,
        buckets: memoryTokenBuckets(() => upstreamClock.now().getTime()),
      },
    );
    try {
      const denmark = withoutCvr.coverage.filter((c) => c.countryCode === 'DK');
      expect(denmark.length).toBeGreaterThan(0);
      expect(
        denmark
          .flatMap((c) => c.identifiers)
          .find((i) => i.identifierType === 'registration_number')?.registryMatch,
      ).toBe('partial');
      const askedCvr = registers.cvr.requests.length;
      const askedGleif = registers.gleif.requests.length;
      const result = await withoutCvr.lookup({
        countryCode: 'DK',
        identifierType: 'registration_number',
        normalized: '40112235',
      });
      expect(result.outcome !== 'unavailable' && result.source?.source_name).toContain('GLEIF');
      expect(registers.cvr.requests.length).toBe(askedCvr);
      expect(registers.gleif.requests.length).toBeGreaterThan(askedGleif);
    } finally {
      await withoutCvr.close();
    }
  });

  it('reports what Bolagsverket says: a bankruptcy and a liquidation under way, a number it does not hold; SE search stays with GLEIF', async () => {
    const check = async (identifier_type: string, identifier: string) =>
      readJson(
        await post(t.baseUrl, '/checks', { identifier_type, identifier, country_code: 'SE' }, key),
      );
    const bankrupt = await check('registration_number', '5299999986');
    expect(bankrupt.registry_match_status).toBe('matched');
    expect(bankrupt.company_legal_status).toBe('insolvency');
    expect(bankrupt.company.raw_company_legal_status).toBe(
      'pagaende KK Konkurs 2024-01-26; pagaende LI Likvidation 2024-05-26',
    );
    // Statistics Sweden's flag (no F-skatt, VAT or employer registration) beside a VAT number:
    // company-record evidence, no tax authority asked.
    const vat = await check('vat_number', 'SE529999998601');
    expect(vat.registry_match_status).toBe('matched');
    expect(vat.tax_authority_status).toBe('not_supported');
    expect(vat.warnings).toEqual([
      expect.objectContaining({ code: 'vat_not_registered_in_company_record' }),
    ]);
    const unknown = await check('registration_number', '5299999960');
    expect(unknown.registry_match_status).toBe('not_matched');
    expect(bolagsverketAsked.slice(-3)).toEqual(['5299999986', '5299999986', '5299999960']);
    // The number travels in the body only, never in a URL.
    expect(registers.bolagsverket.requests.every((path) => !/\d{10}/.test(path))).toBe(true);

    const asked = registers.bolagsverket.requests.length;
    const search = await readJson(
      await post(t.baseUrl, '/companies/search', { country_code: 'SE', name: 'Verktyg' }, key),
    );
    expect(search.data[0].sources[0].source_name).toContain('GLEIF');
    expect(registers.bolagsverket.requests.length).toBe(asked);
  });

  it('rechecks a live SE monitor through Bolagsverket with a new token, and records the bankruptcy that follows as a change', async () => {
    const created = await readJson(
      await post(
        t.baseUrl,
        '/monitors',
        { identifier_type: 'registration_number', identifier: '5299999994', country_code: 'SE' },
        key,
      ),
    );
    expect(created.monitor.latest_snapshot).toMatchObject({
      registry_match_status: 'matched',
      company_legal_status: 'active',
    });
    const asked = registers.bolagsverket.requests.length;
    // Bolagsverket now records a bankruptcy (KK) for the company.
    const bankrupt = fixture('bolagsverket', 'organisationer-aktiebolag.json');
    bankrupt.organisationer[0].pagaendeAvvecklingsEllerOmstruktureringsforfarande = fixture(
      'bolagsverket',
      'organisationer-konkurs.json',
    ).organisationer[0].pagaendeAvvecklingsEllerOmstruktureringsforfarande;
    bolagsverketOrganisations.set('5299999994', bankrupt);
    const scheduler = await onlyThisMonitorDue(created.monitor.id);
    expect(await scheduler.tick()).toMatchObject({ claimed: 1, rechecked: 1 });
    // The token of a month ago has expired: a new one, then the organisation.
    expect(registers.bolagsverket.requests.slice(asked)).toEqual([
      '/oauth2/token',
      '/organisationer',
    ]);
    const monitor = await readJson(await get(t.baseUrl, `/monitors/${created.monitor.id}`, key));
    expect(monitor.health).toBe('healthy');
    expect(monitor.latest_snapshot.company_legal_status).toBe('insolvency');
    const events = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${created.monitor.id}`, key),
    );
    expect(events.data.map((e: Json) => e.type)).toEqual(['vat.monitor.change_detected']);
    bolagsverketOrganisations.set(
      '5299999994',
      fixture('bolagsverket', 'organisationer-aktiebolag.json'),
    );
  });

  it('rechecks a live monitor through its register', async () => {
    const created = await readJson(
      await post(
        t.baseUrl,
        '/monitors',
        { identifier_type: 'registration_number', identifier: '09990001', country_code: 'GB' },
        key,
      ),
    );
    expect(created.monitor.latest_snapshot.registry_match_status).toBe('matched');
    const asked = registers.companies_house.requests.length;
    const scheduler = await onlyThisMonitorDue(created.monitor.id);
    expect(await scheduler.tick()).toMatchObject({ claimed: 1, rechecked: 1 });
    expect(registers.companies_house.requests.length).toBe(asked + 1);
    const monitor = await readJson(await get(t.baseUrl, `/monitors/${created.monitor.id}`, key));
    expect(monitor.health).toBe('healthy');
    expect(monitor.latest_snapshot.legal_name).toBe('FIXTURE WIDGETS LIMITED');

    // The register goes down: the recheck's answer is unavailable, and the monitor says so
    // through the existing path (source_degraded and its event), never as a change.
    registers.companies_house.respond(json(503, { error: 'Service Unavailable' }));
    t.clock.advance(2 * 24 * 3600_000);
    upstreamClock.advance(2 * 24 * 3600_000);
    expect(await scheduler.tick()).toMatchObject({ claimed: 1, rechecked: 1 });
    const degraded = await readJson(await get(t.baseUrl, `/monitors/${created.monitor.id}`, key));
    expect(degraded).toMatchObject({
      health: 'source_degraded',
      last_error_code: 'registry_unavailable',
    });
    expect(degraded.latest_snapshot.registry_match_status).toBe('matched');
    const events = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${created.monitor.id}`, key),
    );
    expect(events.data.map((e: Json) => e.type)).toEqual(['vat.monitor.source_degraded']);
  });

  it('rechecks a live PL monitor by VAT number through REGON BIR, logging in again when the session has expired, and records the end of activity as a change', async () => {
    const created = await readJson(
      await post(
        t.baseUrl,
        '/monitors',
        { identifier_type: 'vat_number', identifier: 'PL8567346215', country_code: 'PL' },
        key,
      ),
    );
    expect(created.monitor.latest_snapshot).toMatchObject({
      registry_match_status: 'matched',
      company_legal_status: 'active',
    });
    const asked = regon.calls.length;
    // REGON now records the end of the entity's activity; its session has meanwhile expired.
    const ended = { ...SAMPLE_ENTITY, DataZakonczeniaDzialalnosci: '2026-12-01' };
    regon.entities.set(`Nip:${SAMPLE_ENTITY.Nip}`, [ended]);
    regon.expireSessions();
    t.clock.advance(31 * 24 * 3600_000);
    upstreamClock.advance(31 * 24 * 3600_000);
    await t.database.db
      .updateTable('monitors')
      .set({ next_check_at: '9999-01-01T00:00:00.000Z' })
      .where('id', '<>', created.monitor.id)
      .execute();
    const scheduler = createMonitorScheduler(
      t.database,
      domainDeps({ clock: t.clock, newId: t.newId, sources: { sandbox: sandboxSource(), live } }),
      { owner: 'live-test-regon' },
    );
    expect(await scheduler.tick()).toMatchObject({ claimed: 1, rechecked: 1 });
    expect(regon.calls.slice(asked).map((c) => c.operation)).toEqual([
      'DaneSzukajPodmioty',
      'GetValue',
      'Zaloguj',
      'DaneSzukajPodmioty',
    ]);
    const monitor = await readJson(await get(t.baseUrl, `/monitors/${created.monitor.id}`, key));
    expect(monitor.health).toBe('healthy');
    expect(monitor.latest_snapshot).toMatchObject({
      registry_match_status: 'matched',
      company_legal_status: 'dissolved',
    });
    const events = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${created.monitor.id}`, key),
    );
    expect(events.data.map((e: Json) => e.type)).toEqual(['vat.monitor.change_detected']);
    regon.entities.set(`Nip:${SAMPLE_ENTITY.Nip}`, [SAMPLE_ENTITY]);
  });

  it('rechecks a live PL monitor through the KRS, and reports the bankruptcy it then records', async () => {
    const created = await readJson(
      await post(
        t.baseUrl,
        '/monitors',
        { identifier_type: 'registration_number', identifier: '0000999001', country_code: 'PL' },
        key,
      ),
    );
    expect(created.monitor.latest_snapshot).toMatchObject({
      registry_match_status: 'matched',
      company_legal_status: 'active',
    });
    const asked = registers.krs.requests.length;
    // The register now records a bankruptcy for the same entity (section 6 and the name).
    const bankrupt = fixture('krs', 'odpis-aktualny-upadlosc.json');
    bankrupt.odpis.naglowekA.numerKRS = '0000999001';
    krsExtracts.set('P:0000999001', bankrupt);
    const scheduler = await onlyThisMonitorDue(created.monitor.id);
    expect(await scheduler.tick()).toMatchObject({ claimed: 1, rechecked: 1 });
    expect(registers.krs.requests.slice(asked)).toEqual([
      '/api/krs/OdpisAktualny/0000999001?rejestr=P&format=json',
    ]);
    const monitor = await readJson(await get(t.baseUrl, `/monitors/${created.monitor.id}`, key));
    expect(monitor.health).toBe('healthy');
    expect(monitor.latest_snapshot).toMatchObject({
      company_legal_status: 'insolvency',
      legal_name: 'ODRZAŃSKA STAL SPÓŁKA AKCYJNA W UPADŁOŚCI',
    });
    const events = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${created.monitor.id}`, key),
    );
    expect(events.data.map((e: Json) => e.type)).toEqual(['vat.monitor.change_detected']);
    krsExtracts.set('P:0000999001', fixture('krs', 'odpis-aktualny-p.json'));
  });
  it('stops asking Companies House once its 429 says the window is spent, until X-Ratelimit-Reset', async () => {
    // Companies House's 429: no Retry-After; the window's end in X-Ratelimit-Reset (epoch
    // seconds), nothing left in X-Ratelimit-Remain (see test/sources/companies-house.test.ts).
    const resetAt = upstreamClock.now().getTime() + 300_000;
    registers.companies_house.respond(
      json(
        429,
        { error: 'Too Many Requests' },
        {
          'x-ratelimit-limit': '600',
          'x-ratelimit-remain': '0',
          'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)),
          'x-ratelimit-window': '5m',
        },
      ),
    );
    const asked = registers.companies_house.requests.length;
    const checkGb = async (identifier: string) => {
      const response = await post(
        t.baseUrl,
        '/checks',
        { identifier_type: 'registration_number', identifier, country_code: 'GB' },
        key,
      );
      expect(response.status).toBe(201);
      return readJson(response);
    };
    const limited = await checkGb('09990002');
    expect(limited.registry_match_status).toBe('unavailable');
    expect(limited.warnings.map((w: Json) => w.code)).toContain('registry_unavailable');
    expect(registers.companies_house.requests.length).toBe(asked + 1);
    // Until the reset, checks are unavailable without a request reaching Companies House.
    upstreamClock.advance(120_000);
    expect((await checkGb('09990003')).registry_match_status).toBe('unavailable');
    expect(registers.companies_house.requests.length).toBe(asked + 1);
    upstreamClock.advance(resetAt - upstreamClock.now().getTime() + 1000);
    registers.companies_house.respond((request, response) => {
      const answer = ANSWERS.companies_house(new URL(request.url ?? '/', 'http://register'));
      json(answer.status, answer.body)(request, response);
    });
    expect((await checkGb('09990003')).registry_match_status).toBe('not_matched');
    expect(registers.companies_house.requests.length).toBe(asked + 2);
  });
});

describe.each(DIALECTS)('live SE without Bolagsverket credentials [%s]', (dialect) => {
  let t: TestApp;
  let database: TestDatabase;
  let live: LiveSource;
  let key: string;
  let gleif: FakeRegister;
  let bolagsverket: FakeRegister;
  const upstreamClock = fixedClock('2026-11-21T11:00:00.000Z');

  beforeAll(async () => {
    gleif = await startFakeRegister();
    gleif.respond(answerAsDocumented('gleif'));
    bolagsverket = await startFakeRegister();
    bolagsverket.respond(answerAsDocumented('bolagsverket'));
    database = await createTestDatabase(dialect);
    live = createLiveSource(
      {
        enabled: [...LIVE_SOURCE_NAMES],
        // Companies House's key only: Bolagsverket is off, as in a deployment without its client.
        credentials: { COMPANIES_HOUSE_API_KEY: 'test-key-0000' },
        baseUrls: Object.fromEntries(
          LIVE_SOURCE_NAMES.map((name) => [
            name,
            name === 'bolagsverket' ? bolagsverket.base : gleif.base,
          ]),
        ) as Record<LiveSourceName, string>,
      },
      {
        database,
        clock: upstreamClock,
        buckets: memoryTokenBuckets(() => upstreamClock.now().getTime()),
      },
    );
    t = await startTestApp({ database, sources: { sandbox: sandboxSource(), live } });
    const created = await t.createKey({ environment: 'live' });
    await t.fundWorkspace(created.workspace_id, 100);
    key = created.key;
  });
  afterAll(async () => {
    await t.close();
    await live.close();
    await database.cleanup();
    await gleif.close();
    await bolagsverket.close();
  });

  it('answers SE from GLEIF, as before Bolagsverket, and never asks Bolagsverket', async () => {
    const check = await readJson(
      await post(
        t.baseUrl,
        '/checks',
        { identifier_type: 'registration_number', identifier: '5599990008', country_code: 'SE' },
        key,
      ),
    );
    expect(check.registry_match_status).toBe('matched');
    expect(check.company.sources[0].source_name).toContain('GLEIF');
    const sweden = await readJson(await get(t.baseUrl, '/countries/SE', key));
    expect(
      sweden.identifier_capabilities.find((c: Json) => c.identifier_type === 'registration_number')
        .registry_match,
    ).toBe('partial');
    expect(bolagsverket.requests).toEqual([]);
  });
});
