import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Companies House's streaming API, company profile stream, as the outside world: a real HTTP
 * server on 127.0.0.1, shaped from the streaming API's documentation (developer-specs
 * .company-information.service.gov.uk, streaming-api: guides/overview, guides/authentication,
 * reference/company-information/stream):
 *
 * - `GET /companies`, HTTP Basic with the stream key as the user name and an empty password; any
 *   other key is `401` (the body third-party clients report: `{"error":"Invalid
 *   Authorization","type":"ch:service"}`).
 * - A 200 is one long response, "returned one-per-line" (newline-delimited JSON); a line may reach
 *   the client in two chunks, and empty lines are keep-alives sent while nothing happens.
 * - Each event is the envelope `{resource_kind, resource_uri, resource_id, data, event:
 *   {timepoint, published_at, type}}`, `data` being the same company profile `GET
 *   /company/{number}` answers; `type` is `changed`, or `deleted` for a removed profile.
 * - `?timepoint=N` replays from the event of timepoint N (included), then goes on live; a
 *   timepoint older than the events kept is `416` ("The specified timepoint is invalid or too old").
 * - More open connections for one key than allowed (2, as Companies House announced in 2022) is
 *   `429` ("Client has been rate-limited").
 */
export interface FakeCompaniesHouseStream {
  base: string;
  streamKey: string;
  /** Connections open now, and every request's timepoint (null: none given), in order. */
  connections(): number;
  requests: Array<{ timepoint: string | null; status: number }>;
  /** Publishes an event on the stream: sent to every open connection, kept for replays. */
  publish(profile: Record<string, unknown>, type?: 'changed' | 'deleted'): number;
  /** Drops every open connection (the nightly disconnect, a network fault). */
  disconnectAll(): void;
  /** Keeps only events from this timepoint on: an older one is a 416. */
  forgetBefore(timepoint: number): void;
  /** Events published, with their timepoints. */
  published: Array<{ timepoint: number; number: string }>;
  close(): Promise<void>;
}

export async function startFakeCompaniesHouseStream(
  options: {
    streamKey?: string;
    keepAliveMs?: number;
    maxConnections?: number;
    firstTimepoint?: number;
  } = {},
): Promise<FakeCompaniesHouseStream> {
  const streamKey = options.streamKey ?? 'stream-key-0000';
  const maxConnections = options.maxConnections ?? 2;
  const events: Array<{ timepoint: number; line: string; number: string }> = [];
  let next = options.firstTimepoint ?? 1_000_000;
  let oldestKept = next;
  const open = new Set<ServerResponse>();
  const requests: FakeCompaniesHouseStream['requests'] = [];

  // Half a line, then the rest: a client must join chunks before it splits lines.
  const send = (response: ServerResponse, line: string) => {
    const half = Math.floor(line.length / 2);
    response.write(line.slice(0, half));
    response.write(`${line.slice(half)}\n`);
  };

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stream.test');
    const given = url.searchParams.get('timepoint');
    const answer = (status: number, body: unknown) => {
      requests.push({ timepoint: given, status });
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.method !== 'GET' || url.pathname !== '/companies')
      return answer(404, { error: 'Not Found', type: 'ch:service' });
    const expected = `Basic ${Buffer.from(`${streamKey}:`).toString('base64')}`;
    if (request.headers.authorization !== expected)
      return answer(401, { error: 'Invalid Authorization', type: 'ch:service' });
    if (open.size >= maxConnections)
      return answer(429, { error: 'Too Many Requests', type: 'ch:service' });
    let from = next;
    if (given !== null) {
      const timepoint = Number(given);
      if (!/^[0-9]+$/.test(given) || timepoint < oldestKept || timepoint > next)
        return answer(416, { error: 'Requested Range Not Satisfiable', type: 'ch:service' });
      from = timepoint;
    }
    requests.push({ timepoint: given, status: 200 });
    response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    response.flushHeaders();
    for (const event of events) if (event.timepoint >= from) send(response, event.line);
    open.add(response);
    const keepAlive = setInterval(() => response.write('\n'), options.keepAliveMs ?? 200);
    response.on('close', () => {
      clearInterval(keepAlive);
      open.delete(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const published: FakeCompaniesHouseStream['published'] = [];

  return {
    base: `http://127.0.0.1:${port}`,
    streamKey,
    connections: () => open.size,
    requests,
    published,
    publish(profile, type = 'changed') {
      const timepoint = next++;
      const number = String(profile.company_number);
      const line = JSON.stringify({
        resource_kind: 'company-profile',
        resource_uri: `/company/${number}`,
        resource_id: number,
        data: profile,
        event: {
          timepoint,
          // As the stream writes it: UK time, no zone.
          published_at: new Date().toISOString().slice(0, 19),
          type,
        },
      });
      events.push({ timepoint, line, number });
      published.push({ timepoint, number });
      for (const response of open) send(response, line);
      return timepoint;
    },
    disconnectAll() {
      for (const response of open) response.socket?.destroy();
    },
    forgetBefore(timepoint) {
      oldestKept = timepoint;
      const kept = events.findIndex((event) => event.timepoint >= timepoint);
      events.splice(0, kept === -1 ? events.length : kept);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
