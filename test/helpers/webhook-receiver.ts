import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { publicAddressesOnly } from '../../src/modules/webhooks/destination-policy.js';
import type { WebhookNetwork } from '../../src/modules/webhooks/sender.js';

const TLS = join(import.meta.dirname, '../fixtures/tls');
const read = (name: string) => readFileSync(join(TLS, name));
/** The test CA that signed the receivers' certificate (test/fixtures/tls). */
export const TEST_CA = read('ca.crt');

export interface ReceivedDelivery {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (a slow receiver). */
  delayMs?: number;
  /** Answer only once this settles (a receiver the test holds). */
  until?: Promise<unknown>;
}

export interface WebhookReceiver {
  /** The receiver's port on 127.0.0.1. */
  port: number;
  /** A webhook URL on a public-looking name; the test network resolves it to 127.0.0.1. */
  url(path?: string, host?: string): string;
  received: ReceivedDelivery[];
  /** How the next requests are answered (default: 200 "ok"). */
  reply: (request: ReceivedDelivery, index: number) => Reply;
  close(): Promise<void>;
}

/**
 * A customer's webhook receiver (the outside world): a real HTTPS server on 127.0.0.1, with a
 * certificate for *.example.com from the test CA (or a self-signed one, `untrusted`).
 */
export async function startWebhookReceiver(
  options: { untrusted?: boolean } = {},
): Promise<WebhookReceiver> {
  const name = options.untrusted ? 'untrusted' : 'receiver';
  const received: ReceivedDelivery[] = [];
  const receiver = {
    received,
    reply: (() => ({ status: 200, body: 'ok' })) as WebhookReceiver['reply'],
  };
  const server: Server = createServer(
    { key: read(`${name}.key`), cert: read(`${name}.crt`), keepAliveTimeout: 60_000 },
    (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const delivery: ReceivedDelivery = {
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          rawBody: Buffer.concat(chunks),
        };
        received.push(delivery);
        const reply = receiver.reply(delivery, received.length - 1);
        const send = () => {
          if (response.destroyed) return;
          response.writeHead(reply.status, reply.headers);
          response.end(reply.body ?? '');
        };
        if (reply.until) void reply.until.then(send, send);
        else if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    port,
    url: (path = '/hooks', host = 'hooks.example.com') => `https://${host}:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/**
 * The network as the tests see it: names resolve through `hosts` (a list, or a function called at
 * every lookup, to change answers between attempts), the test CA is trusted, and 127.0.0.1 (where
 * the receivers run) counts as public; every other address is judged by the production policy.
 */
export function testNetwork(
  hosts: Record<string, string[] | (() => string[])> = { 'hooks.example.com': ['127.0.0.1'] },
  { allowLoopback = true }: { allowLoopback?: boolean } = {},
): WebhookNetwork & { lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    async resolve(host) {
      lookups.push(host);
      const answer = hosts[host];
      if (answer === undefined)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return typeof answer === 'function' ? answer() : answer;
    },
    addressPolicy: (address) =>
      allowLoopback && address === '127.0.0.1' ? null : publicAddressesOnly(address),
    ca: TEST_CA,
  };
}
