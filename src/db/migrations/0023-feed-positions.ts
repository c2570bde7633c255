import type { Kysely } from 'kysely';

/**
 * Where each register change feed's consumer has read to (issue 32): the Companies House stream's
 * timepoint, the last Brønnøysund update id. One row per feed, claimed with a lease like every
 * other background job, so that one worker consumes a feed however many run, and the next one
 * resumes from `position` after a crash.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('feed_positions')
    .addColumn('feed', 'text', (c) => c.primaryKey())
    // Null until the first event is read: the consumer starts from the present.
    .addColumn('position', 'text')
    // When the register published the last event read (the feed's lag).
    .addColumn('published_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('feed_positions').execute();
}
