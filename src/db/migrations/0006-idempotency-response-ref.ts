import type { Kysely } from 'kysely';

// A completed operation whose response is a stored resource (a check) keeps the resource's id
// instead of a second copy of its body; the replay renders the resource again.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_records').addColumn('response_ref', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_records').dropColumn('response_ref').execute();
}
