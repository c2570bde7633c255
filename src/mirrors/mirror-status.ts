import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { listMirrorVersions, type MirrorVersionRow } from './mirror.store.js';

/** A version of a mirror as `firmwatch mirror status` shows it: its skipped examples as a list. */
export type MirrorVersionStatus = Omit<MirrorVersionRow, 'skipped_examples'> & {
  skipped_examples: string[];
};

/** Every import of every mirror, newest first (`firmwatch mirror status`). */
export async function mirrorStatus(db: Kysely<Database>): Promise<MirrorVersionStatus[]> {
  return (await listMirrorVersions(db)).map((version) => ({
    ...version,
    skipped_examples: JSON.parse(version.skipped_examples) as string[],
  }));
}
