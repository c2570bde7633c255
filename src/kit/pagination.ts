import type { components } from './api-types.js';

type Problem = components['schemas']['Problem'];

/** One page of a list as the typed client answers it. */
interface PageAnswer<T> {
  data?: { data: T[]; pagination: { has_more: boolean; next_cursor?: string } };
  error?: Problem;
  response: Response;
}

/** A Problem the API answered, thrown: `problem` is the typed body (branch on its `code`). */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
    this.name = 'ProblemError';
  }
}

/** A page of a list that failed (after the client's own retries). */
export class ListError extends ProblemError {
  constructor(problem: Problem) {
    super(problem);
    this.name = 'ListError';
  }
}

/** The data of an answer, or its Problem thrown as a ProblemError. */
export async function orThrow<T>(
  answer: Promise<{ data?: T; error?: Problem; response: Response }>,
): Promise<T> {
  const { data, error } = await answer;
  if (data === undefined) throw new ProblemError(error ?? unexpected());
  return data;
}

/**
 * Every item of a list, page after page, following `next_cursor` (keyset pagination: an item
 * added meanwhile never shifts the pages):
 *
 *   for await (const check of paginate((cursor) =>
 *     client.GET('/checks', { params: { query: { limit: 100, cursor } } }))) { ... }
 *
 * A page that fails (after the client's own retries) throws a ListError carrying its Problem.
 */
export async function* paginate<T>(
  page: (cursor: string | undefined) => Promise<PageAnswer<T>>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  for (;;) {
    const { data, error } = await page(cursor);
    if (!data) throw new ListError(error ?? unexpected());
    yield* data.data;
    if (!data.pagination.has_more || data.pagination.next_cursor === undefined) return;
    cursor = data.pagination.next_cursor;
  }
}

function unexpected(): Problem {
  return {
    type: 'about:blank',
    title: 'Unexpected answer',
    status: 0,
    detail: 'The list answered neither a page nor a Problem.',
    code: 'unexpected_answer',
    request_id: '',
    retryable: false,
  };
}
