import { MirrorError } from './mirror-import.js';
import type {
  MirrorDownloadConfig,
  RefusalReading,
  RegisterDownload,
} from './register-download.js';

/**
 * How long the SEC limits an address that went over its rate: "Your access to SEC.gov will be
 * limited for 10 minutes", and retrying within it extends it (the SEC's "Request Rate Threshold
 * Exceeded" page; see `readRefusal`).
 */
export const SEC_RATE_LIMIT_WAIT_MS = 10 * 60_000;

/**
 * The download of the SEC's bulk submissions file. The SEC's fair access rules
 * (https://www.sec.gov/search-filings/edgar-search-assistance/accessing-edgar-data, "Fair access";
 * https://www.sec.gov/os/webmaster-faq#developers): keyless, every automated request declares its
 * sender in `User-Agent` ("Sample Company Name AdminContact@<sample company domain>.com"), and at most
 * 10 requests per second per user. A refresh is one request (a retry waits minutes), so the rate
 * holds without a budget; the User-Agent is SEC_USER_AGENT, never a default of ours.
 */
export const EDGAR_DOWNLOAD: RegisterDownload = {
  register: 'the SEC',
  fileName: 'submissions.zip',
  url: (settings) => settings.urls.edgar,
  headers(settings: MirrorDownloadConfig) {
    if (settings.secUserAgent === null)
      throw new MirrorError(
        'mirror_download_unconfigured',
        'SEC_USER_AGENT is not set: the SEC serves automated downloads only to a declared User-Agent naming who you are and a contact e-mail ("Sample Company Name AdminContact@<sample company domain>.com"); set SEC_USER_AGENT (e.g. SEC_USER_AGENT="Acme Corp admin@acme.example") and try again',
      );
    return { 'user-agent': settings.secUserAgent };
  },
  readRefusal,
};

/**
 * The SEC answers both of its refusals with 403 and an HTML page titled "SEC.gov | Request Rate
 * Threshold Exceeded" (reported in https://github.com/joeyism/py-edgar/issues/24; the page's text
 * is kept in https://github.com/TheAtticusProject/cuad): over the rate, "Your request rate has
 * exceeded the SEC's maximum allowable requests per second. Your access to SEC.gov will be limited
 * for 10 minutes" (waited out, then tried again); an undeclared User-Agent, "SEC reserves the right
 * to limit requests originating from undeclared automated tools ... Please declare your traffic by
 * updating your user agent" (https://github.com/pancak3lullz/SECurityTr8Ker/issues/2), which no
 * retry mends. A 429 (seen from www.sec.gov by https://github.com/sec-edgar/sec-edgar/issues/284)
 * is a rate limit too.
 */
function readRefusal(
  status: number,
  body: string,
  retryAfterMs: number | undefined,
): RefusalReading | undefined {
  if (status === 403 && /undeclared automated tool/i.test(body))
    return {
      retryable: false,
      detail:
        'the SEC refused the request as coming from an undeclared automated tool: SEC_USER_AGENT must name who you are and a contact e-mail',
    };
  if (
    (status === 403 &&
      /Request Rate Threshold Exceeded|request rate has exceeded|exceeded the SEC.s traffic limit/i.test(
        body,
      )) ||
    status === 429
  )
    return {
      retryable: true,
      detail: `the SEC answered ${status}: the request rate exceeded its limit (10 requests per second); it limits access for 10 minutes`,
      waitMs: Math.max(retryAfterMs ?? 0, SEC_RATE_LIMIT_WAIT_MS),
    };
  return undefined;
}
