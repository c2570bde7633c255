import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import { makeLiveMonitorsDue } from '../modules/monitors/monitors.store.js';
import type { MirrorCompanyRow, MirrorNumberColumn } from './mirror.store.js';
import type { MirrorFormat } from './mirror-format.js';

/** The version a refresh made ready and the one it superseded, by id. */
export interface MirrorVersionPair {
  previous: string;
  next: string;
}

/**
 * Every stored field of a mirror company but its version and key: a company whose key is in both
 * versions has changed when any of these differs. A record, so that a column added to the table
 * is a compile error here until the diff compares it too.
 */
const FIELDS: Record<Exclude<keyof MirrorCompanyRow, 'version_id' | 'register_key'>, true> = {
  country_code: true,
  tax_identifier: true,
  registration_number: true,
  vat_number: true,
  legal_name: true,
  folded_name: true,
  company_legal_status: true,
  raw_status: true,
  legal_form: true,
  incorporation_date: true,
  address: true,
  city_or_state: true,
};
const COMPARED = Object.keys(FIELDS);

const column = (alias: string, name: string) => sql.ref(`${alias}.${name}`);

/**
 * Company `a` has a twin `b`: the same key (`=`, so the primary key finds it) and every field
 * equal, null equal to null (`is not distinct from`, which SQLite and PostgreSQL both have; `=`
 * would call two unknown addresses a change on every refresh).
 */
function twins(a: string, b: string): RawBuilder<boolean> {
  const same = COMPARED.map(
    (field) => sql`${column(a, field)} is not distinct from ${column(b, field)}`,
  );
  return sql<boolean>`${column(a, 'register_key')} = ${column(b, 'register_key')} and ${sql.join(same, sql` and `)}`;
}

/**
 * Counts the companies a refresh changed: those of the new version with no twin in the previous
 * one (added or changed) and those of the previous one whose key is gone (removed). Read only,
 * in the database: no row is brought into memory.
 */
export async function countChangedCompanies(
  db: Kysely<Database>,
  versions: MirrorVersionPair,
): Promise<number> {
  const { rows } = await sql<{ changed: number | string }>`
    select
      (select count(*) from mirror_companies n
        where n.version_id = ${versions.next}
          and not exists (select 1 from mirror_companies o
            where o.version_id = ${versions.previous} and ${twins('o', 'n')}))
      + (select count(*) from mirror_companies o
        where o.version_id = ${versions.previous}
          and not exists (select 1 from mirror_companies n
            where n.version_id = ${versions.next} and n.register_key = o.register_key))
      as changed`.execute(db);
  return Number(rows[0]?.changed ?? 0);
}

/**
 * Whether `number` is held in `numbers` by a changed company, with its old value or its new one:
 * a company of the new version with no twin in the previous one (added or changed), or one of the
 * previous version with no twin in the new one (changed or removed). Correlated, so the database
 * probes the number's index for each monitor rather than computing the whole diff.
 */
function heldByChangedCompany(
  versions: MirrorVersionPair,
  numbers: MirrorNumberColumn,
  number: RawBuilder<string>,
): RawBuilder<boolean> {
  return sql<boolean>`(
    exists (select 1 from mirror_companies n
      where n.version_id = ${versions.next} and ${column('n', numbers)} = ${number}
        and not exists (select 1 from mirror_companies o
          where o.version_id = ${versions.previous} and ${twins('o', 'n')}))
    or exists (select 1 from mirror_companies o
      where o.version_id = ${versions.previous} and ${column('o', numbers)} = ${number}
        and not exists (select 1 from mirror_companies n
          where n.version_id = ${versions.next} and ${twins('o', 'n')})))`;
}

/**
 * Makes due now every live monitor of the mirror's country whose number, of an identifier type the
 * mirror holds, belongs to a company the refresh changed (src/modules/monitors/monitors.store.ts
 * says which monitors and how). Runs inside the swap's transaction, while the previous version's
 * rows still exist. Returns how many monitors were made due.
 */
export async function makeChangedMonitorsDue(
  db: Kysely<Database>,
  format: Pick<MirrorFormat, 'countryCode' | 'numberColumns' | 'prefixes'>,
  versions: MirrorVersionPair,
  now: string,
): Promise<number> {
  let due = 0;
  for (const [identifierType, numbers] of Object.entries(format.numberColumns)) {
    if (!numbers) continue;
    const type = identifierType as keyof typeof format.numberColumns;
    // A number stored without its prefix (a BE VAT number's `BE`) is compared without it.
    const prefix = format.prefixes?.[type];
    due += await makeLiveMonitorsDue(db, {
      now,
      countryCode: format.countryCode,
      identifierType: type,
      changed: (number) =>
        heldByChangedCompany(
          versions,
          numbers,
          prefix ? sql<string>`substr(${number}, ${prefix.length + 1})` : number,
        ),
    });
  }
  return due;
}
