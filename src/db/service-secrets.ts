import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../lib/clock.js';
import { toTimestamp } from '../lib/clock.js';
import type { Database } from './schema.js';

/**
 * A secret shared by every node of a deployment, created by whichever node asks first. Stored in
 * the database so that nodes agree without extra configuration.
 */
export async function loadServiceSecret(
  db: Kysely<Database>,
  clock: Clock,
  name: string,
): Promise<Buffer> {
  await db
    .insertInto('service_secrets')
    .values({
      name,
      value: randomBytes(32).toString('base64url'),
      created_at: toTimestamp(clock.now()),
    })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('service_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64url');
}
