import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { get, readJson } from '../helpers/http.js';

// `firmwatch check`, `search`, `monitors create|list|show|pause|resume|archive|run` and
// `events list|show` as a person or a script runs them: the CLI as its own process, a client of a
// real server on 127.0.0.1 with a sandbox key (fixtures: docs/sandbox.md). What the CLI prints is
// checked against what the API itself answers.

describe('firmwatch API client commands', { timeout: 120_000 }, () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    key = (await t.createKey()).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const env = () => ({ FIRMWATCH_API_KEY: key, FIRMWATCH_URL: t.baseUrl });
  const cli = (args: string[]) => runCli(args, env());
  const api = async (path: string) => {
    const response = await get(t.baseUrl, path, key);
    return { status: response.status, body: await readJson(response) };
  };

  it('check prints the four findings on separate lines, the company, warnings, credits and the check id', async () => {
    const result = await cli([
      'check',
      'vat_number',
      'GB999000005',
      '--country',
      'GB',
      '--company-name',
      'Someone Else Ltd',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    for (const [finding, value] of [
      ['format_status', 'valid'],
      ['registry_match_status', 'matched'],
      ['tax_authority_status', 'not_supported'],
      ['company_legal_status', 'active'],
    ])
      expect(lines.filter((line) => line.trim().startsWith(`${finding}:`))).toEqual([
        expect.stringMatching(new RegExp(`^\\s+${finding}:\\s+${value}$`)),
      ]);
    const id = result.stdout.match(/^Check (chk_\w+)/)?.[1];
    expect(id).toBeDefined();
    expect(result.stdout).toMatch(/^Company: Sandbox Active Trading Ltd \(cmp_\w+\)$/m);
    expect(result.stdout).toMatch(/^ {2}company_name_mismatch: /m);
    expect(result.stdout).toMatch(/^Credits used: 0$/m);
    // The check the CLI printed is the API's.
    const stored = await api(`/checks/${id}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ registry_match_status: 'matched', source: 'api' });
  });

  it('check --json prints the check; an invalid format is still a check (exit 0)', async () => {
    const result = await cli(['check', 'vat_number', 'GB12', '--country', 'GB', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const check = JSON.parse(result.stdout);
    expect(check).toMatchObject({
      object: 'check',
      id: expect.stringMatching(/^chk_/),
      format_status: 'invalid',
      identifier: { type: 'vat_number', country_code: 'GB' },
    });
    expect((await api(`/checks/${check.id}`)).body.format_status).toBe('invalid');
  });

  it('without a key, the command fails with missing_api_key (human and --json)', async () => {
    const json = await runCli(['check', 'vat_number', 'GB999000005', '--country', 'GB', '--json'], {
      FIRMWATCH_URL: t.baseUrl,
      FIRMWATCH_API_KEY: '',
    });
    expect(json.code).not.toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'missing_api_key', message: expect.stringContaining('--api-key') },
    });
    const human = await runCli(['monitors', 'list'], { FIRMWATCH_URL: t.baseUrl });
    expect(human.code).not.toBe(0);
    expect(human.stderr).toContain('FIRMWATCH_API_KEY');
  });

  it("a Problem is printed with its title, detail and each field error under the user's option", async () => {
    const human = await cli(['check', 'vat_number', 'GB999000005', '--country', 'GBR']);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^firmwatch: Validation failed: .*country_code/);
    expect(human.stderr).toMatch(/^ {2}--country \(\/country_code\): must be two letters/m);

    const json = await cli(['check', 'vat_number', 'GB999000005', '--country', 'GBR', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'validation_failed', message: expect.stringContaining('--country') },
    });

    // A key the API refuses is the API's problem too.
    const refused = await runCli(['monitors', 'list', '--json', '--api-key', 'svc_test_nope'], {
      FIRMWATCH_URL: t.baseUrl,
    });
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error.code).toBe('invalid_api_key');
  });

  it('a value the API enumerates is refused before anything is sent, naming the option', async () => {
    const result = await cli(['monitors', 'list', '--status', 'sleeping', '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: 'usage', message: expect.stringContaining('--status is one of active') },
    });
    const type = await cli(['check', 'vat', 'GB999000005', '--country', 'GB']);
    expect(type.code).toBe(1);
    expect(type.stderr).toContain('<identifier_type> is one of vat_number');
  });

  it('search prints the candidates (and --json the API list)', async () => {
    const human = await cli(['search', '--country', 'GB', '--name', 'Twin Trading']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^2 candidates:$/m);
    expect(human.stdout).toMatch(/^cmp_\w+ {2}Sandbox Twin Trading \(North\) Ltd {2}\(active\)$/m);
    expect(human.stdout).toContain('Sandbox Twin Trading (South) Ltd');
    expect(human.stdout).toContain('registration 99000006, VAT GB999000201');

    const json = await cli(['search', '--country', 'GB', '--name', 'Dormant', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      object: 'list',
      data: [{ object: 'company', legal_name: 'Sandbox Dormant Holdings Ltd' }],
    });

    const none = await cli(['search', '--country', 'GB', '--name', 'Nobody At All']);
    expect(none.stdout).toContain('No companies found.');
  });

  it('monitors create, list, show, pause, resume, run and archive each reflect the API', async () => {
    const reference = `cli-${Date.now()}`;
    const created = await cli([
      'monitors',
      'create',
      'vat_number',
      'GB999000341',
      '--country',
      'GB',
      '--cadence',
      'weekly',
      '--watched-fields',
      'company_legal_status,legal_name',
      '--webhook-url',
      'https://hooks.example.org/firmwatch',
      '--client-reference',
      reference,
    ]);
    expect(created.code, created.stderr).toBe(0);
    const id = created.stdout.match(/^Created monitor (mon_\w+)$/m)?.[1] as string;
    expect(id).toBeDefined();
    // The baseline's four findings, and the signing secret, shown once as the API gives it.
    expect(created.stdout).toMatch(/^ {2}registry_match_status: +matched$/m);
    // 32 random bytes in base64url, whose alphabet has `-` besides the word characters.
    expect(created.stdout).toMatch(/^ {2}svcwhsec_[A-Za-z0-9_-]{43}$/m);
    expect((await api(`/monitors/${id}`)).body).toMatchObject({
      status: 'active',
      cadence: 'weekly',
      watched_fields: ['company_legal_status', 'legal_name'],
      client_reference: reference,
    });
    // Another monitor, without a webhook: no secret to print.
    const other = await cli([
      'monitors',
      'create',
      'vat_number',
      'GB999000047',
      '--country',
      'GB',
      '--json',
    ]);
    const otherBody = JSON.parse(other.stdout);
    expect(otherBody.monitor.id).toMatch(/^mon_/);
    expect(otherBody.webhook_signing_secret).toBeUndefined();

    const listed = await cli(['monitors', 'list', '--client-reference', reference, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({
      object: 'list',
      data: [{ id }],
      has_more: false,
    });
    const limited = await cli(['monitors', 'list', '--limit', '1']);
    expect(limited.stdout).toContain('More monitors match: raise --limit (now 1).');
    expect(limited.stdout.match(/^mon_/gm)).toHaveLength(1);

    const shown = await cli(['monitors', 'show', id]);
    expect(shown.stdout).toMatch(new RegExp(`^${id} {2}active, healthy {2}vat_number GB999000341`));

    const paused = await cli(['monitors', 'pause', id, '--json']);
    expect(JSON.parse(paused.stdout).monitor.status).toBe('paused');
    expect((await api(`/monitors/${id}`)).body.status).toBe('paused');
    const pausedOnly = await cli(['monitors', 'list', '--status', 'paused', '--json']);
    expect(JSON.parse(pausedOnly.stdout).data.map((m: { id: string }) => m.id)).toEqual([id]);

    const resumed = await cli(['monitors', 'resume', id]);
    expect(resumed.stdout).toContain(`${id}  active`);
    expect((await api(`/monitors/${id}`)).body.status).toBe('active');

    // The timeline's next step: the company goes into liquidation.
    const ran = await cli(['monitors', 'run', id]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^ {2}company_legal_status: +liquidation$/m);
    expect(ran.stdout).toMatch(/^ {2}company_legal_status: active -> liquidation$/m);
    const eventId = ran.stdout.match(/^Event: (evt_\w+)$/m)?.[1] as string;
    expect(eventId).toBeDefined();
    expect((await api(`/monitors/${id}`)).body.latest_snapshot.company_legal_status).toBe(
      'liquidation',
    );

    const events = await cli(['events', 'list', '--monitor', id, '--json']);
    const types = JSON.parse(events.stdout).data.map((event: { type: string }) => event.type);
    expect(types).toEqual([
      'vat.monitor.change_detected',
      'vat.monitor.resumed',
      'vat.monitor.paused',
    ]);
    const changesOnly = await cli([
      'events',
      'list',
      '--monitor',
      id,
      '--type',
      'vat.monitor.change_detected',
    ]);
    expect(changesOnly.stdout).toMatch(new RegExp(`^${eventId} .* vat.monitor.change_detected`));
    expect(changesOnly.stdout).not.toContain('vat.monitor.paused');
    const event = await cli(['events', 'show', eventId]);
    expect(event.code, event.stderr).toBe(0);
    expect(event.stdout).toContain('company_legal_status: active -> liquidation');
    expect(JSON.parse((await cli(['events', 'show', eventId, '--json'])).stdout)).toEqual(
      (await api(`/monitoring-events/${eventId}`)).body,
    );

    const archived = await cli(['monitors', 'archive', id, '--json']);
    expect(JSON.parse(archived.stdout)).toEqual({ monitor_id: id, archived: true });
    expect((await api(`/monitors/${id}`)).status).toBe(404);
    const gone = await cli(['monitors', 'show', id, '--json']);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stdout).error.code).toBe('not_found');
  });

  it('events list of a monitor without events is empty; events show of an unknown id is the 404 Problem', async () => {
    const created = JSON.parse(
      (await cli(['monitors', 'create', 'vat_number', 'DE999000009', '--country', 'DE', '--json']))
        .stdout,
    );
    const empty = await cli(['events', 'list', '--monitor', created.monitor.id]);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toBe('No events.\n');

    const human = await cli(['events', 'show', 'evt_00000000000000000000000000']);
    expect(human.code).toBe(1);
    expect(human.stderr).toMatch(/^firmwatch: Not found: .*evt_00000000000000000000000000/);
    const json = await cli(['events', 'show', 'evt_00000000000000000000000000', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'not_found', message: expect.stringContaining('Not found') },
    });

    const badTime = await cli(['events', 'list', '--created-after', 'yesterday']);
    expect(badTime.code).toBe(1);
    expect(badTime.stderr).toMatch(/^ {2}--created-after \(\/created_after\): /m);
  });
});
