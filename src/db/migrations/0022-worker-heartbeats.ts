import type { Kysely } from 'kysely';

/**
 * Workers' heartbeats (issue 31): each running worker stamps its row every few seconds and removes
 * it when it stops, so that `/readyz` of an API node can say whether any worker is alive (monitors
 * are rechecked and webhooks delivered only by workers).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('worker_heartbeats')
    .addColumn('worker', 'text', (c) => c.primaryKey())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('seen_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('worker_heartbeats').execute();
}
