import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/modules/accounts/scopes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { connectHttp } from '../helpers/mcp.js';
import {
  approvedCode,
  exchange,
  memberOfNewWorkspace,
  originOf,
  pkcePair,
  postForm,
  REDIRECT_URI,
  registerClient,
} from './oauth-flow.js';

const CHECK = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
const bodyOf = async (response: Response) =>
  (await response.json()) as { error?: string; detail?: string };
type Tokens = { access_token: string; refresh_token: string; scope: string; expires_in: number };

describe.each(DIALECTS)('OAuth authorization server over HTTP [%s]', (dialect) => {
  let t: TestApp;
  let origin: string;
  let client: { client_id: string };
  let user: { userId: string; workspaceId: string };

  beforeAll(async () => {
    // No verifier cache: a revocation must show on the very next request.
    t = await startTestApp({ dialect, keyCacheTtlMs: 0 });
    origin = originOf(t);
    client = (await (await registerClient(t)).json()) as { client_id: string };
    user = await memberOfNewWorkspace(t, 'agent-owner@example.com');
  });
  afterAll(() => t?.close());

  async function tokensFor(scopes?: string[]): Promise<Tokens> {
    const { verifier, challenge } = pkcePair();
    const code = await approvedCode(t, client, user, { challenge, scopes });
    const response = await exchange(t, client, code, verifier);
    expect(response.status).toBe(200);
    return (await response.json()) as Tokens;
  }

  /** POST /mcp tools/list with this bearer token: the HTTP status and challenge. */
  async function mcpStatus(token: string) {
    const response = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    return { status: response.status, challenge: response.headers.get('www-authenticate') };
  }

  it('publishes authorization-server metadata and points the protected resource to it', async () => {
    const metadata = await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toEqual({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      registration_endpoint: `${origin}/oauth/register`,
      revocation_endpoint: `${origin}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: ALL_SCOPES,
      service_documentation: `${t.baseUrl}/docs`,
    });
    for (const path of ['', '/mcp']) {
      const resource = await (
        await fetch(`${origin}/.well-known/oauth-protected-resource${path}`)
      ).json();
      expect(resource).toMatchObject({
        resource: `${origin}/mcp`,
        authorization_servers: [origin],
      });
    }
    const openapi = await (await fetch(`${t.baseUrl}/openapi.json`)).text();
    expect(openapi).not.toContain('/oauth/');
  });

  it('registers public clients with https or loopback http redirect URIs only', async () => {
    const ok = await registerClient(t, {
      redirect_uris: ['https://agent.example.com/cb', 'http://localhost:9999/cb', 'http://[::1]/x'],
    });
    expect(ok.status).toBe(201);
    expect(await ok.json()).toMatchObject({
      client_id: expect.stringMatching(/^oac_/),
      client_name: 'Test agent',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ redirect_uris: ['http://agent.example.com/cb'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['http://10.0.0.1/cb'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://agent.example.com/cb#frag'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['myapp:/callback'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: [] }, 'invalid_redirect_uri'],
      [{ redirect_uris: 'https://agent.example.com/cb' }, 'invalid_redirect_uri'],
      [{ token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata'],
      [{ grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
      [{ client_name: '' }, 'invalid_client_metadata'],
    ];
    for (const [metadata, error] of refused) {
      const response = await registerClient(t, metadata);
      expect(response.status, JSON.stringify(metadata)).toBe(400);
      expect((await bodyOf(response)).error, JSON.stringify(metadata)).toBe(error);
    }
  });

  it('refuses a redirect URI with a control character, U+2028/U+2029 or a non-URI character, storing nothing', async () => {
    const count = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('oauth_clients')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    // The URL parser would drop the first three and leave the rest: the client would be sent
    // somewhere else than what it registered.
    for (const uri of [
      'http://127.0.0.1:33418/call\rback',
      'http://127.0.0.1:33418/call\nback',
      'http://127.0.0.1:33418/call\tback',
      'http://127.0.0.1:33418/callback\u2028',
      'https://agent.example.com/cb?x=\u2029',
      'https://agent.example.com/cb\r\n',
      'https://agent.example.com/cb\u0000',
      'https://agent.example.com/cb\u007f',
      'https://agent.example.com/cb\u0085',
      ' https://agent.example.com/cb',
      'https://agent.example.com/c b',
      'https://bücher.example/cb',
    ]) {
      const response = await registerClient(t, { redirect_uris: [REDIRECT_URI, uri] });
      expect(response.status, JSON.stringify(uri)).toBe(400);
      const body = await bodyOf(response);
      expect(body.error, JSON.stringify(uri)).toBe('invalid_redirect_uri');
    }
    expect(await count()).toBe(before);
  });

  describe('GET /oauth/authorize', () => {
    const authorize = (params: Record<string, string>) =>
      fetch(`${origin}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
    const valid = () => ({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'st-123',
      scope: 'checks:write checks:read',
      resource: `${origin}/mcp`,
    });

    it('sends a valid request to the consent page of the dashboard', async () => {
      const params = valid();
      const response = await authorize(params);
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get('location') as string, origin);
      expect(location.pathname).toBe('/dashboard/oauth/consent');
      expect(Object.fromEntries(location.searchParams)).toEqual({
        ...params,
        scope: 'checks:read checks:write',
      });
    });

    it('shows (never redirects) an unknown client or a redirect URI it did not register', async () => {
      for (const params of [
        { ...valid(), client_id: 'oac_unknown0000000000000000' },
        { ...valid(), redirect_uri: 'http://127.0.0.1:33418/other' },
        { ...valid(), redirect_uri: 'https://attacker.example/cb' },
        { ...valid(), client_id: '' },
      ]) {
        const response = await authorize(params);
        expect(response.status).toBe(400);
        expect(response.headers.get('location')).toBeNull();
        expect(await response.text()).toContain('not valid');
      }
    });

    it('compares redirect_uri byte for byte: a variant of the registered one is not it', async () => {
      const registered = 'https://agent.example.com/cb/%7Ea?x=1';
      const other = (await (await registerClient(t, { redirect_uris: [registered] })).json()) as {
        client_id: string;
      };
      for (const redirect_uri of [
        'https://agent.example.com/cb/%7ea?x=1',
        'https://agent.example.com/cb/~a?x=1',
        'https://agent.example.com./cb/%7Ea?x=1',
        'https://agent.example.com:443/cb/%7Ea?x=1',
        'HTTPS://agent.example.com/cb/%7Ea?x=1',
        'https://Agent.example.com/cb/%7Ea?x=1',
        'https://agent.example.com/cb/%7Ea/?x=1',
        'https://agent.example.com/x/../cb/%7Ea?x=1',
        'https://agent.example.com/cb/%7Ea?x=1&',
        'https://agent.example.com/cb/%7Ea?x=1\n',
      ]) {
        const response = await authorize({ ...valid(), client_id: other.client_id, redirect_uri });
        expect(response.status, redirect_uri).toBe(400);
        expect(response.headers.get('location'), redirect_uri).toBeNull();
      }
    });

    it('answers on the redirect URI exactly as it was registered, not a cleaned form of it', async () => {
      const registered = 'https://Agent.example.com:443/cb/%7ea?x=1';
      const other = (await (await registerClient(t, { redirect_uris: [registered] })).json()) as {
        client_id: string;
        redirect_uris: string[];
      };
      expect(other.redirect_uris).toEqual([registered]);
      const response = await authorize({
        ...valid(),
        client_id: other.client_id,
        redirect_uri: registered,
        response_type: 'token',
      });
      expect(response.status).toBe(302);
      const location = response.headers.get('location') as string;
      expect(location.startsWith(`${registered}&`), location).toBe(true);
      expect(new URL(location).searchParams.get('error')).toBe('unsupported_response_type');
    });

    it('never uses a redirect URI stored with a control character before registration refused them', async () => {
      const dirty = 'http://127.0.0.1:33418/call\r\nback';
      const id = t.newId('oac');
      await t.database.db
        .insertInto('oauth_clients')
        .values({
          id,
          name: 'Old agent',
          redirect_uris: JSON.stringify([dirty]),
          created_at: '2026-11-01T00:00:00.000Z',
        })
        .execute();
      const response = await authorize({ ...valid(), client_id: id, redirect_uri: dirty });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
    });

    it('sends PKCE, response_type and resource errors back to the client with its state', async () => {
      const { code_challenge: _c, ...withoutChallenge } = valid();
      const cases: Array<[Record<string, string>, string]> = [
        [withoutChallenge, 'invalid_request'],
        [{ ...valid(), code_challenge_method: 'plain' }, 'invalid_request'],
        [{ ...valid(), code_challenge_method: '' }, 'invalid_request'],
        [{ ...valid(), code_challenge: 'short' }, 'invalid_request'],
        [{ ...valid(), response_type: 'token' }, 'unsupported_response_type'],
        [{ ...valid(), scope: 'checks:read admin' }, 'invalid_scope'],
        [{ ...valid(), resource: 'https://elsewhere.example/mcp' }, 'invalid_target'],
      ];
      for (const [params, error] of cases) {
        const response = await authorize(params);
        expect(response.status, JSON.stringify(params)).toBe(302);
        const location = new URL(response.headers.get('location') as string);
        expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
        expect(location.searchParams.get('error'), JSON.stringify(params)).toBe(error);
        expect(location.searchParams.get('state')).toBe('st-123');
      }
    });
  });

  describe("the consent page's sign-in", () => {
    /** The sign-in form's CSRF cookie and token, with this return path, as a browser gets them. */
    async function signIn(email: string, password: string, next: string | undefined) {
      const page = await fetch(
        `${origin}/dashboard/sign-in${next === undefined ? '' : `?${new URLSearchParams({ next })}`}`,
      );
      const cookie = (page.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
      const html = await page.text();
      const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] as string;
      // The hidden field's value, unescaped as the browser reads it.
      const carried = /name="next" value="([^"]*)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
      const form = new URLSearchParams({ _csrf: token, email, password, next: next ?? '' });
      const response = await fetch(`${origin}/dashboard/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: form.toString(),
      });
      const session = response.headers.getSetCookie().find((c) => c.startsWith('fw_session='));
      return { carried, response, session };
    }
    const consentQuery = (state: string) =>
      new URLSearchParams({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        scope: 'checks:read',
        state,
      });
    let person: { password: string };
    beforeAll(async () => {
      person = await memberOfNewWorkspace(t, 'consenting@example.com');
    });

    it('returns to the consent page it was sent from', async () => {
      const consent = `/dashboard/oauth/consent?${consentQuery('st-1')}`;
      const signedOut = await fetch(`${origin}${consent}`, { redirect: 'manual' });
      expect(signedOut.status).toBe(303);
      const toSignIn = new URL(signedOut.headers.get('location') as string, origin);
      expect(toSignIn.pathname).toBe('/dashboard/sign-in');
      const next = toSignIn.searchParams.get('next') as string;
      expect(next).toBe(consent);
      const { carried, response, session } = await signIn(
        'consenting@example.com',
        person.password,
        next,
      );
      expect(carried).toBe(consent);
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe(consent);
      expect(session).toBeDefined();
    });

    it('a consent address with a control character in it is not returned to: sign-in goes home', async () => {
      const signedOut = await fetch(
        `${origin}/dashboard/oauth/consent?${consentQuery('st-\r\nSet-Cookie: a=b')}`,
        { redirect: 'manual' },
      );
      expect(signedOut.status).toBe(303);
      expect(signedOut.headers.get('location')).toBe('/dashboard/sign-in');
      // Nor when such a return path is handed to the sign-in form directly.
      const next = `/dashboard/oauth/consent?${consentQuery('st-1')}\r\n`;
      const { carried, response, session } = await signIn(
        'consenting@example.com',
        person.password,
        next,
      );
      expect(carried).toBeUndefined();
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/dashboard/keys');
      expect(session).toBeDefined();
    });
  });

  describe('POST /oauth/token', () => {
    it('issues opaque tokens for a code with its verifier; only their hashes are stored', async () => {
      const { verifier, challenge } = pkcePair();
      const code = await approvedCode(t, client, user, { challenge });
      const response = await exchange(t, client, code, verifier);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const tokens = (await response.json()) as Tokens & { token_type: string };
      expect(tokens).toMatchObject({
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'checks:read checks:write',
        access_token: expect.stringMatching(/^fwat_[A-Za-z0-9_-]{43}$/),
        refresh_token: expect.stringMatching(/^fwrt_[A-Za-z0-9_-]{43}$/),
      });
      const stored = JSON.stringify([
        await t.database.db.selectFrom('oauth_tokens').selectAll().execute(),
        await t.database.db.selectFrom('oauth_authorization_codes').selectAll().execute(),
      ]);
      for (const secret of [tokens.access_token, tokens.refresh_token, code]) {
        expect(stored).not.toContain(secret);
      }
    });

    it('refuses a wrong verifier, redirect URI or client, an expired code and unknown grants', async () => {
      const { verifier, challenge } = pkcePair();
      const other = (await (await registerClient(t)).json()) as { client_id: string };
      const code = await approvedCode(t, client, user, { challenge });
      const cases: Array<[Record<string, string>, number, string]> = [
        [{ code_verifier: pkcePair().verifier }, 400, 'invalid_grant'],
        [{ code_verifier: 'short' }, 400, 'invalid_grant'],
        [{ redirect_uri: 'http://127.0.0.1:33418/other' }, 400, 'invalid_grant'],
        [{ client_id: other.client_id }, 400, 'invalid_grant'],
        [{ client_id: 'oac_unknown0000000000000000' }, 401, 'invalid_client'],
        [{ code: 'fwac_nothing' }, 400, 'invalid_grant'],
        [{ code_verifier: '' }, 400, 'invalid_request'],
        [{ grant_type: 'password' }, 400, 'unsupported_grant_type'],
      ];
      for (const [overrides, status, error] of cases) {
        const response = await exchange(t, client, code, verifier, overrides);
        expect(response.status, JSON.stringify(overrides)).toBe(status);
        expect((await bodyOf(response)).error, JSON.stringify(overrides)).toBe(error);
      }
      // None of the failures used the code up.
      expect((await exchange(t, client, code, verifier)).status).toBe(200);

      const late = pkcePair();
      const lateCode = await approvedCode(t, client, user, { challenge: late.challenge });
      t.clock.advance(61_000);
      const expired = await exchange(t, client, lateCode, late.verifier);
      expect(expired.status).toBe(400);
      expect(await expired.json()).toMatchObject({ error: 'invalid_grant' });
    });

    it('a code used twice is refused and what its first use issued is revoked', async () => {
      const { verifier, challenge } = pkcePair();
      const code = await approvedCode(t, client, user, { challenge });
      const first = (await (await exchange(t, client, code, verifier)).json()) as Tokens;
      expect((await mcpStatus(first.access_token)).status).toBe(200);
      const second = await exchange(t, client, code, verifier);
      expect(second.status).toBe(400);
      expect(await second.json()).toMatchObject({ error: 'invalid_grant' });
      expect((await mcpStatus(first.access_token)).status).toBe(401);
      const refresh = await postForm(t, '/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: client.client_id,
      });
      expect(refresh.status).toBe(400);
    });

    it('rotates refresh tokens, and a retired one presented again revokes the grant', async () => {
      const first = await tokensFor();
      const refresh = (token: string) =>
        postForm(t, '/oauth/token', {
          grant_type: 'refresh_token',
          refresh_token: token,
          client_id: client.client_id,
        });
      const rotated = await refresh(first.refresh_token);
      expect(rotated.status).toBe(200);
      const second = (await rotated.json()) as Tokens;
      expect(second.refresh_token).not.toBe(first.refresh_token);
      expect(second.access_token).not.toBe(first.access_token);
      expect(second.scope).toBe(first.scope);
      expect((await mcpStatus(second.access_token)).status).toBe(200);

      // The first refresh token again: someone else holds it, so the whole grant ends.
      const reused = await refresh(first.refresh_token);
      expect(reused.status).toBe(400);
      expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
      expect((await refresh(second.refresh_token)).status).toBe(400);
      expect((await mcpStatus(second.access_token)).status).toBe(401);
      expect((await mcpStatus(first.access_token)).status).toBe(401);
    });

    it('refuses a refresh token of another client and a scope wider than the grant', async () => {
      const tokens = await tokensFor(['checks:read']);
      const other = (await (await registerClient(t)).json()) as { client_id: string };
      const cases: Array<[Record<string, string>, string]> = [
        [{ client_id: other.client_id }, 'invalid_grant'],
        [{ scope: 'checks:read monitors:write' }, 'invalid_scope'],
      ];
      for (const [overrides, error] of cases) {
        const response = await postForm(t, '/oauth/token', {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: client.client_id,
          ...overrides,
        });
        expect(response.status).toBe(400);
        expect((await bodyOf(response)).error).toBe(error);
      }
    });
  });

  it('revocation (RFC 7009) ends the grant; unknown tokens are answered 200 too', async () => {
    const tokens = await tokensFor();
    expect((await postForm(t, '/oauth/revoke', { token: 'fwat_unknown' })).status).toBe(200);
    expect((await mcpStatus(tokens.access_token)).status).toBe(200);
    const revoked = await postForm(t, '/oauth/revoke', {
      token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect(revoked.status).toBe(200);
    const after = await mcpStatus(tokens.access_token);
    expect(after.status).toBe(401);
    expect(after.challenge).toBe(
      `Bearer realm="firmwatch", error="invalid_token", scope="${ALL_SCOPES.join(' ')}", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect((await postForm(t, '/oauth/revoke', {})).status).toBe(400);
  });

  it('U+0000 in any field is refused as the RFCs refuse a bad field, before anything is stored', async () => {
    const clients = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('oauth_clients')
            .select((eb) => eb.fn.countAll<string | number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await clients();
    for (const [metadata, error] of [
      [{ client_name: 'Test\u0000agent' }, 'invalid_client_metadata'],
      [{ redirect_uris: ['http://127.0.0.1:9/cb\u0000'] }, 'invalid_redirect_uri'],
    ] as const) {
      const response = await registerClient(t, metadata);
      expect(response.status, JSON.stringify(metadata)).toBe(400);
      expect((await bodyOf(response)).error).toBe(error);
    }
    expect(await clients()).toBe(before);
    for (const [path, form] of [
      ['/oauth/token', { grant_type: 'authorization_code', client_id: 'oac_\u0000' }],
      [
        '/oauth/token',
        { grant_type: 'refresh_token', client_id: client.client_id, refresh_token: 'a\u0000' },
      ],
      ['/oauth/revoke', { token: 'fwat_\u0000' }],
    ] as const) {
      const response = await postForm(t, path, form);
      expect(response.status, JSON.stringify(form)).toBe(400);
      expect((await bodyOf(response)).error).toBe('invalid_request');
    }
    const authorize = await fetch(`${origin}/oauth/authorize?response_type=code&client_id=a%00`, {
      redirect: 'manual',
    });
    expect(authorize.status).toBe(400);
    expect(authorize.headers.get('location')).toBeNull();
  });

  describe('access tokens', () => {
    it('work on /mcp with the chosen workspace and scopes, recorded with source mcp', async () => {
      const tokens = await tokensFor(['checks:write']);
      const mcp = await connectHttp(t.baseUrl, tokens.access_token);
      try {
        const created = (await mcp.callTool({
          name: 'check_identifier',
          arguments: CHECK,
        })) as CallToolResult;
        expect(created.isError).toBeFalsy();
        const check = created.structuredContent as { id: string; source: string };
        expect(check.source).toBe('mcp');
        const stored = await t.database.db
          .selectFrom('checks')
          .select(['workspace_id', 'environment'])
          .where('id', '=', check.id)
          .executeTakeFirstOrThrow();
        expect(stored).toEqual({ workspace_id: user.workspaceId, environment: 'sandbox' });

        // checks:read was not granted: the 403 step-up challenge names it.
        await expect(
          mcp.callTool({ name: 'get_check', arguments: { check_id: check.id } }),
        ).rejects.toMatchObject({
          code: 403,
          message: expect.stringContaining('"code":"insufficient_scope"'),
        });
        const refused = await fetch(`${origin}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${tokens.access_token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'get_check', arguments: { check_id: check.id } },
          }),
        });
        expect(refused.status).toBe(403);
        expect(refused.headers.get('www-authenticate')).toBe(
          `Bearer realm="firmwatch", error="insufficient_scope", scope="checks:read", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
        );
      } finally {
        await mcp.close();
      }
      const grant = await t.database.db
        .selectFrom('oauth_grants')
        .select('last_used_at')
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(grant.last_used_at).not.toBeNull();
    });

    it('are refused by the REST API, which takes API keys', async () => {
      const tokens = await tokensFor();
      const response = await fetch(`${t.baseUrl}/checks`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect(response.status).toBe(401);
      expect((await bodyOf(response)).detail).toContain('/mcp');
    });

    it('stop working after an hour', async () => {
      const tokens = await tokensFor();
      expect((await mcpStatus(tokens.access_token)).status).toBe(200);
      t.clock.advance(60 * 60 * 1000);
      const expired = await mcpStatus(tokens.access_token);
      expect(expired.status).toBe(401);
      expect(expired.challenge).toContain('error="invalid_token"');
    });
  });
});
