import type { Clock } from '../../lib/clock.js';
import { isObject } from '../body-shape.js';
import type { UpstreamClient, UpstreamResult } from '../upstream/upstream-client.js';

/**
 * The OAuth 2.0 access token of Bolagsverket's API gateway (client credentials grant, RFC 6749
 * section 4.4), as its connection establishment guide for värdefulla datamängder documents it:
 * `POST https://portal.api.bolagsverket.se/oauth2/token` with `grant_type=client_credentials`,
 * `client_id`, `client_secret` and both scopes, answered `{access_token, scope, token_type:
 * "Bearer", expires_in}`. The token is asked through the register's upstream client (same budget,
 * same breaker), reused until shortly before `expires_in` runs out, and dropped when the API
 * answers 401 (a token revoked or expired early).
 */

/** Both scopes the API's operations need, asked in one request (a scope missing from the token fails every call). */
export const BOLAGSVERKET_SCOPES = 'vardefulla-datamangder:read vardefulla-datamangder:ping';

/** A token is taken for expired this long before its `expires_in` says, so no call starts with one about to lapse. */
const EXPIRY_MARGIN_MS = 60_000;

/**
 * The token endpoint for an API base URL: the gateway host `gw` (`gw.api.bolagsverket.se`, and the
 * test environment's `gw-accept2.api.bolagsverket.se`) has its tokens served by the portal host
 * (`portal.api.bolagsverket.se`, `portal-accept2.api.bolagsverket.se`), at `/oauth2/token`. Any
 * other host (a mirror, a test double on 127.0.0.1) serves them itself, so `BOLAGSVERKET_BASE_URL`
 * moves both.
 */
export function bolagsverketTokenUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  const host = url.host.replace(/^gw(?=[.-][^:]*\.bolagsverket\.se(:|$))/, 'portal');
  return `${url.protocol}//${host}/oauth2/token`;
}

export type TokenResult =
  | { kind: 'ok'; token: string }
  | Extract<UpstreamResult, { kind: 'unavailable' }>;

export interface TokenCache {
  /** A current token: the cached one, or a new one asked for (one request at a time). */
  get(): Promise<TokenResult>;
  /** Forgets `token` (the API refused it), so the next `get` asks for a new one. */
  refuse(token: string): void;
}

export function bolagsverketTokenCache(options: {
  client: UpstreamClient;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  clock: Clock;
}): TokenCache {
  const { client, clock } = options;
  let cached: { token: string; expiresAt: number } | undefined;
  let pending: Promise<TokenResult> | undefined;

  async function ask(): Promise<TokenResult> {
    const result = await client.postForm(options.tokenUrl, {
      grant_type: 'client_credentials',
      client_id: options.clientId,
      client_secret: options.clientSecret,
      scope: BOLAGSVERKET_SCOPES,
    });
    // The client's reasons name the upstream and the status, never the form it sent.
    if (result.kind === 'unavailable')
      return { ...result, detail: `${result.detail} (OAuth token request)` };
    if (result.kind === 'not_found')
      return {
        kind: 'unavailable',
        reason: 'rejected',
        detail: `${client.name}: the OAuth token endpoint answered 404`,
      };
    const body = result.body;
    const token = isObject(body) ? body.access_token : undefined;
    const expiresIn = isObject(body) ? body.expires_in : undefined;
    const type = isObject(body) ? body.token_type : undefined;
    if (
      typeof token !== 'string' ||
      token === '' ||
      typeof expiresIn !== 'number' ||
      !(expiresIn > 0) ||
      (type !== undefined && (typeof type !== 'string' || type.toLowerCase() !== 'bearer'))
    )
      return {
        kind: 'unavailable',
        reason: 'malformed_response',
        detail: `${client.name}: the OAuth token answer has no bearer access_token with a positive expires_in`,
      };
    cached = {
      token,
      expiresAt: clock.now().getTime() + Math.max(0, expiresIn * 1000 - EXPIRY_MARGIN_MS),
    };
    return { kind: 'ok', token };
  }

  return {
    async get() {
      if (cached && clock.now().getTime() < cached.expiresAt)
        return { kind: 'ok', token: cached.token };
      cached = undefined;
      pending ??= ask().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    refuse(token) {
      if (cached?.token === token) cached = undefined;
    },
  };
}
