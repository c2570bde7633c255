import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { ARIREGISTER_NO_DATA_REASON } from '../../src/sources/ariregister/ariregister-mirror.js';
import { EDGAR_NO_DATA_REASON } from '../../src/sources/edgar/edgar-mirror.js';
import {
  defaultLiveCoverageOf,
  defaultLiveRegisters,
  defaultLiveSourceCoverage,
} from '../../src/sources/live-coverage.js';
import { LIVE_SOURCE_NAMES, type LiveSourceName } from '../../src/sources/live-source-names.js';
import { createLiveSource, LIVE_SOURCES, type LiveSource } from '../../src/sources/live-sources.js';
import { CREDENTIAL_VARIABLES } from '../../src/sources/register-credentials.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';

/**
 * The default live configuration's coverage, which the sandbox's live_coverage_differs warning
 * and docs/sandbox.md speak of, read from what the registers declare.
 */
describe('default live coverage', () => {
  let database: TestDatabase;
  const built: LiveSource[] = [];
  const live = (companiesHouseApiKey: string | null) => {
    const source = createLiveSource(
      {
        enabled: [...LIVE_SOURCE_NAMES],
        // With a key: every register's credentials set (Companies House's key, CVR's user name
        // and password, ...), as "every key" means.
        credentials: companiesHouseApiKey
          ? Object.fromEntries(
              CREDENTIAL_VARIABLES.map((variable) => [variable, companiesHouseApiKey]),
            )
          : {},
        baseUrls: Object.fromEntries(
          LIVE_SOURCE_NAMES.map((name) => [name, 'http://127.0.0.1:1']),
        ) as Record<LiveSourceName, string>,
      },
      { database, clock: fixedClock('2026-11-21T12:00:00.000Z'), buckets: memoryTokenBuckets() },
    );
    built.push(source);
    return source;
  };
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await Promise.all(built.map((source) => source.close()));
    await database.cleanup();
  });

  it('is what the live source of the default configuration with every key declares (GET /countries)', () => {
    expect(defaultLiveSourceCoverage()).toEqual(live('test-key-0000').coverage);
    expect(defaultLiveRegisters().map((r) => r.name)).toEqual([...LIVE_SOURCE_NAMES]);
  });

  it('says which register needs a key, and what live gives without it', () => {
    const keyless = live(null).coverage;
    expect(keyless.find((c) => c.countryCode === 'GB')).toBeUndefined();
    const gb = defaultLiveCoverageOf('GB', 'registration_number');
    expect(gb).toMatchObject({
      registryMatch: 'supported',
      companyLegalStatus: 'supported',
      register: { name: 'companies_house', keyVariables: 'COMPANIES_HOUSE_API_KEY' },
      withoutKey: { registryMatch: 'not_supported', companyLegalStatus: 'not_supported' },
    });
    // Bolagsverket needs its client; without it SE is GLEIF's.
    expect(defaultLiveCoverageOf('SE', 'registration_number')).toMatchObject({
      registryMatch: 'supported',
      register: {
        name: 'bolagsverket',
        keyVariables: 'BOLAGSVERKET_CLIENT_ID and BOLAGSVERKET_CLIENT_SECRET',
      },
      withoutKey: { registryMatch: 'partial' },
    });
    // A register without a key is on in every configuration: nothing to say without one.
    expect(defaultLiveCoverageOf('DE', 'registration_number').withoutKey).toBeUndefined();
  });

  it('every register that declares partial coverage says why', () => {
    for (const register of defaultLiveRegisters()) {
      const partial = register.source.coverage.some(
        (c) =>
          c.companySearch === 'partial' ||
          c.identifiers.some(
            (i) => i.registryMatch === 'partial' || i.companyLegalStatus === 'partial',
          ),
      );
      if (partial)
        expect(LIVE_SOURCES[register.name].partialCoverage, register.name).toMatch(/\.$/);
    }
  });

  it('keeps the register’s own reason where no register covers a type', () => {
    expect(defaultLiveCoverageOf('GB', 'vat_number')).toMatchObject({
      registryMatch: 'not_supported',
      register: { name: 'companies_house' },
      notSupportedReason: expect.stringContaining('HMRC'),
    });
    // The EDGAR mirror declares nothing until a version is imported, and says so.
    expect(defaultLiveCoverageOf('US', 'tax_identifier')).toEqual({
      registryMatch: 'not_supported',
      companyLegalStatus: 'not_supported',
      notSupportedReason: EDGAR_NO_DATA_REASON,
    });
    // So does the e-Business Register's: EE registry codes stay GLEIF's, EE VAT numbers say why.
    expect(defaultLiveCoverageOf('EE', 'registration_number')).toMatchObject({
      registryMatch: 'partial',
      register: { name: 'gleif' },
    });
    expect(defaultLiveCoverageOf('EE', 'vat_number')).toEqual({
      registryMatch: 'not_supported',
      companyLegalStatus: 'not_supported',
      notSupportedReason: ARIREGISTER_NO_DATA_REASON,
    });
  });
});
