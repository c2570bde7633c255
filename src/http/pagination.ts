import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import Type, { type Static, type TSchema } from 'typebox';
import type { KeysetPosition } from '../db/keyset.js';
import { HttpProblem } from './problems.js';

export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 20;
export const MAX_CURSOR_LENGTH = 2048;

export const PaginationQueryProperties = {
  // Optional to the caller (the document must not mark it required); validation fills in the
  // default before a handler runs, and Paginator.page falls back to the same default.
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_LIMIT,
      default: DEFAULT_LIMIT,
      description: 'Items per page, 1 to 100.',
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_CURSOR_LENGTH,
      description: 'Opaque: `pagination.next_cursor` of the previous page.',
    }),
  ),
};

export const PaginationQuery = Type.Object(PaginationQueryProperties, {
  additionalProperties: false,
});
export type PageRequest = Static<typeof PaginationQuery>;

export const PaginationSchema = Type.Object(
  {
    limit: Type.Integer(),
    has_more: Type.Boolean(),
    next_cursor: Type.Optional(Type.String()),
  },
  { $id: 'Pagination', additionalProperties: false },
);
export type Pagination = Static<typeof PaginationSchema>;

/** `{object: "list", data, pagination}` of the given item schema. */
export function ListSchema<T extends TSchema>(item: T, options: { $id?: string } = {}) {
  return Type.Object(
    {
      object: Type.Literal('list'),
      data: Type.Array(item),
      pagination: Type.Ref('Pagination'),
    },
    { additionalProperties: false, ...options },
  );
}

export interface Page<Row> {
  rows: Row[];
  pagination: Pagination;
}

/** The answer of a list operation (`ListSchema`): one page of items and where the next begins. */
export function listResponse<Row>(page: Page<Row>) {
  return { object: 'list' as const, data: page.rows, pagination: page.pagination };
}

/** A list that always fits in one page: there is no cursor, and `has_more` is always false. */
export function singlePage<Row>(rows: Row[]): Page<Row> {
  return { rows, pagination: { limit: MAX_LIMIT, has_more: false } };
}

function invalidCursor(): HttpProblem {
  return new HttpProblem('invalid_cursor', {
    detail:
      'The cursor is not valid for this list: pass pagination.next_cursor of a previous page of the same list, unchanged.',
  });
}

/**
 * Opaque, signed cursors. A cursor names the list it belongs to (list name, workspace,
 * environment and filters, hashed) and where the previous page ended; the HMAC makes any edit,
 * or reuse on another list, a 400 instead of a silently wrong page.
 */
export class Paginator {
  constructor(private readonly secret: () => Promise<Buffer>) {}

  private async sign(payload: string): Promise<string> {
    return createHmac('sha256', await this.secret())
      .update(payload)
      .digest('base64url');
  }

  private listHash(list: readonly string[]): string {
    return createHash('sha256').update(JSON.stringify(list)).digest('base64url').slice(0, 16);
  }

  async encode(list: readonly string[], position: KeysetPosition): Promise<string> {
    const payload = Buffer.from(
      JSON.stringify([1, this.listHash(list), position.sortValue, position.id]),
    ).toString('base64url');
    return `${payload}.${await this.sign(payload)}`;
  }

  async decode(list: readonly string[], cursor: string): Promise<KeysetPosition> {
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined) throw invalidCursor();
    const expected = Buffer.from(await this.sign(payload));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw invalidCursor();
    }
    let fields: unknown;
    try {
      fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalidCursor();
    }
    const [version, listHash, sortValue, id] = Array.isArray(fields) ? fields : [];
    if (
      version !== 1 ||
      listHash !== this.listHash(list) ||
      typeof sortValue !== 'string' ||
      typeof id !== 'string'
    ) {
      throw invalidCursor();
    }
    return { sortValue, id };
  }

  /**
   * One page: `fetch` must return up to `take` rows after the position, in list order; one row
   * more than the limit is asked for, so `has_more` is exact.
   */
  async page<Row>(
    list: readonly string[],
    request: PageRequest,
    fetch: (after: KeysetPosition | undefined, take: number) => Promise<Row[]>,
    positionOf: (row: Row) => KeysetPosition,
  ): Promise<Page<Row>> {
    const limit = request.limit ?? DEFAULT_LIMIT;
    const position = request.cursor ? await this.decode(list, request.cursor) : undefined;
    const fetched = await fetch(position, limit + 1);
    const rows = fetched.slice(0, limit);
    const last = rows.at(-1);
    const hasMore = fetched.length > limit && last !== undefined;
    return {
      rows,
      pagination: {
        limit,
        has_more: hasMore,
        ...(hasMore ? { next_cursor: await this.encode(list, positionOf(last)) } : {}),
      },
    };
  }
}
