import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleMirrorCoverageRefresh } from '../../src/jobs/mirror-coverage.js';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { importMirror } from '../../src/mirrors/mirror-import.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { get, type Json, post, readJson } from '../helpers/http.js';
import { liveApps } from '../helpers/live-app.js';

/**
 * The SEC EDGAR mirror as the live US source, through the HTTP API: before any import US is
 * not_supported; after importing the samples (in the SEC's submissions format;
 * test/fixtures/sources/edgar/README.md cites the documents) a live EIN check and a live search
 * answer from the mirror. No register is called: the mirror reads the database.
 */
const SAMPLES = join(import.meta.dirname, '../fixtures/sources/edgar/submissions');
const RETRIEVED = '2026-11-20T03:00:00.000Z';

let dir: string;
let files: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-edgar-source-'));
  files = join(dir, 'submissions');
  cpSync(SAMPLES, files, { recursive: true });
  // A malformed filer: counted and skipped at import, never served.
  writeFileSync(join(files, 'CIK0000000002.json'), '{"cik":"0000000002","name":"TRUNCATED');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(DIALECTS)('the SEC EDGAR mirror as a live source [%s]', (dialect) => {
  let database: TestDatabase;
  const live = liveApps(() => database);

  const start = () => live.start({ enabled: ['edgar'], credits: 10 });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await live.close();
    await database.cleanup();
  });

  it('keeps US not_supported before any import, then answers EIN checks and searches from the imported file', async () => {
    const before = await start();
    const country = await readJson(await get(before.t.baseUrl, '/countries/US', before.key));
    expect(country).toMatchObject({
      company_search: 'not_supported',
      identifier_capabilities: [
        { registry_match: 'not_supported', company_legal_status: 'not_supported' },
      ],
    });
    const unsupported = await readJson(
      await post(
        before.t.baseUrl,
        '/checks',
        { identifier_type: 'tax_identifier', identifier: '94-2404110', country_code: 'US' },
        before.key,
      ),
    );
    expect(unsupported.registry_match_status).toBe('not_supported');
    expect(JSON.stringify(unsupported)).toContain('The SEC EDGAR mirror has no data yet');

    const imported = await importMirror(
      database,
      { clock: systemClock, newId: createIdGenerator(systemClock) },
      { name: 'edgar', path: files, retrievedAt: new Date(RETRIEVED), owner: 'test' },
    );
    expect(imported).toMatchObject({ imported_rows: 3, skipped_rows: 1 });

    // No restart: the running app declares US once the job has re-read which mirrors have data
    // (every minute in `serve`; every 50 ms here).
    const { t, key } = before;
    const [source] = live.sources;
    if (!source) throw new Error('no live source');
    const stopRefresh = scheduleMirrorCoverageRefresh(source, pino({ enabled: false }), 50);
    let covered: Json = {};
    for (let waited = 0; waited < 5000 && covered.company_search !== 'partial'; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      covered = await readJson(await get(t.baseUrl, '/countries/US', key));
    }
    stopRefresh();
    expect(covered).toMatchObject({
      company_search: 'partial',
      // The date of the data US is answered from: when the SEC's file was retrieved.
      updated_at: RETRIEVED,
      identifier_capabilities: [
        {
          identifier_type: 'tax_identifier',
          registry_match: 'partial',
          tax_authority_check: 'not_supported',
          company_legal_status: 'not_supported',
        },
      ],
    });
    const check = async (identifier: string) =>
      readJson(
        await post(
          t.baseUrl,
          '/checks',
          { identifier_type: 'tax_identifier', identifier, country_code: 'US' },
          key,
        ),
      );
    const apple = await check('94-2404110');
    expect(apple.registry_match_status).toBe('matched');
    expect(apple.company.legal_name).toBe('Apple Inc.');
    expect(apple.company_legal_status).toBe('unknown');
    expect(apple.credits_used).toBe(1);
    const evidence = apple.evidence.find((e: Json) => e.dimension === 'registry_match');
    expect(evidence).toMatchObject({
      source_name: 'SEC EDGAR',
      source_url: 'https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=0000320193',
      retrieved_at: RETRIEVED,
    });

    const unknown = await check('12-3456789');
    expect(unknown.registry_match_status).toBe('not_matched');

    const search = await readJson(
      await post(t.baseUrl, '/companies/search', { country_code: 'US', name: 'micro' }, key),
    );
    expect(search.data.map((c: Json) => c.legal_name)).toEqual(['MICROSOFT CORP']);
    // An empty city_or_state list filters nothing, as for every source.
    const anywhere = await readJson(
      await post(
        t.baseUrl,
        '/companies/search',
        { country_code: 'US', name: 'micro', city_or_state: [] },
        key,
      ),
    );
    expect(anywhere.data.map((c: Json) => c.legal_name)).toEqual(['MICROSOFT CORP']);

    // A sandbox key never reaches the mirror.
    const sandboxKey = (await t.createKey({ environment: 'sandbox' })).key;
    const sandbox = await readJson(
      await post(
        t.baseUrl,
        '/checks',
        { identifier_type: 'tax_identifier', identifier: '94-2404110', country_code: 'US' },
        sandboxKey,
      ),
    );
    expect(sandbox.evidence.map((e: Json) => e.source_name)).not.toContain('SEC EDGAR');
    expect(sandbox.credits_used).toBe(0);
  });
});
