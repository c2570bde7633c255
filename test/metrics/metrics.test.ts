import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { systemClock, toTimestamp } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { grantCredits, setWorkspacePaidAccess } from '../../src/modules/usage/usage.service.js';
import { sendTestEvent } from '../../src/modules/webhooks/test-events.service.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { type RunningWorker, startWorker } from '../../src/worker.js';
import {
  startWebhookReceiver,
  testNetwork,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';
import { type FakeRegister, fixture, json, startFakeRegister } from '../sources/fake-register.js';

// METRICS_PORT on `serve` and on `firmwatch worker`, read as Prometheus reads it: the numbers move
// as checks are committed, registers are called, idempotent requests are replayed, monitors fall
// due and webhooks are delivered. The register is a fake Brønnøysund on 127.0.0.1 answering
// `GET /enheter/{orgnr}` with the documented Enhet (test/fixtures/sources/brreg), the customer's
// receiver a real HTTPS server.

const ORGNR = '995525828';
const UNKNOWN_ORGNR = '974760673';

/** One sample of the Prometheus text format: `name{labels} value`, or undefined when absent. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value))
      return Number(match[3]);
  }
  return undefined;
}

async function scrape(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Prometheus metrics (METRICS_PORT)', () => {
  let dir: string;
  let brreg: FakeRegister;
  let receiver: WebhookReceiver;
  let server: RunningServer;
  let worker: RunningWorker | undefined;
  let key: string;
  let env: Record<string, string>;
  const network = testNetwork();
  /** What the register says of ORGNR (the tests change it). */
  const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'firmwatch-metrics-'));
    brreg = await startFakeRegister();
    brreg.respond((request, response) => {
      const orgnr = /\/enheter\/(\d{9})$/.exec(request.url ?? '')?.[1];
      // The register's 404 for a number it does not hold (docs/sources/brreg.md).
      if (orgnr !== ORGNR) return json(404, { status: 404, error: 'Not Found' })(request, response);
      json(200, fixture('brreg', 'enhet.json'))(request, response);
    });
    receiver = await startWebhookReceiver();
    env = {
      DATABASE_URL: `sqlite:${join(dir, 'metrics.db')}`,
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS_PORT: '0',
      LOG_LEVEL: 'silent',
      LIVE_SOURCES: 'brreg',
      BRREG_BASE_URL: brreg.base,
      // The worker below delivers and rechecks; serve does neither, so its backlog stays put.
      WORKER_IN_SERVE: 'false',
    };
    server = await startServer(loadConfig(env), { webhookNetwork: network });
    const workspace = await createWorkspace(server.database.db, deps, { name: 'metrics' });
    await setWorkspacePaidAccess(server.database.db, deps, workspace.id, true);
    await grantCredits(server.database.db, deps, workspace.id, 100, 'test');
    ({ key } = await createApiKey(server.database.db, deps, {
      workspaceId: workspace.id,
      environment: 'live',
    }));
  });
  afterAll(async () => {
    await worker?.close();
    await server?.close();
    await receiver?.close();
    await brreg?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const post = (path: string, body: unknown, idempotencyKey: string) =>
    fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify(body),
    });
  const apiMetrics = () => scrape(server.metricsPort as number);

  it('answers only GET /metrics, on a listener apart from the API', async () => {
    expect(server.metricsPort).toBeGreaterThan(0);
    expect(server.metricsPort).not.toBe(Number(new URL(server.listeningOn).port));
    expect((await fetch(`http://127.0.0.1:${server.metricsPort}/v1/checks`)).status).toBe(404);
    expect((await fetch(`${server.listeningOn}/metrics`)).status).toBe(404);
    const text = await apiMetrics();
    // Node's process and event-loop metrics come with it.
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('counts checks by each finding, register calls by outcome, credits, requests and replays', async () => {
    const before = await apiMetrics();
    expect(sample(before, 'firmwatch_checks_total', { environment: 'live' })).toBeUndefined();

    const body = { identifier_type: 'registration_number', identifier: ORGNR, country_code: 'NO' };
    const first = await post('/checks', body, 'metrics-check-1');
    expect(first.status).toBe(201);
    const check = (await first.json()) as Record<string, string>;
    const again = await post('/checks', body, 'metrics-check-1');
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    const unknown = await post(
      '/checks',
      { ...body, identifier: UNKNOWN_ORGNR },
      'metrics-check-2',
    );
    expect(unknown.status).toBe(201);
    const missing = (await unknown.json()) as Record<string, string>;

    const text = await apiMetrics();
    // Two checks committed; the replay made none.
    expect(sample(text, 'firmwatch_checks_total', { environment: 'live' })).toBe(2);
    for (const finding of [
      'format_status',
      'registry_match_status',
      'tax_authority_status',
      'company_legal_status',
    ]) {
      const value = check[finding] as string;
      const other = missing[finding] as string;
      const expected = value === other ? 2 : 1;
      expect(
        sample(text, 'firmwatch_check_findings_total', { environment: 'live', finding, value }),
        `${finding}=${value}`,
      ).toBe(expected);
    }
    // Each path the register was asked is one call: its own record answered, the unknown number
    // not found as a unit nor as a sub-unit.
    const asked = brreg.requests;
    const answered = asked.filter((path) => path.endsWith(`/${ORGNR}`)).length;
    expect(answered).toBe(1);
    expect(
      sample(text, 'firmwatch_registry_calls_total', { source: 'brreg', outcome: 'answered' }),
    ).toBe(answered);
    expect(
      sample(text, 'firmwatch_registry_calls_total', { source: 'brreg', outcome: 'not_found' }),
    ).toBe(asked.length - answered);
    expect(
      sample(text, 'firmwatch_registry_call_duration_seconds_count', { source: 'brreg' }),
    ).toBe(asked.length);
    const credits = Number(check.credits_used) + Number(missing.credits_used);
    expect(sample(text, 'firmwatch_credits_debited_total')).toBe(credits);
    expect(sample(text, 'firmwatch_idempotency_replays_total')).toBe(1);
    expect(
      sample(text, 'firmwatch_http_requests_total', { operation: 'createCheck', status: '201' }),
    ).toBe(3);
    expect(
      sample(text, 'firmwatch_http_request_duration_seconds_count', { operation: 'createCheck' }),
    ).toBe(3);
    // The register's health as this process sees it.
    expect(
      sample(text, 'firmwatch_registry_breaker_state', { source: 'brreg', state: 'closed' }),
    ).toBe(1);
    expect(
      sample(text, 'firmwatch_registry_breaker_state', { source: 'brreg', state: 'open' }),
    ).toBe(0);
    expect(sample(text, 'firmwatch_registry_budget_tokens', { source: 'brreg' })).toBeGreaterThan(
      0,
    );
    // No label carries a key, an identifier, a workspace or a URL.
    expect(text).not.toContain(key);
    expect(text).not.toContain(ORGNR);
    expect(text).not.toContain(UNKNOWN_ORGNR);
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toMatch(/svc_(live|test)_|wsp_|chk_/);
  });

  it('shows the backlog of due monitors and pending deliveries, and the worker working it off', async () => {
    const created = await post(
      '/monitors',
      {
        identifier_type: 'registration_number',
        identifier: ORGNR,
        country_code: 'NO',
        webhook_url: receiver.url(),
      },
      'metrics-monitor-1',
    );
    expect(created.status).toBe(201);
    const monitorId = ((await created.json()) as { monitor: { id: string } }).monitor.id;
    // An event for the monitor, delivered through the real path (the outbox, then a worker).
    await sendTestEvent(server.database.db, deps, { monitorId });
    // And it fell due an hour ago (as if no worker had run since).
    await server.database.db
      .updateTable('monitors')
      .set({ next_check_at: toTimestamp(new Date(Date.now() - 3_600_000)) })
      .where('id', '=', monitorId)
      .execute();

    const backlog = await apiMetrics();
    expect(sample(backlog, 'firmwatch_checks_total', { environment: 'live' })).toBe(3);
    expect(sample(backlog, 'firmwatch_monitors_due')).toBe(1);
    expect(sample(backlog, 'firmwatch_monitors_oldest_due_age_seconds')).toBeGreaterThanOrEqual(
      3599,
    );
    expect(sample(backlog, 'firmwatch_webhook_deliveries_pending')).toBe(1);
    expect(
      sample(backlog, 'firmwatch_webhook_oldest_pending_delivery_age_seconds'),
    ).toBeGreaterThanOrEqual(0);

    worker = await startWorker(loadConfig(env), { webhookNetwork: network });
    expect(worker.metricsPort).toBeGreaterThan(0);
    const worked = await until(
      () => scrape(worker?.metricsPort as number),
      (text) =>
        sample(text, 'firmwatch_webhook_attempts_total', { outcome: 'delivered' }) === 1 &&
        sample(text, 'firmwatch_monitor_rechecks_total', { outcome: 'rechecked' }) === 1,
    );
    expect(receiver.received).toHaveLength(1);
    expect(sample(worked, 'firmwatch_webhook_attempts_total', { outcome: 'delivered' })).toBe(1);
    expect(sample(worked, 'firmwatch_webhook_attempt_duration_seconds_count')).toBe(1);
    expect(sample(worked, 'firmwatch_monitor_rechecks_total', { outcome: 'rechecked' })).toBe(1);
    // The recheck's check is counted where it was committed: in the worker.
    expect(sample(worked, 'firmwatch_checks_total', { environment: 'live' })).toBe(1);

    const after = await apiMetrics();
    expect(sample(after, 'firmwatch_monitors_due')).toBe(0);
    expect(sample(after, 'firmwatch_monitors_oldest_due_age_seconds')).toBe(0);
    expect(sample(after, 'firmwatch_webhook_deliveries_pending')).toBe(0);
    expect(worked).not.toContain(receiver.url());
    expect(worked).not.toContain('hooks.example.com');
  });
});
