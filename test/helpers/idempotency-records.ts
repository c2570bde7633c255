import { createHash } from 'node:crypto';
import type { IdempotencyRecordRow } from '../../src/db/schema.js';
import { IDEMPOTENCY_RETENTION_MS } from '../../src/http/idempotency.js';
import { canonicalJson } from '../../src/lib/canonical-json.js';
import { toTimestamp } from '../../src/lib/clock.js';
import type { TestApp } from './app.js';

/** The request hash an idempotency record keeps for a JSON body. */
export function requestHashOf(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/**
 * Writes a probes.create record for key `k` straight into the database, in the workspace of the
 * app's first key, as something other than this app left it (a crashed request, older code);
 * returns that workspace. Create a key in it to send requests that meet the record.
 */
export async function storeProbeRecord(
  t: TestApp,
  k: string,
  record: Pick<
    IdempotencyRecordRow,
    'request_hash' | 'state' | 'locked_by' | 'locked_at' | 'response_status'
  > &
    Partial<IdempotencyRecordRow>,
): Promise<{ workspace_id: string }> {
  const principal = await t.database.db
    .selectFrom('api_keys')
    .select(['workspace_id', 'environment'])
    .orderBy('created_at')
    .executeTakeFirstOrThrow();
  const now = t.clock.now().getTime();
  await t.database.db
    .insertInto('idempotency_records')
    .values({
      ...principal,
      operation: 'probes.create',
      idempotency_key: k,
      request_path: '/v1/probes',
      response_headers: null,
      response_body: null,
      response_ref: null,
      created_at: toTimestamp(new Date(now - 1000)),
      expires_at: toTimestamp(new Date(now + IDEMPOTENCY_RETENTION_MS)),
      ...record,
    })
    .execute();
  return principal;
}
