import { type Kysely, type Selectable, sql } from 'kysely';
import { prepared } from '../db/prepared.js';
import type { Database, MirrorCompaniesTable, MirrorVersionsTable } from '../db/schema.js';

export type MirrorCompanyRow = MirrorCompaniesTable;
export type MirrorVersionRow = Selectable<MirrorVersionsTable>;

/**
 * Claims the import lease of a mirror in one statement: the row is created, or taken over when
 * its lease is free or expired, or extended when this owner already holds it (a download holds
 * the lease, then hands it to the import of what it downloaded). Returns whether this owner now
 * holds it.
 */
export async function claimMirrorLease(
  db: Kysely<Database>,
  request: { name: string; owner: string; now: string; leaseExpiresAt: string },
): Promise<boolean> {
  const result = await sql<{ name: string }>`
    insert into mirrors (name, lease_owner, lease_expires_at)
    values (${request.name}, ${request.owner}, ${request.leaseExpiresAt})
    on conflict (name) do update
      set lease_owner = excluded.lease_owner, lease_expires_at = excluded.lease_expires_at
      where mirrors.lease_expires_at is null or mirrors.lease_expires_at <= ${request.now}
        or mirrors.lease_owner = ${request.owner}
    returning name`.execute(db);
  return result.rows.length === 1;
}

/**
 * Extends the lease while this owner still holds the mirror; false when another importer took it
 * over. An expired lease nobody claimed is still this owner's: a format that prepares its file
 * before the first batch (KBO's sort of an unsorted dump) may outlast the lease, and only a
 * takeover, which changes the owner in the claim's one statement, can make two importers.
 */
