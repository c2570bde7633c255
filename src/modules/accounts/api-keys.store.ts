import type { Kysely } from 'kysely';
import type { ApiKeyRow, Database, NewApiKeyRow } from '../../db/schema.js';

export async function insertApiKey(db: Kysely<Database>, row: NewApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export async function findApiKeyByHash(
  db: Kysely<Database>,
  keyHash: string,
): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

export async function findApiKeyById(
  db: Kysely<Database>,
  id: string,
): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApiKeysOfWorkspace(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Marks a key revoked; true when this call revoked it, false when it was already revoked. */
export async function revokeApiKey(
  db: Kysely<Database>,
  id: string,
  revokedAt: string,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: revokedAt })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Records a use of the key (the key verifier calls it at most once a minute per key). */
export async function touchApiKey(db: Kysely<Database>, id: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}
