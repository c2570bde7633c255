import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { MonitorsTable } from '../../src/db/schema.js';
import { fixedClock, systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { importMirror } from '../../src/mirrors/mirror-import.js';
import { insertMonitor } from '../../src/modules/monitors/monitors.store.js';
import { runCli } from '../helpers/cli.js';
import {
  createScratchPostgresDatabase,
  createTestDatabase,
  DIALECTS,
} from '../helpers/databases.js';

/**
 * Two versions of the SEC EDGAR mirror, in the SEC's submissions format (one CIK##########.json per
 * filer, documented at https://www.sec.gov/search-filings/edgar-application-programming-interfaces,
 * "Submissions by company" and "Bulk data"; test/fixtures/sources/edgar/README.md describes the
 * samples). Version 1 is the samples and six filers made from the Microsoft sample; version 2
 * changes exactly some of them.
 */
const SAMPLES = join(import.meta.dirname, '../fixtures/sources/edgar/submissions');
const EE_SAMPLES = join(import.meta.dirname, '../fixtures/sources/ariregister');
const TEMPLATE = JSON.parse(readFileSync(join(SAMPLES, 'CIK0000789019.json'), 'utf8'));
const NOW = '2026-11-21T12:00:00.000Z';
const LATER = '2026-11-22T09:00:00.000Z';

/** A filer shaped as the SEC publishes one (the Microsoft sample's document, other values). */
function filer(cik: string, fields: { name: string; ein: string | null; city?: string }) {
  const address = fields.city
    ? { ...TEMPLATE.addresses.business, street1: '1 FILER ROAD', city: fields.city }
    : { street1: null, street2: null, city: null, stateOrCountry: null, zipCode: null };
  return JSON.stringify({
    ...TEMPLATE,
    cik,
    name: fields.name,
    ein: fields.ein,
    tickers: [],
    addresses: { mailing: address, business: address },
  });
}

let dir: string;
let v1: string;
let v2: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-mirror-diff-'));
  const write = (version: string, cik: string, body: string) =>
    writeFileSync(join(version, `CIK${cik}.json`), body);
  v1 = join(dir, 'v1');
  v2 = join(dir, 'v2');
  for (const version of [v1, v2]) {
    mkdirSync(version);
    // Apple (nulls in several fields) is the same in both.
    cpSync(join(SAMPLES, 'CIK0000320193.json'), join(version, 'CIK0000320193.json'));
    // Unchanged, with no address at all: null equals null.
    write(version, '0000900006', filer('0000900006', { name: 'STILL CORP', ein: '900000006' }));
  }
  cpSync(join(SAMPLES, 'CIK0000789019.json'), join(v1, 'CIK0000789019.json'));
  cpSync(join(SAMPLES, 'CIK0001000001.json'), join(v1, 'CIK0001000001.json'));
  write(
    v1,
    '0000900001',
    filer('0000900001', { name: 'MOVING CORP', ein: '900000001', city: 'REDMOND' }),
  );
  write(
    v1,
    '0000900002',
    filer('0000900002', { name: 'GONE CORP', ein: '900000002', city: 'REDMOND' }),
  );
  write(
    v1,
    '0000900004',
    filer('0000900004', { name: 'RENUMBERED CORP', ein: '900000004', city: 'REDMOND' }),
  );
  write(v1, '0000900005', filer('0000900005', { name: 'FOUND CORP', ein: '900000005' }));

  // Version 2: Microsoft renamed; the individual (no EIN) moved; MOVING CORP moved; GONE CORP is
  // gone; NEW CORP appeared; RENUMBERED CORP's EIN changed; FOUND CORP got its first address.
  const microsoft = JSON.parse(readFileSync(join(SAMPLES, 'CIK0000789019.json'), 'utf8'));
  write(v2, '0000789019', JSON.stringify({ ...microsoft, name: 'MICROSOFT CORPORATION' }));
  const individual = JSON.parse(readFileSync(join(SAMPLES, 'CIK0001000001.json'), 'utf8'));
  individual.addresses.mailing.city = 'CAMBRIDGE';
  write(v2, '0001000001', JSON.stringify(individual));
  write(
    v2,
    '0000900001',
    filer('0000900001', { name: 'MOVING CORP', ein: '900000001', city: 'SEATTLE' }),
  );
  write(
    v2,
    '0000900003',
    filer('0000900003', { name: 'NEW CORP', ein: '900000003', city: 'REDMOND' }),
  );
  write(
    v2,
    '0000900004',
    filer('0000900004', { name: 'RENUMBERED CORP', ein: '900000014', city: 'REDMOND' }),
  );
  write(
    v2,
    '0000900005',
    filer('0000900005', { name: 'FOUND CORP', ein: '900000005', city: 'REDMOND' }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Microsoft, MOVING, GONE, NEW, RENUMBERED, FOUND CORP and the individual. */
const CHANGED_COMPANIES = 7;

let monitorCount = 0;
/** A monitor as POST /monitors leaves one, due at its next cadence (`LATER`) unless told. */
async function monitor(
  database: DatabaseHandle,
  ein: string,
  fields: Partial<MonitorsTable> = {},
): Promise<string> {
  monitorCount += 1;
  const id = `mon_diff${String(monitorCount).padStart(12, '0')}`;
  await insertMonitor(database.db, {
    id,
    workspace_id: 'wsp_diff0000000000001',
    environment: 'live',
    status: 'active',
    health: 'healthy',
    identifier_type: 'tax_identifier',
    identifier_input: ein,
    identifier_normalized: ein,
    country_code: 'US',
    company_name: null,
    client_reference: null,
    metadata: null,
    cadence: 'daily',
    watched_fields: '["legal_name"]',
    webhook_url: null,
    webhook_secret: null,
    baseline_check_id: 'chk_diff0000000000001',
    latest_check_id: 'chk_diff0000000000001',
    latest_snapshot: '{}',
    last_checked_at: '2026-11-21T09:00:00.000Z',
    next_check_at: LATER,
    last_event_at: null,
    failure_count: 0,
    last_error_code: null,
    recheck_count: 0,
    created_at: '2026-11-21T09:00:00.000Z',
    updated_at: '2026-11-21T09:00:00.000Z',
    archived_at: null,
    lease_owner: null,
    lease_expires_at: null,
    webhook_error_code: null,
    ...fields,
  });
  return id;
}

async function schedules(database: DatabaseHandle) {
  const rows = await database.db
    .selectFrom('monitors')
    .select(['id', 'next_check_at', 'lease_owner'])
    .execute();
  return Object.fromEntries(rows.map((row) => [row.id, row]));
}

describe.each(DIALECTS)('a mirror refresh diff [%s]', (dialect) => {
  it('makes exactly the live, active monitors of changed companies due now; an identical refresh makes none due', async () => {
    const database = await createTestDatabase(dialect);
    try {
      const clock = fixedClock(NOW);
      const deps = { clock, newId: createIdGenerator(clock) };
      const refresh = (path: string) =>
        importMirror(database, deps, { name: 'edgar', path, owner: 'test' });
      const first = await refresh(v1);
      expect(first).toMatchObject({
        imported_rows: 8,
        changed_companies: null,
        monitors_made_due: null,
      });

      const due = {
        renamed: await monitor(database, '911144442'),
        // A recheck in flight (claimed, its lease held) may have read version 1: taken back.
        inFlight: await monitor(database, '911144442', {
          next_check_at: '2026-11-21T11:00:00.000Z',
          lease_owner: 'worker-1',
          lease_expires_at: '2026-11-21T12:00:30.000Z',
        }),
        moved: await monitor(database, '900000001'),
        removed: await monitor(database, '900000002'),
        // A number no filer had: a monitor with a not_matched baseline, until the filer appears.
        added: await monitor(database, '900000003'),
        oldNumber: await monitor(database, '900000004'),
        newNumber: await monitor(database, '900000014'),
        firstAddress: await monitor(database, '900000005'),
      };
      const notDue = {
        unchanged: await monitor(database, '942404110'),
        unchangedNulls: await monitor(database, '900000006'),
        sandbox: await monitor(database, '911144442', { environment: 'sandbox' }),
        paused: await monitor(database, '911144442', { status: 'paused' }),
        archived: await monitor(database, '911144442', { archived_at: '2026-11-21T10:00:00.000Z' }),
        otherCountry: await monitor(database, '911144442', { country_code: 'DE' }),
        vatNumber: await monitor(database, '911144442', { identifier_type: 'vat_number' }),
      };
      // Already due before the refresh: stays as it is (never later), and is not counted.
      const alreadyDue = await monitor(database, '900000001', {
        next_check_at: '2026-11-21T06:00:00.000Z',
      });
      const attention = await monitor(database, '900000001', { status: 'attention' });

      const second = await refresh(v2);
      expect(second).toMatchObject({
        imported_rows: 8,
        changed_companies: CHANGED_COMPANIES,
        monitors_made_due: Object.keys(due).length + 1,
      });
      const after = await schedules(database);
      for (const id of [...Object.values(due), attention]) {
        expect(after[id], id).toMatchObject({ lease_owner: null });
      }
      for (const [name, id] of Object.entries(due)) {
        const expected = name === 'inFlight' ? '2026-11-21T11:00:00.000Z' : NOW;
        expect(after[id]?.next_check_at, name).toBe(expected);
      }
      expect(after[attention]?.next_check_at).toBe(NOW);
      for (const [name, id] of Object.entries(notDue)) {
        expect(after[id]?.next_check_at, name).toBe(LATER);
      }
      expect(after[alreadyDue]?.next_check_at).toBe('2026-11-21T06:00:00.000Z');
      const version = await database.db
        .selectFrom('mirror_versions')
        .select(['state', 'changed_companies', 'monitors_made_due'])
        .where('id', '=', second.version_id)
        .executeTakeFirstOrThrow();
      expect(version).toEqual({
        state: 'ready',
        changed_companies: CHANGED_COMPANIES,
        monitors_made_due: Object.keys(due).length + 1,
      });

      // The same file again: nothing changed, no monitor made due.
      await database.db
        .updateTable('monitors')
        .set({ next_check_at: LATER, lease_owner: null, lease_expires_at: null })
        .execute();
      const third = await refresh(v2);
      expect(third).toMatchObject({ changed_companies: 0, monitors_made_due: 0 });
      for (const row of Object.values(await schedules(database))) {
        expect(row.next_check_at).toBe(LATER);
      }
    } finally {
      await database.cleanup();
    }
  });

  it('compares every identifier type a mirror holds: an Estonian company whose status changed makes its registry-code and VAT monitors due', async () => {
    const database = await createTestDatabase(dialect);
    try {
      const clock = fixedClock(NOW);
      const deps = { clock, newId: createIdGenerator(clock) };
      // The register's simple-data CSV (test/fixtures/sources/ariregister/README.md cites it); in
      // version 2 the first company is in liquidation (status L).
      const sample = readFileSync(
        join(EE_SAMPLES, 'ettevotja_rekvisiidid__lihtandmed.csv'),
        'utf8',
      );
      const entered = '10000018;Osaühing;;EE100000007;R;Registrisse kantud;';
      expect(sample).toContain(entered);
      const ee1 = join(dir, 'ee-v1.csv');
      const ee2 = join(dir, 'ee-v2.csv');
      writeFileSync(ee1, sample);
      writeFileSync(
        ee2,
        sample.replace(entered, '10000018;Osaühing;;EE100000007;L;Likvideerimisel;'),
      );
      const refresh = (path: string) =>
        importMirror(database, deps, { name: 'ariregister', path, owner: 'test' });
      await refresh(ee1);
      const ee = { country_code: 'EE' };
      const byCode = await monitor(database, '10000018', {
        ...ee,
        identifier_type: 'registration_number',
      });
      const byVat = await monitor(database, 'EE100000007', {
        ...ee,
        identifier_type: 'vat_number',
      });
      const other = await monitor(database, '11000015', {
        ...ee,
        identifier_type: 'registration_number',
      });
      // The same number in another country is another company's.
      const us = await monitor(database, '10000018', { identifier_type: 'registration_number' });

      expect(await refresh(ee2)).toMatchObject({ changed_companies: 1, monitors_made_due: 2 });
      const after = await schedules(database);
      expect(after[byCode]?.next_check_at).toBe(NOW);
      expect(after[byVat]?.next_check_at).toBe(NOW);
      expect(after[other]?.next_check_at).toBe(LATER);
      expect(after[us]?.next_check_at).toBe(LATER);
    } finally {
      await database.cleanup();
    }
  });

  it('mirror refresh and mirror status say how many companies changed and how many monitors were made due', async () => {
    const scratch =
      dialect === 'postgres'
        ? await createScratchPostgresDatabase()
        : { url: `sqlite:${join(dir, 'cli.db')}`, drop: async () => {} };
    const database = createDatabase(parseDatabaseUrl(scratch.url));
    try {
      await migrateToLatest(database);
      const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };
      await importMirror(database, deps, { name: 'edgar', path: v1, owner: 'test' });
      const renamed = await monitor(database, '911144442', {
        next_check_at: '2999-01-01T00:00:00.000Z',
      });

      const refreshed = await runCli(['mirror', 'refresh', 'edgar', '--file', v2], {
        DATABASE_URL: scratch.url,
      });
      expect(refreshed.code, refreshed.stderr).toBe(0);
      expect(refreshed.stdout).toContain(
        '7 companies changed since the previous version, 1 monitor made due',
      );
      const status = await runCli(['mirror', 'status', '--json'], { DATABASE_URL: scratch.url });
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout).versions).toEqual([
        expect.objectContaining({ state: 'ready', changed_companies: 7, monitors_made_due: 1 }),
        expect.objectContaining({
          state: 'superseded',
          changed_companies: null,
          monitors_made_due: null,
        }),
      ]);
      const row = await database.db
        .selectFrom('monitors')
        .select('next_check_at')
        .where('id', '=', renamed)
        .executeTakeFirstOrThrow();
      expect(row.next_check_at < '2999-01-01').toBe(true);
    } finally {
      await database.destroy();
      await scratch.drop();
    }
  }, 60_000);
});
