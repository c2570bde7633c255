import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import type { NewWebhookDeliveryRow } from '../../src/db/schema.js';
import { createTestDatabase, DIALECTS } from '../helpers/databases.js';

// Concurrent redeliveries could leave an event with several open deliveries (issue 23); the
// migration that makes that impossible must first resolve the ones a database already has.
describe.each(DIALECTS)('migration 0013 on deliveries already doubled [%s]', (dialect) => {
  it('keeps the oldest open delivery of an event and closes the others as superseded', async () => {
    const database = await createTestDatabase(dialect, { migrate: false });
    try {
      const migrator = new Migrator({
        db: database.db,
        provider: { getMigrations: async () => migrations },
        ...(database.schema ? { migrationTableSchema: database.schema } : {}),
      });
      expect((await migrator.migrateTo('0012-members-and-key-last-use')).error).toBeUndefined();
      const row = (
        id: string,
        event: string,
        created: string,
        changes: Partial<NewWebhookDeliveryRow> = {},
      ): NewWebhookDeliveryRow => ({
        id,
        event_id: event,
        monitor_id: 'mon_1',
        url: 'https://hooks.example.com/hooks',
        body: '{}',
        status: 'pending',
        attempts: 0,
        next_attempt_at: '2026-11-21T12:00:00.000Z',
        last_response_status: null,
        last_error_code: null,
        created_at: `2026-11-21T${created}.000Z`,
        completed_at: null,
        lease_owner: null,
        lease_expires_at: null,
        ...changes,
      });
      const leased = { lease_owner: 'old-worker', lease_expires_at: '2026-11-21T12:05:00.000Z' };
      await database.db
        .insertInto('webhook_deliveries')
        .values([
          row('dlv_a0', 'evt_a', '10:00:00', {
            status: 'delivered',
            attempts: 1,
            next_attempt_at: null,
            completed_at: '2026-11-21T10:00:01.000Z',
          }),
          row('dlv_a2', 'evt_a', '11:00:00', { status: 'retrying', attempts: 1, ...leased }),
          row('dlv_a1', 'evt_a', '11:00:00'),
          row('dlv_a3', 'evt_a', '11:30:00', leased),
          row('dlv_b1', 'evt_b', '11:45:00', leased),
        ])
        .execute();

      await migrateToLatest(database);

      const rows = await database.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'status', 'next_attempt_at', 'last_error_code', 'lease_owner', 'attempts'])
        .orderBy('id')
        .execute();
      const open = { status: 'pending', next_attempt_at: '2026-11-21T12:00:00.000Z' };
      const superseded = {
        status: 'failed',
        next_attempt_at: null,
        last_error_code: 'superseded',
        lease_owner: null,
      };
      expect(rows).toEqual([
        expect.objectContaining({ id: 'dlv_a0', status: 'delivered', last_error_code: null }),
        // The same created_at: the smaller id is the older.
        expect.objectContaining({ id: 'dlv_a1', ...open, lease_owner: null }),
        expect.objectContaining({ id: 'dlv_a2', ...superseded, attempts: 1 }),
        expect.objectContaining({ id: 'dlv_a3', ...superseded }),
        expect.objectContaining({ id: 'dlv_b1', ...open, lease_owner: 'old-worker' }),
      ]);
      await expect(
        database.db
          .insertInto('webhook_deliveries')
          .values(row('dlv_b2', 'evt_b', '11:50:00'))
          .execute(),
      ).rejects.toThrow(/unique/i);
    } finally {
      await database.cleanup();
    }
  });
});
