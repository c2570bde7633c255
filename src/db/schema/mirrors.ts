import type { Generated } from 'kysely';

// Register mirrors: each mirror, its imported versions and their companies.

export interface MirrorsTable {
  name: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
}

export type MirrorVersionState = 'importing' | 'ready' | 'superseded' | 'failed';

export interface MirrorVersionsTable {
  id: string;
  mirror_name: string;
  state: MirrorVersionState;
  retrieved_at: string;
  file: string;
  imported_rows: Generated<number>;
  skipped_rows: Generated<number>;
  skipped_examples: Generated<string>;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  /** Companies added, removed or changed since the version this one superseded (null: none). */
  changed_companies: Generated<number | null>;
  /** Monitors that diff made due now (null: no previous version). */
  monitors_made_due: Generated<number | null>;
}

export interface MirrorCompaniesTable {
  version_id: string;
  register_key: string;
  country_code: string;
  tax_identifier: string | null;
  registration_number: string | null;
  vat_number: string | null;
  legal_name: string;
  folded_name: string;
  company_legal_status: string;
  raw_status: string | null;
  legal_form: string | null;
  incorporation_date: string | null;
  address: string | null;
  city_or_state: string | null;
}

/** A register change feed's read position and its consumer's lease (migration 0023). */
export interface FeedPositionsTable {
  feed: string;
  /** The feed's own position (a stream timepoint, an update id), or null before the first read. */
  position: string | null;
  /** When the register published the last event read. */
  published_at: string | null;
  updated_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
}
