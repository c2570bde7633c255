import { stat } from 'node:fs/promises';
import type { DatabaseHandle } from '../db/database.js';
import { LeaseLostError } from '../db/leases.js';
import { type Clock, toTimestamp } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import {
  claimMirrorLease,
  cleanUpMirror,
  findReadyVersion,
  insertMirrorCompanies,
  type MirrorCompanyRow,
  releaseMirrorLease,
  renewMirrorLease,
} from './mirror.store.js';
import { countChangedCompanies, makeChangedMonitorsDue } from './mirror-diff.js';
import { isMirrorName, MIRROR_FORMATS, MIRROR_NAMES } from './mirror-formats.js';

export class MirrorError extends Error {
  constructor(
    readonly code:
      | 'mirror_unknown'
      | 'mirror_busy'
      | 'mirror_file_unreadable'
      | 'mirror_not_downloadable'
      | 'mirror_download_unconfigured'
      | 'mirror_download_failed',
    message: string,
  ) {
    super(message);
    this.name = 'MirrorError';
  }
}

export interface MirrorImportOptions {
  name: string;
  path: string;
  /** When the file was retrieved from the register (default: the file's modification time). */
  retrievedAt?: Date;
  /** What the version records as its file (default: `path`; a download records its URL). */
  file?: string;
  owner: string;
  leaseMs?: number;
  batchSize?: number;
  /** How many skipped records are described (all are counted). */
  describeSkipped?: number;
  /** Called after each committed batch (the CLI reports progress; tests stop a process here). */
  onBatch?(progress: { imported: number; skipped: number }): void | Promise<void>;
}

export interface MirrorImportResult {
  version_id: string;
  imported_rows: number;
  skipped_rows: number;
  skipped_examples: string[];
  retrieved_at: string;
  /** Companies added, removed or changed since the version it superseded; null on a first import. */
  changed_companies: number | null;
  /** Live monitors of those companies made due now; null on a first import. */
  monitors_made_due: number | null;
}

export const DEFAULT_MIRROR_LEASE_MS = 60_000;

/**
 * Imports a register's bulk file as a new version of its mirror, under the mirror's lease: rows
 * are written in batches, each in its own transaction that first renews the lease; only when the
 * whole file is in is the new version made the serving one and the previous superseded, in one
 * transaction. Until then lookups keep reading the previous version; a crash leaves the new
 * version `importing`, and the next import removes its rows.
 *
 * The swap also makes due now every live monitor of a company that differs from the previous
 * version (mirror-diff.ts), in the same transaction, so a swap is never committed without it: a
 * crash loses both or neither. How many companies changed is counted just before, read only, so
 * SQLite's one writer is not held while the whole register is compared.
 */
export async function importMirror(
  database: DatabaseHandle,
  deps: { clock: Clock; newId: IdGenerator },
  options: MirrorImportOptions,
): Promise<MirrorImportResult> {
  if (!isMirrorName(options.name)) {
    throw new MirrorError(
      'mirror_unknown',
      `no mirror named ${options.name} (known: ${MIRROR_NAMES.join(', ')})`,
    );
  }
  const format = MIRROR_FORMATS[options.name];
  let retrievedAt = options.retrievedAt;
  try {
    retrievedAt ??= (await stat(options.path)).mtime;
  } catch (error) {
    throw new MirrorError('mirror_file_unreadable', `${options.path}: ${(error as Error).message}`);
  }
  const { db } = database;
  const leaseMs = options.leaseMs ?? DEFAULT_MIRROR_LEASE_MS;
  const lease = () => {
    const now = deps.clock.now();
    return {
      name: options.name,
      owner: options.owner,
      now: toTimestamp(now),
      leaseExpiresAt: toTimestamp(new Date(now.getTime() + leaseMs)),
    };
  };
  if (!(await claimMirrorLease(db, lease()))) {
    throw new MirrorError('mirror_busy', `another process is importing the ${options.name} mirror`);
  }
  const versionId = deps.newId('mrv');
  let imported = 0;
  let skipped = 0;
  const examples: string[] = [];
  let changed: number | null = null;
  let monitorsDue: number | null = null;
  try {
    await cleanUpMirror(db, options.name, toTimestamp(deps.clock.now()));
    await db
      .insertInto('mirror_versions')
      .values({
        id: versionId,
        mirror_name: options.name,
        state: 'importing',
        retrieved_at: toTimestamp(retrievedAt),
        file: options.file ?? options.path,
        error: null,
        started_at: toTimestamp(deps.clock.now()),
        finished_at: null,
      })
      .execute();

    const batchSize = options.batchSize ?? 500;
    let batch: MirrorCompanyRow[] = [];
    const flush = async () => {
      const rows = batch;
      batch = [];
      await database.transact(async (trx) => {
        if (!(await renewMirrorLease(trx, lease()))) throw new LeaseLostError(options.name);
        await insertMirrorCompanies(trx, rows);
        await trx
          .updateTable('mirror_versions')
          .set({ imported_rows: imported + rows.length, skipped_rows: skipped })
          .where('id', '=', versionId)
          .execute();
      });
      imported += rows.length;
      await options.onBatch?.({ imported, skipped });
    };
    for await (const record of format.read(options.path)) {
      if (!record.ok) {
        skipped += 1;
        if (examples.length < (options.describeSkipped ?? 5)) {
          examples.push(`${record.label}: ${record.reason}`);
        }
        continue;
      }
      batch.push({ ...record.row, version_id: versionId });
      if (batch.length >= batchSize) await flush();
    }
    await flush();

    // The lease keeps the serving version as it is until the swap, which renews the lease first.
    const previous = await findReadyVersion(db, options.name);
    const versions = previous ? { previous: previous.id, next: versionId } : undefined;
    if (versions) changed = await countChangedCompanies(db, versions);
    await database.transact(async (trx) => {
      if (!(await renewMirrorLease(trx, lease()))) throw new LeaseLostError(options.name);
      const now = toTimestamp(deps.clock.now());
      await trx
        .updateTable('mirror_versions')
        .set({ state: 'superseded' })
        .where('mirror_name', '=', options.name)
        .where('state', '=', 'ready')
        .execute();
      monitorsDue = versions ? await makeChangedMonitorsDue(trx, format, versions, now) : null;
      await trx
        .updateTable('mirror_versions')
        .set({
          state: 'ready',
          imported_rows: imported,
          skipped_rows: skipped,
          skipped_examples: JSON.stringify(examples),
          finished_at: now,
          changed_companies: changed,
          monitors_made_due: monitorsDue,
        })
        .where('id', '=', versionId)
        .execute();
    });
  } catch (error) {
    await db
      .updateTable('mirror_versions')
      .set({
        state: 'failed',
        error: error instanceof Error ? error.message : String(error),
        finished_at: toTimestamp(deps.clock.now()),
      })
      .where('id', '=', versionId)
      .where('state', '=', 'importing')
      .execute();
    throw error;
  } finally {
    await releaseMirrorLease(db, options.name, options.owner);
  }
  return {
    version_id: versionId,
    imported_rows: imported,
    skipped_rows: skipped,
    skipped_examples: examples,
    retrieved_at: toTimestamp(retrievedAt),
    changed_companies: changed,
    monitors_made_due: monitorsDue,
  };
}
