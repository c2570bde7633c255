import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDatabaseUrl } from '../src/config.js';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { claimFor } from '../src/http/idempotency.js';
import {
  findIdempotencyRecord,
  insertCompletedIdempotencyRecord,
} from '../src/http/idempotency.store.js';
import { systemClock } from '../src/lib/clock.js';
import { createIdGenerator } from '../src/lib/ids.js';
import { createWorkspace } from '../src/modules/accounts/accounts.service.js';
import type { CheckCreateRequest } from '../src/modules/checks/checks.schemas.js';
import { API_CHECK, lookUpIdentifier, writeCheck } from '../src/modules/checks/checks.service.js';
import { runLastWrites } from '../src/modules/companies/companies.service.js';
import { sandboxSource } from '../src/sources/sandbox/sandbox-source.js';

/**
 * The database side of one sandbox POST /checks, without HTTP: the read for an existing record,
 * then one unit of work with the check (usage record, snapshot refresh, check row), the completed
 * idempotency record and the usage totals, in the server's group commit, `concurrency` at a time. Returns microseconds per check on this thread:
 * the floor under the HTTP figure, which shows how much of the request is the database.
 */
export async function checkDatabaseWork(
  request: CheckCreateRequest,
  { concurrency = 50, durationMs = 2000 } = {},
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'firmwatch-bench-'));
  const database = createDatabase(parseDatabaseUrl(`sqlite:${join(dir, 'bench.db')}`), {
    checkpointInBackground: { onError: (error) => console.error(error) },
  });
  try {
    await migrateToLatest(database);
    const clock = systemClock;
    const newId = createIdGenerator(clock);
    const workspace = await createWorkspace(database.db, { clock, newId }, { name: 'bench' });
    const principal = {
      workspaceId: workspace.id,
      environment: 'sandbox' as const,
      keyId: 'key_bench',
      scopes: [],
    };
    const source = sandboxSource();
    const deps = { clock, newId, snapshotsPerDay: 100_000_000, sourceFor: () => source };
    const oneCheck = async () => {
      const scope = {
        workspace_id: principal.workspaceId,
        environment: principal.environment,
        operation: 'checks.create',
        idempotency_key: randomUUID(),
      };
      const claim = claimFor(
        scope,
        { path: '/v1/checks', hash: 'bench', lockedBy: 'req_bench' },
        clock.now(),
      );
      if (await database.transact((trx) => findIdempotencyRecord(trx, scope)))
        throw new Error('key reused');
      const lookup = await lookUpIdentifier(deps, principal, request);
      await database.transact(async (trx) => {
        const { check, last } = await writeCheck(trx, deps, principal, request, lookup, API_CHECK);
        await insertCompletedIdempotencyRecord(
          trx,
          claim,
          {
            status: 201,
            headers: { location: `/v1/checks/${check.id}` },
            body: null,
            ref: check.id,
          },
          () => new Error('key reused'),
        );
        await runLastWrites(trx, last);
      });
    };
    let done = 0;
    const started = performance.now();
    const deadline = started + durationMs;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) {
          await oneCheck();
          done += 1;
        }
      }),
    );
    return ((performance.now() - started) * 1000) / done;
  } finally {
    await database.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
