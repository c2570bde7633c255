import type { Insertable, Selectable } from 'kysely';

/*
 * Column conventions, identical on SQLite and PostgreSQL so each store is written once:
 * ids are prefixed text, timestamps are ISO-8601 UTC text (see lib/clock.ts), JSON is text.
 */

export interface WorkspacesTable {
  id: string;
  name: string;
  created_at: string;
}

export interface Database {
  workspaces: WorkspacesTable;
}

export type WorkspaceRow = Selectable<WorkspacesTable>;
export type NewWorkspaceRow = Insertable<WorkspacesTable>;
