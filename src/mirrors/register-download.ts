import type { DownloadableMirror } from './mirror-registers.js';

// What a register's download is, apart from the code that runs it (mirror-download.ts), so a
// register's own download (edgar-download.ts) and the runner do not import each other. The
// settings are the mirrors' own: config.ts reads them from the environment and composes them.

/** What a download of a mirror's file needs (`mirror refresh NAME --download`, the worker). */
export interface MirrorDownloadConfig {
  /** Where the file is written while it is downloaded and imported. */
  directory: string;
  /** The User-Agent the SEC asks for (who and a contact e-mail); null when not configured. */
  secUserAgent: string | null;
  urls: Record<DownloadableMirror, string>;
}

/** What a register's refusal (an answer that is not 200) says, read by the register's own rules. */
export interface RefusalReading {
  /** Whether waiting can mend it (a rate limit), or only a person can (a refused User-Agent). */
  retryable: boolean;
  detail: string;
  /** How long the register asks us to wait before trying again. */
  waitMs?: number;
}

/** How a mirror's file is requested from its register. */
export interface RegisterDownload {
  /** The register, as a failure names it: "the SEC answered 503". */
  register: string;
  /** The file's name, ending the temporary file's. */
  fileName: string;
  url(settings: MirrorDownloadConfig): string;
  /** The headers the register asks for; throws `mirror_download_unconfigured` when a setting is missing. */
  headers(settings: MirrorDownloadConfig): Record<string, string>;
  readRefusal(
    status: number,
    body: string,
    retryAfterMs: number | undefined,
  ): RefusalReading | undefined;
}
