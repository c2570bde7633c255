import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EnvironmentName } from '../../db/schema.js';
import type { Problem } from '../../http/problems.js';
import type { Viewer } from '../layout.js';
import type { ApiResult } from './api.js';
import type { List } from './api-types.js';

/** Rows asked of the API per page of a download: its largest page (MAX_LIMIT). */
export const DOWNLOAD_PAGE_SIZE = 100;

/** A page of a list by its cursor (undefined: the first), run in-process with `callApi`. */
export type ListPage<T> = (cursor: string | undefined) => Promise<ApiResult<List<T>>>;

interface CsvDownload<T> {
  /** `checks` or `monitors`: the file is firmwatch-<what>-<workspace>-<environment>.csv. */
  what: string;
  viewer: Viewer;
  environment: EnvironmentName;
  header: string;
  line(item: T): string;
  page: ListPage<T>;
  /** Answers a refused first page as the list's own page does (a bad filter): no file yet. */
  refused(problem: Problem): FastifyReply;
}

/**
 * Sends every row of a list as a CSV file, following the API's cursor page after page: one page
 * is held at a time, however long the list. The first page is asked for before anything is sent,
 * so a refused filter gets the list page's answer instead of a file. A page refused after the
 * first (the workspace's rate limit, a failure) can no longer change the status that was sent,
 * so the response is cut short (the browser reports a failed download) rather than ended as if
 * complete.
 */
export async function sendCsv<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  csv: CsvDownload<T>,
): Promise<FastifyReply> {
  const first = await csv.page(undefined);
  if (!first.ok) return csv.refused(first.problem);
  const firstList = first.body;
  async function* chunks() {
    yield csv.header;
    let list = firstList;
    for (;;) {
      if (list.data.length > 0) yield list.data.map(csv.line).join('');
      const cursor = list.pagination.has_more ? list.pagination.next_cursor : undefined;
      if (cursor === undefined) return;
      const next = await csv.page(cursor);
      if (!next.ok) {
        request.log.warn({ problem: next.problem }, 'csv download cut short');
        throw new Error(`A page of the download was refused: ${next.problem.detail}`);
      }
      list = next.body;
    }
  }
  const file = `firmwatch-${csv.what}-${csv.viewer.current.workspace_id}-${csv.environment}.csv`;
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${file}"`)
    .send(Readable.from(chunks()));
}
