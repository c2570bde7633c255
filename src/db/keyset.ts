import { type RawBuilder, sql } from 'kysely';

/** Where a page ends: the sort value and id of its last item. */
export interface KeysetPosition {
  sortValue: string;
  id: string;
}

/**
 * The rows strictly after `position` in (sort column desc, id desc) order, for `.where(...)`.
 * Ties on the sort column are broken by id, so no row is skipped or repeated between pages, and
 * rows created after the first page (newer, so sorted before it) never shift later pages.
 */
export function after(
  position: KeysetPosition | undefined,
  sortColumn = 'created_at',
  idColumn = 'id',
): RawBuilder<boolean> {
  if (!position) return sql<boolean>`1 = 1`;
  const sort = sql.ref(sortColumn);
  return sql<boolean>`(${sort} < ${position.sortValue} or (${sort} = ${position.sortValue} and ${sql.ref(idColumn)} < ${position.id}))`;
}
