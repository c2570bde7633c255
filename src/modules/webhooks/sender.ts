import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import { type AddressPolicy, publicAddressesOnly } from './destination-policy.js';

/**
 * The webhook sender: one POST to a customer's URL, defended against server-side request forgery
 * at delivery time. The host is resolved at every attempt; if any address it resolves to is not
 * public the attempt is refused before any connection; otherwise the connection is pinned to the
 * vetted address (the host name still gives SNI, `Host` and certificate verification), so a DNS
 * answer that changes between the check and the connect cannot redirect it.
 */

export interface WebhookNetwork {
  /** Every address the host resolves to (default: the system resolver, all families). */
  resolve(host: string): Promise<string[]>;
  /** Which addresses may be connected to (default: public unicast only). */
  addressPolicy: AddressPolicy;
  /** Extra trusted certificate authorities (PEM), for tests; default: Node's bundled roots. */
  ca?: string | Buffer;
}

export interface SenderTimeouts {
  /** TCP and TLS connection. */
  connectMs: number;
  /** For the response headers, and again for the body. */
  responseMs: number;
}

export const DEFAULT_TIMEOUTS: SenderTimeouts = { connectMs: 5000, responseMs: 10_000 };

/**
 * The longest an attempt can take: the connection, the headers, the body's deadline, and one more
 * idle wait for the chunk that finds the deadline passed.
 */
export function longestAttemptMs(timeouts: SenderTimeouts = DEFAULT_TIMEOUTS): number {
  return timeouts.connectMs + 3 * timeouts.responseMs;
}
/** The first bytes of a response kept for the delivery log; the rest is not read. */
export const EXCERPT_BYTES = 4096;

export const systemNetwork: WebhookNetwork = {
  async resolve(host) {
    const answers = await dnsLookup(host, { all: true, verbatim: true });
    return answers.map((answer) => answer.address);
  },
  addressPolicy: publicAddressesOnly,
};

export interface AttemptRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What one attempt did: an HTTP status, or an error code when no response came back. */
export interface AttemptResult {
  address: string | null;
  status: number | null;
  errorCode: AttemptErrorCode | null;
  errorMessage: string | null;
  durationMs: number;
  excerpt: string | null;
}

export type AttemptErrorCode =
  | 'dns_failed'
  | 'address_not_allowed'
  | 'connect_failed'
  | 'tls_failed'
  | 'timeout'
  | 'connection_failed';

export interface WebhookSender {
  send(request: AttemptRequest): Promise<AttemptResult>;
  close(): Promise<void>;
}

// Codes Node's TLS layer gives a certificate it will not trust.
const TLS_CODES = /CERT|SSL|TLS|ERR_TLS|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME/;

function classify(error: unknown): { code: AttemptErrorCode; message: string } {
  const err = error as { code?: string; message?: string; cause?: { code?: string } };
  const code = err.code ?? err.cause?.code ?? '';
  const message = String(err.message ?? error).slice(0, 500);
  if (
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'ABORT_ERR' ||
    code === 'ETIMEDOUT'
  )
    return { code: 'timeout', message };
  if (TLS_CODES.test(code)) return { code: 'tls_failed', message };
  if (code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return { code: 'connect_failed', message };
  return { code: 'connection_failed', message };
}

/** A lookup that answers only the vetted address, whatever the connection asks for. */
function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return (_host, options, callback) => {
    if (options.all) (callback as (e: null, a: unknown[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

export function createWebhookSender(options: {
  network?: WebhookNetwork;
  timeouts?: SenderTimeouts;
  /** Keep-alive connection pools kept, one per vetted address (the oldest is closed beyond). */
  maxPools?: number;
}): WebhookSender {
  const network = options.network ?? systemNetwork;
  const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
  const maxPools = options.maxPools ?? 256;
  const deadlineMs = timeouts.connectMs + 2 * timeouts.responseMs;
  // One keep-alive agent per vetted address: connections are reused only to that address.
  const agents = new Map<string, Agent>();

  function agentFor(address: string): Agent {
    let agent = agents.get(address);
    if (agent) {
      // Most recently used last, so the oldest is first to go.
      agents.delete(address);
      agents.set(address, agent);
      return agent;
    }
    agent = new Agent({
      connect: {
        lookup: pinnedLookup(address),
        timeout: timeouts.connectMs,
        ...(network.ca ? { ca: network.ca } : {}),
      },
      headersTimeout: timeouts.responseMs,
      bodyTimeout: timeouts.responseMs,
      keepAliveTimeout: 30_000,
    });
    agents.set(address, agent);
    if (agents.size > maxPools) {
      const [oldest, old] = agents.entries().next().value as [string, Agent];
      agents.delete(oldest);
      void old.close();
    }
    return agent;
  }

  async function vet(
    host: string,
  ): Promise<
    { address: string } | { address: string | null; code: AttemptErrorCode; message: string }
  > {
    const bare = host.replace(/^\[|\]$/g, '');
    let addresses: string[];
    try {
      addresses = isIP(bare) ? [bare] : await network.resolve(bare);
    } catch (error) {
      return { address: null, code: 'dns_failed', message: classify(error).message };
    }
    if (addresses.length === 0)
      return { address: null, code: 'dns_failed', message: `${host} has no address` };
    // Any forbidden answer refuses the attempt: a name that mixes public and private addresses is
    // what a rebinding attack looks like.
    for (const address of addresses) {
      const reason = network.addressPolicy(address);
      if (reason !== null)
        return {
          address,
          code: 'address_not_allowed',
          message: `${host} resolves to ${address}, ${reason}`,
        };
    }
    return { address: addresses[0] as string };
  }

  return {
    async send(request) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const failed = (address: string | null, code: AttemptErrorCode, message: string) => ({
        address,
        status: null,
        errorCode: code,
        errorMessage: message,
        durationMs: elapsed(),
        excerpt: null,
      });
      const url = new URL(request.url);
      const vetted = await vet(url.hostname);
      if ('code' in vetted) return failed(vetted.address, vetted.code, vetted.message);
      try {
        const response = await agentFor(vetted.address).request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: request.headers,
          body: request.body,
        });
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of response.body) {
          chunks.push(chunk as Buffer);
          size += (chunk as Buffer).length;
          if (size >= EXCERPT_BYTES) break;
          // A body that trickles in is cut off at the attempt's deadline, whatever the idle
          // timeout allows (checked per chunk: a timer per request costs more than this).
          if (performance.now() - started > deadlineMs) {
            response.body.destroy();
            throw Object.assign(new Error('the response body took too long'), {
              code: 'UND_ERR_BODY_TIMEOUT',
            });
          }
        }
        return {
          address: vetted.address,
          status: response.statusCode,
          errorCode: null,
          errorMessage: null,
          durationMs: elapsed(),
          excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'),
        };
      } catch (error) {
        const { code, message } = classify(error);
        return failed(vetted.address, code, message);
      }
    },
    async close() {
      await Promise.all([...agents.values()].map((agent) => agent.close()));
      agents.clear();
    },
  };
}
