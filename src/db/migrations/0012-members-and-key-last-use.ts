import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // 1 while the account's password is the generated one-time password (printed by the CLI or
  // shown to the inviting owner): the dashboard then asks for a new one before anything else.
  // Accounts created before this migration keep 0: their holders were told no change was needed.
  await db.schema
    .alterTable('users')
    .addColumn('must_change_password', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  // When a key last authenticated a request, written at most once a minute per key and process
  // (src/modules/accounts/key-verifier.ts); null until its first use.
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('last_used_at').execute();
  await db.schema.alterTable('users').dropColumn('must_change_password').execute();
}
