import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { addDashboardUser } from '../helpers/dashboard-users.js';
import { DIALECTS } from '../helpers/databases.js';
import { post, readJson } from '../helpers/http.js';

const CHECK = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
/** The header `firmwatch checks export` writes: the dashboard's must be the same line. */
const CLI_HEADER =
  'check_id,created_at,identifier_type,identifier,country_code,format_status,registry_match_status,tax_authority_status,company_legal_status,company_id,company_name,client_reference,credits_used,warnings';

type Row = Record<string, string>;
const rowsOf = (csv: string) => parse(csv, { columns: true }) as Row[];

describe.each(DIALECTS)('the dashboard CSV downloads [%s]', (dialect) => {
  let t: TestApp;
  let origin: string;
  let workspaceId: string;
  let apiKey: string;
  let cookie: string;
  let secret: string;

  /** A dashboard GET as the signed-in person (or without a session), never following redirects. */
  const open = (path: string, query: Record<string, string> = {}, session = true) =>
    fetch(
      `${origin}/dashboard/${path}?${new URLSearchParams({ workspace: workspaceId, environment: 'sandbox', ...query })}`,
      { redirect: 'manual', headers: session ? { cookie } : {} },
    );

  async function createCheck(clientReference: string) {
    const response = await post(
      t.baseUrl,
      '/checks',
      { ...CHECK, client_reference: clientReference },
      apiKey,
    );
    expect(response.status).toBe(201);
  }

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    origin = new URL(t.baseUrl).origin;
    const deps = { clock: t.clock, newId: t.newId };
    workspaceId = (await createWorkspace(t.database.db, deps, { name: 'Acme' })).id;
    const user = await addDashboardUser(t.database.db, deps, {
      email: 'ada@example.com',
      workspaceId,
    });
    apiKey = (await t.createKey({ workspaceId })).key;

    // Signed in through the sign-in form, as a browser is.
    const form = await fetch(`${origin}/dashboard/sign-in`);
    const csrfCookie = (form.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
    const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] as string;
    const signedIn = await fetch(`${origin}/dashboard/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
      body: new URLSearchParams({
        _csrf: token,
        email: 'ada@example.com',
        password: user.password as string,
      }).toString(),
    });
    expect(signedIn.status).toBe(303);
    const session = signedIn.headers.getSetCookie().find((c) => c.startsWith('fw_session='));
    cookie = `${csrfCookie}; ${(session ?? '').split(';')[0]}`;

    // 120 checks under two references (105 is more than one page of the API, 100), and one whose
    // reference a spreadsheet would run as a formula.
    const references = [
      ...Array.from({ length: 105 }, () => 'batch-a'),
      ...Array.from({ length: 15 }, () => 'batch-b'),
      '=1+2',
    ];
    for (let i = 0; i < references.length; i += 10) {
      await Promise.all(references.slice(i, i + 10).map(createCheck));
    }

    for (const [identifier, reference] of [
      ['GB999000005', 'mon-a'],
      ['GB999000047', 'mon-a'],
      ['GB999000060', 'mon-b'],
    ] as const) {
      const created = await post(
        t.baseUrl,
        '/monitors',
        {
          ...CHECK,
          identifier,
          client_reference: reference,
          webhook_url: 'https://hooks.example.com/firmwatch',
        },
        apiKey,
      );
      expect(created.status).toBe(201);
      secret = (await readJson(created)).webhook_signing_secret;
    }
  }, 120_000);
  afterAll(() => t?.close());

  it('downloads every check the filter selects, across pages, as the CLI export writes them', async () => {
    const response = await open('checks.csv', { client_reference: 'batch-a' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="firmwatch-checks-${workspaceId}-sandbox.csv"`,
    );
    const csv = await response.text();
    expect(csv.split('\n')[0]).toBe(CLI_HEADER);
    const rows = rowsOf(csv);
    expect(rows).toHaveLength(105);
    expect(new Set(rows.map((row) => row.check_id)).size).toBe(105);
    expect(rows.every((row) => row.client_reference === 'batch-a')).toBe(true);
    expect(rows[0]).toMatchObject({ identifier: 'GB999000005', country_code: 'GB' });

    // Byte for byte what `firmwatch checks export` writes with the same filter.
    const cli = await runCli(['checks', 'export', '--client-reference', 'batch-a'], {
      FIRMWATCH_API_KEY: apiKey,
      FIRMWATCH_URL: t.baseUrl,
    });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toBe(csv);

    const other = rowsOf(await (await open('checks.csv', { client_reference: 'batch-b' })).text());
    expect(other).toHaveLength(15);
    // No filter: all of them, and the three monitors' baseline checks.
    expect(rowsOf(await (await open('checks.csv')).text())).toHaveLength(121 + 3);
  }, 60_000);

  it('writes a text a spreadsheet would run as a formula with a leading quote', async () => {
    const csv = await (await open('checks.csv', { client_reference: '=1+2' })).text();
    const rows = rowsOf(csv);
    expect(rows.map((row) => row.client_reference)).toEqual(["'=1+2"]);
  });

  it('refuses a download without a session as every dashboard page does', async () => {
    const page = await open('checks/history', {}, false);
    const download = await open('checks.csv', { client_reference: 'batch-a' }, false);
    for (const response of [page, download, await open('monitors.csv', {}, false)]) {
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/dashboard/sign-in');
      expect(response.headers.get('content-disposition')).toBeNull();
    }
  });

  it('answers a refused filter as the page does: its Problem naming the field, no file', async () => {
    const page = await open('checks/history', { created_after: 'yesterday' });
    const download = await open('checks.csv', { created_after: 'yesterday' });
    expect(download.status).toBe(page.status);
    expect(download.status).toBe(422);
    expect(download.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(download.headers.get('content-disposition')).toBeNull();
    const body = await download.text();
    expect(body).toContain('<code>/created_after</code>');
    // The filter comes back in its field, to be corrected.
    expect(body).toContain('value="yesterday"');

    const monitorsPage = await open('monitors', { status: 'sleeping' });
    const monitorsDownload = await open('monitors.csv', { status: 'sleeping' });
    expect(monitorsDownload.status).toBe(monitorsPage.status);
    expect(monitorsDownload.status).toBe(422);
    expect(monitorsDownload.headers.get('content-disposition')).toBeNull();
    expect(await monitorsDownload.text()).toContain('<code>/status');
  });

  it('links the download from the page with its filters, and keeps them on the next page', async () => {
    const page = await (await open('checks/history', { client_reference: 'batch-a' })).text();
    const link = /<a id="download-csv" href="([^"]+)"/.exec(page)?.[1]?.replaceAll('&amp;', '&');
    expect(link).toBe(
      `/dashboard/checks.csv?workspace=${workspaceId}&environment=sandbox&client_reference=batch-a`,
    );
    const older = /<a rel="next" href="([^"]+)"/.exec(page)?.[1]?.replaceAll('&amp;', '&') ?? '';
    expect(new URL(older, origin).searchParams.get('client_reference')).toBe('batch-a');
    // The page shows 20; the link downloads all 105.
    expect(
      rowsOf(await (await fetch(`${origin}${link}`, { headers: { cookie } })).text()),
    ).toHaveLength(105);

    const monitors = await (await open('monitors', { status: 'active', health: 'healthy' })).text();
    const monitorsLink = /<a id="download-csv" href="([^"]+)"/.exec(monitors)?.[1];
    expect(monitorsLink?.replaceAll('&amp;', '&')).toBe(
      `/dashboard/monitors.csv?workspace=${workspaceId}&environment=sandbox&status=active&health=healthy`,
    );
  });

  it('downloads the monitors the filters select, never a signing secret', async () => {
    const response = await open('monitors.csv', { client_reference: 'mon-a' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="firmwatch-monitors-${workspaceId}-sandbox.csv"`,
    );
    const csv = await response.text();
    expect(csv).not.toContain(secret);
    expect(csv.split('\n')[0]).not.toMatch(/secret/);
    const rows = rowsOf(csv);
    expect(rows.map((row) => row.identifier).sort()).toEqual(['GB999000005', 'GB999000047']);
    expect(rows[0]).toMatchObject({
      status: 'active',
      client_reference: 'mon-a',
      webhook_url: 'https://hooks.example.com/firmwatch',
      cadence: 'daily',
    });
    expect(rows[0]?.latest_check_id).toMatch(/^chk_/);
    expect(rows[0]?.monitor_id).toMatch(/^mon_/);

    // A filter that selects nothing: the header alone.
    const none = await (await open('monitors.csv', { status: 'paused' })).text();
    expect(rowsOf(none)).toEqual([]);
    expect(none.split('\n')[0]).toMatch(/^monitor_id,status,health,/);
  });
});
