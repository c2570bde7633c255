import type { MirrorName } from './mirror-formats.js';

/**
 * The mirrors firmwatch can download from their register (MIRROR_REFRESH, `mirror refresh NAME
 * --download`), and where each register publishes its file unless configured. Kept apart from the
 * download code so configuration can name them without loading it.
 */
export const DOWNLOADABLE_MIRRORS = ['edgar'] as const satisfies readonly MirrorName[];
export type DownloadableMirror = (typeof DOWNLOADABLE_MIRRORS)[number];

export function isDownloadableMirror(name: string): name is DownloadableMirror {
  return (DOWNLOADABLE_MIRRORS as readonly string[]).includes(name);
}

/**
 * The SEC's bulk submissions file, recompiled nightly: "Bulk data" at
 * https://www.sec.gov/search-filings/edgar-application-programming-interfaces.
 */
export const EDGAR_SUBMISSIONS_URL =
  'https://www.sec.gov/Archives/edgar/daily-index/bulkdata/submissions.zip';
