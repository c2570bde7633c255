import type { Kysely } from 'kysely';
import type {
  Database,
  OAuthAuthorizationCodeRow,
  OAuthClientRow,
  OAuthGrantRow,
  OAuthTokenKind,
  OAuthTokenRow,
} from '../../db/schema.js';

export async function insertClient(db: Kysely<Database>, row: OAuthClientRow): Promise<void> {
  await db.insertInto('oauth_clients').values(row).execute();
}

export async function findClientById(
  db: Kysely<Database>,
  id: string,
): Promise<OAuthClientRow | undefined> {
  return db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertAuthorizationCode(
  db: Kysely<Database>,
  row: OAuthAuthorizationCodeRow,
): Promise<void> {
  await db.insertInto('oauth_authorization_codes').values(row).execute();
}

export async function findAuthorizationCode(
  db: Kysely<Database>,
  codeHash: string,
): Promise<OAuthAuthorizationCodeRow | undefined> {
  return db
    .selectFrom('oauth_authorization_codes')
    .selectAll()
    .where('code_hash', '=', codeHash)
    .executeTakeFirst();
}

/** Marks a code used; false when another request used it first. */
export async function markCodeUsed(
  db: Kysely<Database>,
  codeHash: string,
  at: string,
  grantId: string,
): Promise<boolean> {
  const result = await db
    .updateTable('oauth_authorization_codes')
    .set({ used_at: at, grant_id: grantId })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function insertGrant(db: Kysely<Database>, row: OAuthGrantRow): Promise<void> {
  await db.insertInto('oauth_grants').values(row).execute();
}

export async function findGrantById(
  db: Kysely<Database>,
  id: string,
): Promise<OAuthGrantRow | undefined> {
  return db.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function markGrantRevoked(
  db: Kysely<Database>,
  id: string,
  at: string,
): Promise<void> {
  await db
    .updateTable('oauth_grants')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function touchGrant(db: Kysely<Database>, id: string, at: string): Promise<void> {
  await db.updateTable('oauth_grants').set({ last_used_at: at }).where('id', '=', id).execute();
}

export async function insertToken(db: Kysely<Database>, row: OAuthTokenRow): Promise<void> {
  await db.insertInto('oauth_tokens').values(row).execute();
}

/** A token with its grant, in one read: every use of a token needs both. */
export async function findTokenWithGrant(
  db: Kysely<Database>,
  tokenHash: string,
  kind?: OAuthTokenKind,
): Promise<{ token: OAuthTokenRow; grant: OAuthGrantRow } | undefined> {
  let query = db
    .selectFrom('oauth_tokens as t')
    .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
    .select([
      't.token_hash',
      't.grant_id',
      't.kind',
      't.created_at as token_created_at',
      't.expires_at',
      't.retired_at',
      'g.client_id',
      'g.user_id',
      'g.workspace_id',
      'g.environment',
      'g.scopes',
      'g.resource',
      'g.created_at',
      'g.last_used_at',
      'g.revoked_at',
    ])
    .where('t.token_hash', '=', tokenHash);
  if (kind) query = query.where('t.kind', '=', kind);
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  return {
    token: {
      token_hash: row.token_hash,
      grant_id: row.grant_id,
      kind: row.kind,
      created_at: row.token_created_at,
      expires_at: row.expires_at,
      retired_at: row.retired_at,
    },
    grant: {
      id: row.grant_id,
      client_id: row.client_id,
      user_id: row.user_id,
      workspace_id: row.workspace_id,
      environment: row.environment,
      scopes: row.scopes,
      resource: row.resource,
      created_at: row.created_at,
      last_used_at: row.last_used_at,
      revoked_at: row.revoked_at,
    },
  };
}

/** Retires a refresh token; false when it was already retired (a concurrent or repeated use). */
export async function retireToken(
  db: Kysely<Database>,
  tokenHash: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('oauth_tokens')
    .set({ retired_at: at })
    .where('token_hash', '=', tokenHash)
    .where('retired_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export interface GrantListing {
  id: string;
  client_name: string;
  workspace_id: string;
  workspace_name: string;
  environment: OAuthGrantRow['environment'];
  scopes: string;
  created_at: string;
  last_used_at: string | null;
}

/** The user's grants that are still in force, newest first. */
export async function listActiveGrantsOfUser(
  db: Kysely<Database>,
  userId: string,
): Promise<GrantListing[]> {
  return db
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_clients as c', 'c.id', 'g.client_id')
    .innerJoin('workspaces as w', 'w.id', 'g.workspace_id')
    .select([
      'g.id',
      'c.name as client_name',
      'g.workspace_id',
      'w.name as workspace_name',
      'g.environment',
      'g.scopes',
      'g.created_at',
      'g.last_used_at',
    ])
    .where('g.user_id', '=', userId)
    .where('g.revoked_at', 'is', null)
    .orderBy('g.created_at', 'desc')
    .orderBy('g.id', 'desc')
    .execute();
}
