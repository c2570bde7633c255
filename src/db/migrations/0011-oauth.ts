import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Clients registered dynamically (RFC 7591) by MCP clients. All are public clients (no secret):
  // a desktop or command-line client cannot keep one, and PKCE protects its codes instead.
  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    // JSON array of the exact redirect URIs the client registered.
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  // Codes, access and refresh tokens are stored as the SHA-256 (hex) of their value only: a copy
  // of these tables does not let anyone call the API.
  await db.schema
    .createTable('oauth_authorization_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    // Space-separated scope names.
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    // S256 only: base64url(SHA-256(code_verifier)).
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('resource', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    // The grant the code was exchanged for: a second use of the code revokes it.
    .addColumn('grant_id', 'text')
    .execute();

  // One grant per approved authorization: what the user chose, and the handle that revoking
  // from the dashboard (or a reused code or refresh token) ends, tokens and all.
  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('resource', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('oauth_grants_of_user')
    .on('oauth_grants')
    .column('user_id')
    .execute();

  await db.schema
    .createTable('oauth_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull())
    // `access` or `refresh`.
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    // A refresh token is retired when it is used (rotation); presenting it again revokes the grant.
    .addColumn('retired_at', 'text')
    .execute();
  await db.schema
    .createIndex('oauth_tokens_of_grant')
    .on('oauth_tokens')
    .column('grant_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oauth_tokens').execute();
  await db.schema.dropTable('oauth_grants').execute();
  await db.schema.dropTable('oauth_authorization_codes').execute();
  await db.schema.dropTable('oauth_clients').execute();
}
