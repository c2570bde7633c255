import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where the SEC publishes the bulk submissions file ("Bulk data", EDGAR APIs page). */
export const SUBMISSIONS_PATH = '/Archives/edgar/daily-index/bulkdata/submissions.zip';

/**
 * What the fake answers next: the file; the SEC's rate-limit page; the file cut off before its
 * Content-Length (a connection that broke); or a 503 (an outage).
 */
export type SecAnswer = 'file' | 'rate_limited' | 'truncated' | 'unavailable';

export interface FakeSec {
  /** The file's URL, for EDGAR_DOWNLOAD_URL. */
  url: string;
  /** Every request, in order, with the User-Agent it carried. */
  requests: Array<{ path: string; userAgent: string | undefined }>;
  /** Answers for the next requests, in order; once empty, the file. */
  answers: SecAnswer[];
  /** Holds every answer with the file halfway through until the returned function is called. */
  hold(): () => void;
  reset(): void;
  close(): Promise<void>;
}

/**
 * The SEC's two refusals, 403 with an HTML page titled "SEC.gov | Request Rate Threshold
 * Exceeded". Over the rate (10 requests per second,
 * https://www.sec.gov/search-filings/edgar-search-assistance/accessing-edgar-data, "Fair access"):
 * the status and title as reported in https://github.com/joeyism/py-edgar/issues/24 ("the SEC
 * website returns a `403` response"), the text as the SEC's page says it (a copy is kept in
 * https://github.com/TheAtticusProject/cuad). An undeclared User-Agent: the text quoted in
 * https://github.com/pancak3lullz/SECurityTr8Ker/issues/2 ("all requests ... receive a 403 response").
 * The SEC sends no Retry-After with either.
 */
const page = (text: string) => `<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />
<title>SEC.gov | Request Rate Threshold Exceeded</title>
</head>
<body>
<div id="header">U.S. Securities and Exchange Commission</div>
<div id="content">
${text}
<p>For best practices on efficiently downloading information from SEC.gov, including the latest EDGAR filings, visit sec.gov/developer. For more information, contact opendata@sec.gov.</p>
<p>Reference ID: 0.2796df17.1605998925.16923192</p>
</div>
</body>
</html>
`;

export const SEC_RATE_LIMIT_PAGE = page(`<h1>You've Exceeded the SEC's Traffic Limit</h1>
<p>Your request rate has exceeded the SEC's maximum allowable requests per second. Your access to SEC.gov will be limited for 10 minutes.</p>
<p>Current guidelines limit each user to a total of no more than 10 requests per second, regardless of the number of machines used to submit requests. To ensure that SEC.gov remains available to all users, we reserve the right to block IP addresses that submit excessive requests.</p>
<p>The block will be lifted automatically by waiting 10 minutes. Continuing to exceed the SEC's maximum allowable request rate during the time-out period will extend the duration of the time-out period.</p>`);

export const SEC_UNDECLARED_TOOL_PAGE =
  page(`<h1>Your Request Originates from an Undeclared Automated Tool</h1>
<p>To allow for equitable access to all users, SEC reserves the right to limit requests originating from undeclared automated tools. Your request has been identified as part of a network of automated tools outside of the acceptable policy and will be managed until action is taken to declare your traffic.</p>
<p>Please declare your traffic by updating your user agent to include company specific information.</p>`);

/**
 * A fake www.sec.gov on 127.0.0.1 serving `submissions.zip` as a static file: 200 with
 * Content-Type, Content-Length and Last-Modified (RFC 9110 sections 8.3, 8.6, 8.8.2; the SEC's
 * pages do not document its headers). A request whose User-Agent declares no contact e-mail, as the
 * SEC asks ("Sample Company Name AdminContact@<sample company domain>.com",
 * https://www.sec.gov/os/webmaster-faq#developers), is refused as an undeclared automated tool.
 */
export async function startFakeSec(file: Buffer, lastModified: string): Promise<FakeSec> {
  const requests: FakeSec['requests'] = [];
  const answers: SecAnswer[] = [];
  let held: Promise<void> | undefined;

  const refuse = (response: ServerResponse, body: string) => {
    response.writeHead(403, {
      'content-type': 'text/html',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  };

  const server = createServer((request, response) => {
    const userAgent = request.headers['user-agent'];
    requests.push({ path: request.url ?? '', userAgent });
    if (request.url !== SUBMISSIONS_PATH) {
      response.writeHead(404).end();
      return;
    }
    if (!userAgent || !/\S+@\S+\.\S+/.test(userAgent)) {
      refuse(response, SEC_UNDECLARED_TOOL_PAGE);
      return;
    }
    const answer = answers.shift() ?? 'file';
    if (answer === 'rate_limited') {
      refuse(response, SEC_RATE_LIMIT_PAGE);
      return;
    }
    if (answer === 'unavailable') {
      response.writeHead(503, { 'content-type': 'text/html' }).end('<h1>Service Unavailable</h1>');
      return;
    }
    const headers = {
      'content-type': 'application/zip',
      'content-length': file.length,
      'last-modified': lastModified,
    };
    if (answer === 'truncated') {
      // Half the file, then the connection closes: fewer bytes than Content-Length announced.
      response.writeHead(200, headers);
      response.write(file.subarray(0, Math.floor(file.length / 2)), () =>
        response.socket?.destroy(),
      );
      return;
    }
    // A held answer sends its first half, then waits: a download in progress.
    const half = held ? Math.floor(file.length / 2) : 0;
    response.writeHead(200, headers);
    if (half > 0) response.write(file.subarray(0, half));
    void (held ?? Promise.resolve()).then(() => response.end(file.subarray(half)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${SUBMISSIONS_PATH}`,
    requests,
    answers,
    hold() {
      let release = () => {};
      held = new Promise<void>((resolve) => {
        release = resolve;
      });
      return () => {
        held = undefined;
        release();
      };
    },
    reset() {
      requests.length = 0;
      answers.length = 0;
      held = undefined;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
