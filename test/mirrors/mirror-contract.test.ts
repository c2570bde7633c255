import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { MIRROR_FORMATS, MIRROR_NAMES } from '../../src/mirrors/mirror-formats.js';
import { importMirror } from '../../src/mirrors/mirror-import.js';
import { LIVE_SOURCE_DEFAULT_BASE_URLS } from '../../src/sources/live-source-names.js';
import { type MirrorSource, mirrorSource } from '../../src/sources/mirror-source.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { MIRROR_CONTRACTS } from './contract/registered-mirrors.js';

/**
 * The shared contract every register mirror keeps, from a small sample in its register's real
 * format: no data before an import (not_supported, with the reason); found, with the register's
 * page and the file's retrieval time; not found; every status of the file's vocabulary; malformed
 * records counted, described and skipped; a search by name.
 */
const RETRIEVED = '2026-11-20T03:00:00.000Z';

it('registers every mirror', () => {
  expect(MIRROR_CONTRACTS.map((contract) => contract.name).sort()).toEqual(
    [...MIRROR_NAMES].sort(),
  );
});

describe.each(DIALECTS)('the mirror contract [%s]', (dialect) => {
  describe.each(MIRROR_CONTRACTS.map((contract) => [contract.name, contract] as const))(
    '%s',
    (name, contract) => {
      let database: TestDatabase;
      let dir: string;
      let source: MirrorSource;
      const { countryCode } = MIRROR_FORMATS[name];
      const lookup = (number: { identifierType: string; normalized: string }) =>
        source.lookup({ countryCode, ...number } as Parameters<MirrorSource['lookup']>[0]);

      beforeAll(async () => {
        database = await createTestDatabase(dialect);
        dir = mkdtempSync(join(tmpdir(), `firmwatch-mirror-contract-${name}-`));
        source = mirrorSource(contract.definition, {
          database,
          baseUrl: LIVE_SOURCE_DEFAULT_BASE_URLS[name],
        });
      });
      afterAll(async () => {
        await database.cleanup();
        rmSync(dir, { recursive: true, force: true });
      });

      it('declares nothing and says why before its first import', async () => {
        expect(await source.refresh()).toBe(false);
        expect(source.coverage).toEqual([]);
        expect(source.supports(countryCode, contract.found.identifierType)).toBe(false);
        expect(source.searches(countryCode)).toBe(false);
        expect(source.notSupportedReason?.(countryCode, contract.found.identifierType)).toBe(
          contract.definition.noDataReason,
        );
        expect(await lookup(contract.found)).toEqual({
          outcome: 'unavailable',
          reason: contract.definition.noDataReason,
        });
      });

      it('imports its sample, skipping and describing each malformed record', async () => {
        const result = await importMirror(
          database,
          { clock: systemClock, newId: createIdGenerator(systemClock) },
          {
            name,
            path: contract.writeSample(dir),
            retrievedAt: new Date(RETRIEVED),
            owner: 'contract',
          },
        );
        expect(result.skipped_rows).toBe(contract.skipped.count);
        expect(result.skipped_examples[0]).toContain(contract.skipped.firstReason);
        expect(result.imported_rows).toBeGreaterThan(0);
        expect(await source.refresh()).toBe(true);
        // Declared, as of when its file was retrieved (GET /countries's updated_at).
        expect(source.coverage).toEqual([
          { ...contract.definition.coverage, dataRetrievedAt: RETRIEVED },
        ]);
        expect(source.supports(countryCode, contract.found.identifierType)).toBe(true);
      });

      it('finds a company, naming the register and when its file was retrieved', async () => {
        const found = await lookup(contract.found);
        expect(found).toMatchObject({
          outcome: 'matched',
          company: { legal_name: contract.found.legalName, country_code: countryCode },
          source: {
            source_name: contract.definition.info.source_name,
            source_url: contract.found.url,
          },
        });
        expect(found.outcome !== 'unavailable' && found.retrievedAt?.toISOString()).toBe(RETRIEVED);
      });

      it('does not find a number the file does not hold', async () => {
        const missing = await lookup(contract.notFound);
        expect(missing.outcome).toBe('not_matched');
        expect(missing.outcome !== 'unavailable' && missing.retrievedAt?.toISOString()).toBe(
          RETRIEVED,
        );
      });

      it('reads every status of its file vocabulary as the register words it', async () => {
        for (const expected of contract.statuses) {
          const found = await lookup(expected);
          if (found.outcome !== 'matched')
            throw new Error(`${expected.normalized}: ${found.outcome}`);
          expect([expected.normalized, found.company.company_legal_status]).toEqual([
            expected.normalized,
            expected.status,
          ]);
          expect(found.company.raw_company_legal_status).toBe(expected.raw);
        }
      });

      it('searches by the start of a name', async () => {
        const result = await source.search({ countryCode, name: contract.search.name });
        if (result.outcome !== 'ok') throw new Error(result.reason);
        expect(result.companies.map((company) => company.legal_name)).toEqual(
          contract.search.legalNames,
        );
        expect(result.retrievedAt?.toISOString()).toBe(RETRIEVED);
      });
    },
  );
});
