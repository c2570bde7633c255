import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, describeDatabase, loadConfig } from '../src/config.js';

const PACKAGE_DATABASE = join(
  fileURLToPath(new URL('..', import.meta.url)),
  'data',
  'firmwatch.db',
);

describe('configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      database: {
        dialect: 'sqlite',
        // In the package directory, not the current one (the CLI from a subfolder, npm start).
        url: `sqlite:${PACKAGE_DATABASE}`,
        path: PACKAGE_DATABASE,
      },
      publicBaseUrl: null,
      trustProxy: [],
      logLevel: 'info',
      shutdownTimeoutMs: 10_000,
      http: {
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 30_000,
        maxConnections: 4096,
        shutdownDrainMs: 1000,
      },
      snapshotsPerDay: 10_000,
      monitorSlots: 1000,
      workerInServe: true,
      workerHealthPort: null,
      metricsPort: null,
      monitorLeaseMs: 60_000,
      redisUrl: null,
      rateLimits: {
        perKey: { capacity: 50, refillPerSecond: 25 },
        perIp: { capacity: 60, refillPerSecond: 20 },
      },
      liveSources: {
        enabled: [
          'companies_house',
          'brreg',
          'recherche_entreprises',
          'ares',
          'prh',
          'krs',
          'regon',
          'cvr',
          'uid',
          'bolagsverket',
          'edgar',
          'ariregister',
          'kbo',
          'gleif',
        ],
        credentials: {},
        baseUrls: {
          companies_house: 'https://api.company-information.service.gov.uk',
          brreg: 'https://data.brreg.no/enhetsregisteret/api',
          recherche_entreprises: 'https://recherche-entreprises.api.gouv.fr',
          ares: 'https://ares.gov.cz/ekonomicke-subjekty-v-be/rest',
          gleif: 'https://api.gleif.org/api/v1',
          prh: 'https://avoindata.prh.fi/opendata-ytj-api/v3',
          krs: 'https://api-krs.ms.gov.pl',
          cvr: 'http://distribution.virk.dk',
          uid: 'https://www.uid-wse.admin.ch',
          bolagsverket: 'https://gw.api.bolagsverket.se/vardefulla-datamangder/v1',
          regon: 'https://wyszukiwarkaregon.stat.gov.pl/wsBIR/UslugaBIRzewnPubl.svc',
          edgar: 'https://www.sec.gov',
          ariregister: 'https://ariregister.rik.ee',
          kbo: 'https://kbopub.economie.fgov.be',
        },
      },
      mirrors: {
        refresh: [],
        refreshIntervalMs: 24 * 3_600_000,
        download: {
          // Beside the SQLite database: the data directory of the package.
          directory: dirname(PACKAGE_DATABASE),
          secUserAgent: null,
          urls: {
            edgar: 'https://www.sec.gov/Archives/edgar/daily-index/bulkdata/submissions.zip',
          },
        },
      },
      feeds: { enabled: [], companiesHouseStreamBaseUrl: 'https://stream.companieshouse.gov.uk' },
    });
  });

  it('reads FEEDS, and refuses the Companies House feed without its own streaming key', () => {
    expect(
      loadConfig({ FEEDS: 'brreg,companies_house', COMPANIES_HOUSE_STREAM_KEY: 'stream-key-1' })
        .feeds.enabled,
    ).toEqual(['brreg', 'companies_house']);
    expect(() => loadConfig({ FEEDS: 'companies_house' })).toThrow('COMPANIES_HOUSE_STREAM_KEY');
    expect(() => loadConfig({ FEEDS: 'opencorporates' })).toThrow('unknown feed');
    expect(() => loadConfig({ FEEDS: 'brreg,brreg' })).toThrow('twice');
    expect(() => loadConfig({ COMPANIES_HOUSE_STREAM_BASE_URL: 'ftp://x' })).toThrow(
      'COMPANIES_HOUSE_STREAM_BASE_URL',
    );
  });

  it('reads METRICS_PORT, and refuses one that is no port', () => {
    expect(loadConfig({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(loadConfig({ METRICS_PORT: '0' }).metricsPort).toBe(0);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow('METRICS_PORT');
    expect(() => loadConfig({ METRICS_PORT: 'prometheus' })).toThrow('METRICS_PORT');
  });

  it('reads the live sources: their order, none, a base URL and the Companies House key', () => {
    const config = loadConfig({
      LIVE_SOURCES: 'gleif, brreg',
      GLEIF_BASE_URL: 'http://127.0.0.1:9999/api/v1/',
      COMPANIES_HOUSE_API_KEY: 'abcd1234-ef56',
    });
    expect(config.liveSources.enabled).toEqual(['gleif', 'brreg']);
    expect(config.liveSources.baseUrls.gleif).toBe('http://127.0.0.1:9999/api/v1');
    expect(config.liveSources.credentials).toEqual({ COMPANIES_HOUSE_API_KEY: 'abcd1234-ef56' });
    expect(loadConfig({ LIVE_SOURCES: 'none' }).liveSources.enabled).toEqual([]);
    expect(() => loadConfig({ LIVE_SOURCES: 'gleif,opencorporates' })).toThrow(
      'LIVE_SOURCES: unknown source "opencorporates"',
    );
    expect(() => loadConfig({ LIVE_SOURCES: 'gleif,gleif' })).toThrow('twice');
    expect(() => loadConfig({ ARES_BASE_URL: 'ftp://ares' })).toThrow('ARES_BASE_URL: must use');
    expect(() => loadConfig({ COMPANIES_HOUSE_API_KEY: 'no spaces allowed' })).toThrow(
      'COMPANIES_HOUSE_API_KEY',
    );
  });

  it("reads Bolagsverket's client credentials, and a bad one is refused without repeating it", () => {
    const credentials = {
      BOLAGSVERKET_CLIENT_ID: 'UIiATHgXGSP6HIyOlqWZkX51dnka',
      BOLAGSVERKET_CLIENT_SECRET: 'H10hBNr_KeYqA9h5AEe7J32HkFsa',
    };
    expect(loadConfig(credentials).liveSources.credentials).toEqual(credentials);
    let message = '';
    try {
      loadConfig({ BOLAGSVERKET_CLIENT_SECRET: 'secret with spaces' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(
      'BOLAGSVERKET_CLIENT_SECRET: is not a Bolagsverket API client secret',
    );
    expect(message).not.toContain('secret with spaces');
  });

  it('reads the REGON BIR key, and refuses one that is not a BIR user key', () => {
    expect(loadConfig({ REGON_API_KEY: 'abcde12345abcde12345' }).liveSources.credentials).toEqual({
      REGON_API_KEY: 'abcde12345abcde12345',
    });
    expect(() => loadConfig({ REGON_API_KEY: 'abcde 12345' })).toThrow(
      'REGON_API_KEY: is not a REGON BIR user key',
    );
  });

  it('keeps a relative SQLite path that is set relative to the current directory', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite:./mine.db' }).database).toEqual({
      dialect: 'sqlite',
      url: 'sqlite:./mine.db',
      path: './mine.db',
    });
    expect(describeDatabase(loadConfig({ DATABASE_URL: 'sqlite:./mine.db' }).database)).toBe(
      join(process.cwd(), 'mine.db'),
    );
  });

  it('selects PostgreSQL from a postgres:// URL', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://firmwatch@db.internal:5432/firmwatch' });
    expect(config.database).toEqual({
      dialect: 'postgres',
      url: 'postgres://firmwatch@db.internal:5432/firmwatch',
      timeouts: {
        statementTimeoutMs: 30_000,
        lockTimeoutMs: 5000,
        idleInTransactionTimeoutMs: 10_000,
      },
    });
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@h/d' }).database.dialect).toBe('postgres');
  });

  it('normalises PUBLIC_BASE_URL and requires the /v1 segment', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.com/v1/' }).publicBaseUrl).toBe(
      'https://api.example.com/v1',
    );
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://example.com/firmwatch/v1' }).publicBaseUrl).toBe(
      'https://example.com/firmwatch/v1',
    );
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['HOST', 'local host'],
    ['DATABASE_URL', 'mysql://root@localhost/db'],
    ['DATABASE_URL', 'sqlite:'],
    ['PUBLIC_BASE_URL', 'api.example.com/v1'],
    ['PUBLIC_BASE_URL', 'ftp://example.com/v1'],
    ['PUBLIC_BASE_URL', 'https://example.com/v2'],
    ['PUBLIC_BASE_URL', 'https://user:pw@example.com/v1'],
    ['LOG_LEVEL', 'verbose'],
    ['SHUTDOWN_TIMEOUT_MS', '10s'],
    ['REQUEST_TIMEOUT_MS', '0'],
    ['MAX_CONNECTIONS', '0'],
    ['SHUTDOWN_DRAIN_MS', '-1'],
    ['MONITOR_SLOTS', '0'],
    ['WORKER_IN_SERVE', 'yes'],
    ['REDIS_URL', 'localhost:6379'],
    ['SNAPSHOT_DAILY_ALLOWANCE', '0'],
    ['RATE_LIMIT_KEY_BURST', '0'],
    ['RATE_LIMIT_IP_PER_SECOND', 'fast'],
  ])('rejects %s=%s with a one-line error naming the variable', (variable, value) => {
    let error: unknown;
    try {
      loadConfig({ [variable]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as ConfigError).message.startsWith(`${variable}: `)).toBe(true);
    expect((error as ConfigError).message).not.toContain('\n');
  });

  it('keeps the PostgreSQL timeouts under the monitor lease, and the lock timeout under the statement timeout', () => {
    const postgres = { DATABASE_URL: 'postgres://u@h/d' };
    expect(
      loadConfig({
        ...postgres,
        MONITOR_LEASE_MS: '10000',
        PG_STATEMENT_TIMEOUT_MS: '4000',
        PG_IDLE_IN_TRANSACTION_TIMEOUT_MS: '1000',
      }),
    ).toMatchObject({
      monitorLeaseMs: 10_000,
      database: {
        timeouts: {
          statementTimeoutMs: 4000,
          lockTimeoutMs: 4000,
          idleInTransactionTimeoutMs: 1000,
        },
      },
    });
    // 30 s + 10 s by default: the lease must outlast them.
    expect(() => loadConfig({ ...postgres, MONITOR_LEASE_MS: '40000' })).toThrow(
      /^MONITOR_LEASE_MS: must be longer than PG_STATEMENT_TIMEOUT_MS \+ PG_IDLE_IN_TRANSACTION_TIMEOUT_MS \(30000 \+ 10000 ms\)/,
    );
    expect(() => loadConfig({ ...postgres, PG_IDLE_IN_TRANSACTION_TIMEOUT_MS: '30000' })).toThrow(
      /^MONITOR_LEASE_MS: must be longer/,
    );
    expect(() => loadConfig({ ...postgres, PG_LOCK_TIMEOUT_MS: '31000' })).toThrow(
      /^PG_LOCK_TIMEOUT_MS: must be an integer from 100 to 30000/,
    );
    expect(() => loadConfig({ ...postgres, PG_IDLE_IN_TRANSACTION_TIMEOUT_MS: '0' })).toThrow(
      /^PG_IDLE_IN_TRANSACTION_TIMEOUT_MS: must be an integer from 100/,
    );
    // SQLite has no such sessions: a short lease is its own business there.
    expect(loadConfig({ MONITOR_LEASE_MS: '5000' }).monitorLeaseMs).toBe(5000);
  });

  it('keeps the headers timeout within the request timeout', () => {
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '5000' }).http).toMatchObject({
      headersTimeoutMs: 5000,
      requestTimeoutMs: 5000,
    });
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '6000' })).toThrow(
      /^HEADERS_TIMEOUT_MS: must be an integer from 100 to 5000/,
    );
  });

  it('reads exactly the variables it documents (the README table is generated from that list)', () => {
    const read = new Set<string>();
    const env = new Proxy({} as Record<string, string | undefined>, {
      get(_target, name) {
        if (typeof name === 'string') read.add(name);
        return undefined;
      },
    });
    loadConfig(env);
    expect([...read].sort()).toEqual(CONFIG_VARIABLES.map((v) => v.name).sort());
  });

  it.each(
    // Not the ones described rather than spelled out: (none), HOST:PORT, <package directory>.
    CONFIG_VARIABLES.filter((v) => !/^\(|HOST:PORT|<package directory>/.test(v.default)),
  )('the documented default of $name is the default', (variable) => {
    expect(loadConfig({ [variable.name]: variable.default })).toEqual(loadConfig({}));
  });
});