export async function renewMirrorLease(
  db: Kysely<Database>,
  request: { name: string; owner: string; now: string; leaseExpiresAt: string },
): Promise<boolean> {
  const result = await db
    .updateTable('mirrors')
    .set({ lease_expires_at: request.leaseExpiresAt })
    .where('name', '=', request.name)
    .where('lease_owner', '=', request.owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function releaseMirrorLease(
  db: Kysely<Database>,
  name: string,
  owner: string,
): Promise<void> {
  await db
    .updateTable('mirrors')
    .set({ lease_owner: null, lease_expires_at: null })
    .where('name', '=', name)
    .where('lease_owner', '=', owner)
    .execute();
}

/**
 * Removes what earlier imports left behind: the rows of every version that is not the serving
 * one (an import that crashed, failed or was superseded), and marks a crashed import failed.
 */
export async function cleanUpMirror(db: Kysely<Database>, name: string, now: string) {
  await db
    .updateTable('mirror_versions')
    .set({ state: 'failed', error: 'the import stopped before it completed', finished_at: now })
    .where('mirror_name', '=', name)
    .where('state', '=', 'importing')
    .execute();
  await db
    .deleteFrom('mirror_companies')
    .where('version_id', 'in', (q) =>
      q
        .selectFrom('mirror_versions')
        .select('id')
        .where('mirror_name', '=', name)
        .where('state', '!=', 'ready'),
    )
    .execute();
}

export async function insertMirrorCompanies(
  db: Kysely<Database>,
  rows: readonly MirrorCompanyRow[],
): Promise<void> {
  if (rows.length === 0) return;
  // A register key seen twice in one file keeps its first row rather than failing the batch.
  await db
    .insertInto('mirror_companies')
    .values([...rows])
    .onConflict((oc) => oc.columns(['version_id', 'register_key']).doNothing())
    .execute();
}

const selectReadyVersion = prepared((db, p: { name: string }) =>
  db
    .selectFrom('mirror_versions')
    .selectAll()
    .where('mirror_name', '=', p.name)
    .where('state', '=', 'ready'),
);

/**
 * The serving version of a mirror, if one was ever imported completely. Read by every lookup and
 * search, so prepared, as the number lookup is: built by Kysely at each call, the two statements
 * took about three times a company snapshot read (`npm run bench -- mirror`).
 */
export async function findReadyVersion(
  db: Kysely<Database>,
  name: string,
): Promise<MirrorVersionRow | undefined> {
  const { rows } = await selectReadyVersion(db, { name });
  return rows[0] as MirrorVersionRow | undefined;
}

/**
 * What decides whether a mirror is due for a refresh: when its serving version's file was
 * retrieved, and when its last attempt that failed (a download or an import) ended.
 */
export async function findRefreshState(
  db: Kysely<Database>,
  name: string,
): Promise<{ servingRetrievedAt: string | null; lastFailedAt: string | null }> {
  const serving = await findReadyVersion(db, name);
  const failed = await db
    .selectFrom('mirror_versions')
    .select((eb) => eb.fn.max('finished_at').as('at'))
    .where('mirror_name', '=', name)
    .where('state', '=', 'failed')
    .executeTakeFirst();
  return { servingRetrievedAt: serving?.retrieved_at ?? null, lastFailedAt: failed?.at ?? null };
}

/**
 * Records a refresh that failed before any import began (its download), as a `failed` version
 * without rows: `mirror status` shows why, and the refresh is not tried again at once. No file was
 * retrieved, so its `retrieved_at` is when the download was attempted.
 */
export async function recordFailedDownload(
  db: Kysely<Database>,
  failure: { id: string; name: string; url: string; error: string; startedAt: string; now: string },
): Promise<void> {
  await db
    .insertInto('mirror_versions')
    .values({
      id: failure.id,
      mirror_name: failure.name,
      state: 'failed',
      retrieved_at: failure.startedAt,
      file: failure.url,
      error: failure.error,
      started_at: failure.startedAt,
      finished_at: failure.now,
    })
    .execute();
}

/** Every version of every mirror, newest first, with the lease holder of its mirror. */
export async function listMirrorVersions(db: Kysely<Database>): Promise<MirrorVersionRow[]> {
  return db
    .selectFrom('mirror_versions')
    .selectAll()
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export type MirrorNumberColumn = 'tax_identifier' | 'registration_number' | 'vat_number';

const byNumber = (column: MirrorNumberColumn) =>
  prepared((db, p: { version_id: string; number: string }) =>
    db
      .selectFrom('mirror_companies')
      .selectAll()
      .where('version_id', '=', p.version_id)
      .where(column, '=', p.number)
      .orderBy('register_key')
      .limit(10),
  );
const selectByNumber = {
  tax_identifier: byNumber('tax_identifier'),
  registration_number: byNumber('registration_number'),
  vat_number: byNumber('vat_number'),
} satisfies Record<MirrorNumberColumn, unknown>;

export async function findMirrorCompaniesByNumber(
  db: Kysely<Database>,
  versionId: string,
  column: MirrorNumberColumn,
  normalized: string,
): Promise<MirrorCompanyRow[]> {
  const { rows } = await selectByNumber[column](db, { version_id: versionId, number: normalized });
  return rows;
}

const byNumberInReady = (column: MirrorNumberColumn) =>
  prepared((db, p: { name: string; number: string }) =>
    db
      .selectFrom('mirror_companies')
      .innerJoin('mirror_versions', 'mirror_versions.id', 'mirror_companies.version_id')
      .selectAll('mirror_companies')
      .select('mirror_versions.retrieved_at')
      // The ready version's id as a value, so the number index (version, number, key) gives the
      // rows in key order; joined on its name and state, SQLite sorted them in a temporary b-tree.
      .where('mirror_companies.version_id', '=', (eb) =>
        eb
          .selectFrom('mirror_versions as ready')
          .select('ready.id')
          .where('ready.mirror_name', '=', p.name)
          .where('ready.state', '=', 'ready'),
      )
      .where(`mirror_companies.${column}`, '=', p.number)
      .orderBy('mirror_companies.register_key')
      .limit(10),
  );
const selectByNumberInReady = {
  tax_identifier: byNumberInReady('tax_identifier'),
  registration_number: byNumberInReady('registration_number'),
  vat_number: byNumberInReady('vat_number'),
} satisfies Record<MirrorNumberColumn, unknown>;

/**
 * The companies holding a number in a mirror's serving version, each with that version's
 * `retrieved_at`: one statement, so a lookup that finds its company costs one read, as a company
 * snapshot read does (`npm run bench -- mirror`). Empty when none holds it, or no version is ready.
 */
export async function findReadyMirrorCompaniesByNumber(
  db: Kysely<Database>,
  name: string,
  column: MirrorNumberColumn,
  normalized: string,
): Promise<Array<MirrorCompanyRow & { retrieved_at: string }>> {
  const { rows } = await selectByNumberInReady[column](db, { name, number: normalized });
  return rows;
}

/**
 * Companies whose folded name starts with the folded words asked for: a prefix range, so the name
 * index serves it on both dialects (a `like '%...%'` would scan every company of the register).
 * The range ends at the prefix with its last character incremented; a PostgreSQL collation that
 * orders by letters first may let a name through that only starts alike after spaces are ignored,
 * so the caller keeps only names that really start with the prefix.
 */
export async function searchMirrorCompaniesByName(
  db: Kysely<Database>,
  versionId: string,
  foldedPrefix: string,
  limit: number,
): Promise<MirrorCompanyRow[]> {
  return db
    .selectFrom('mirror_companies')
    .selectAll()
    .where('version_id', '=', versionId)
    .where('folded_name', '>=', foldedPrefix)
    .where('folded_name', '<', prefixEnd(foldedPrefix))
    .orderBy('folded_name')
    .orderBy('register_key')
    .limit(limit)
    .execute();
}

function prefixEnd(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return `${prefix.slice(0, -1)}${String.fromCharCode(last + 1)}`;
}
