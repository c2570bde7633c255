import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // People who sign in to the dashboard. Emails are stored lower-cased, so the unique constraint
  // holds on both dialects without a case-insensitive collation.
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    // argon2id, PHC string format (parameters and salt included).
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('workspace_members')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    // `owner` or `member` (docs/decisions.md, Dashboard).
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('workspace_members_pk', ['workspace_id', 'user_id'])
    .execute();
  await db.schema
    .createIndex('workspace_members_of_user')
    .on('workspace_members')
    .column('user_id')
    .execute();

  // Server-side sessions, so that signing out (or an operator) really ends one. The id is the
  // SHA-256 of the cookie's token: a copy of this table does not let anyone sign in.
  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    // The absolute end of the session, whatever its activity.
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('dashboard_sessions_of_user')
    .on('dashboard_sessions')
    .column('user_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('dashboard_sessions').execute();
  await db.schema.dropTable('workspace_members').execute();
  await db.schema.dropTable('users').execute();
}
