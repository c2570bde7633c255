import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { verifyWebhook } from '../../src/kit/webhooks.js';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { grantCredits, setWorkspacePaidAccess } from '../../src/modules/usage/usage.service.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import {
  type FakeCompaniesHouseStream,
  startFakeCompaniesHouseStream,
} from '../sources/fake-companies-house-stream.js';
import { type FakeRegister, fixture, json, startFakeRegister } from '../sources/fake-register.js';

// A change Companies House publishes on its stream to a monitored company reaches the customer as
// the monitor's `vat.monitor.change_detected` event, delivered signed, through `firmwatch worker`
// (test/fixtures/feed-worker.ts: the real worker, FEEDS=companies_house) in a process of its own.
// The worker is killed with SIGKILL half-way through the changes; the next one resumes from the
// committed position, and every change reaches its monitor exactly once as an event (the stream
// may resend what the dead worker had read: duplicates make no second event).

const PROFILE = fixture('companies-house', 'company-profile.json') as Record<string, unknown>;
const MONITORED = Array.from({ length: 10 }, (_, i) => `0999${String(i).padStart(4, '0')}`);
const ROOT = new URL('../../', import.meta.url).pathname;

describe('register change feeds end to end (FEEDS=companies_house, a worker process)', () => {
  let dir: string;
  let rest: FakeRegister;
  let stream: FakeCompaniesHouseStream;
  let receiver: WebhookReceiver;
  let server: RunningServer;
  let env: Record<string, string>;
  const secrets = new Map<string, string>();
  const monitorOf = new Map<string, string>();
  const statuses = new Map<string, string>();
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'firmwatch-feeds-'));
    rest = await startFakeRegister();
    rest.respond((request, response) => {
      const number = /\/company\/([A-Z0-9]{8})$/.exec(request.url ?? '')?.[1] ?? '';
      json(200, {
        ...PROFILE,
        company_number: number,
        company_status: statuses.get(number) ?? 'active',
      })(request, response);
    });
    stream = await startFakeCompaniesHouseStream();
    receiver = await startWebhookReceiver();
    env = {
      DATABASE_URL: `sqlite:${join(dir, 'feeds.db')}`,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      LIVE_SOURCES: 'companies_house',
      COMPANIES_HOUSE_API_KEY: 'rest-key-0000',
      COMPANIES_HOUSE_BASE_URL: rest.base,
      FEEDS: 'companies_house',
      COMPANIES_HOUSE_STREAM_KEY: stream.streamKey,
      COMPANIES_HOUSE_STREAM_BASE_URL: stream.base,
      // A killed worker's claims (its monitors, the feed) are taken over within seconds.
      MONITOR_LEASE_MS: '2000',
      WORKER_IN_SERVE: 'false',
    };
    server = await startServer(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };
    const workspace = await createWorkspace(server.database.db, deps, { name: 'feeds' });
    await setWorkspacePaidAccess(server.database.db, deps, workspace.id, true);
    await grantCredits(server.database.db, deps, workspace.id, 1000, 'test');
    const { key } = await createApiKey(server.database.db, deps, {
      workspaceId: workspace.id,
      environment: 'live',
    });
    for (const number of MONITORED) {
      const response = await fetch(`${server.baseUrl}/monitors`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': `feeds-${number}`,
        },
        body: JSON.stringify({
          identifier_type: 'registration_number',
          identifier: number,
          country_code: 'GB',
          webhook_url: receiver.url(),
        }),
      });
      expect(response.status).toBe(201);
      const body = (await response.json()) as {
        monitor: { id: string };
        webhook_signing_secret: string;
      };
      secrets.set(body.monitor.id, body.webhook_signing_secret);
      monitorOf.set(number, body.monitor.id);
    }
  });
  afterAll(async () => {
    for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
    await server?.close();
    await receiver?.close();
    await stream?.close();
    await rest?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function startFeedWorker(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/feed-worker.ts'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    workers.push(child);
    child.stderr?.resume();
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    for await (const line of lines) if (line.includes('"working"')) break;
    return child;
  }

  /** The change_detected deliveries received, verified with their monitor's secret. */
  const changeEvents = () =>
    receiver.received.flatMap((delivery) => {
      const monitorId = (
        JSON.parse(delivery.rawBody.toString()) as { data: { monitor_id: string } }
      ).data.monitor_id;
      const verified = verifyWebhook({
        secret: secrets.get(monitorId) ?? '',
        headers: delivery.headers as Record<string, string>,
        rawBody: delivery.rawBody,
      });
      return verified.payload.type === 'vat.monitor.change_detected' ? [verified] : [];
    });

  it('delivers each change as one signed change_detected event, across a SIGKILL of the worker', async () => {
    const first = await startFeedWorker();
    await until(() => stream.connections() === 1, 'the stream connection', { timeoutMs: 20_000 });

    const publish = (number: string) => {
      statuses.set(number, 'liquidation');
      stream.publish({ ...PROFILE, company_number: number, company_status: 'liquidation' });
      // A company nobody watches, between each: read, and nothing else.
      stream.publish({
        ...PROFILE,
        company_number: `0888${number.slice(4)}`,
        company_status: 'dissolved',
      });
    };
    for (const number of MONITORED.slice(0, 5)) publish(number);
    // Once those are delivered (a delivery the worker had claimed when it died would wait out its
    // lease, minutes, before another worker sends it), the worker dies in the middle of reading a
    // burst of changes to companies nobody watches.
    await until(() => changeEvents().length >= 5, 'the first events', { timeoutMs: 20_000 });
    for (let i = 0; i < 50; i++)
      stream.publish({ ...PROFILE, company_number: `0777${String(i).padStart(4, '0')}` });
    const sentToFirst = stream.published.length;
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    // Published while no worker reads the stream.
    for (const number of MONITORED.slice(5)) publish(number);

    await startFeedWorker();
    await until(() => changeEvents().length >= MONITORED.length, 'every change delivered', {
      timeoutMs: 40_000,
    });
    // Give a duplicate the time to show up, were one made.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const events = changeEvents();
    const byMonitor = new Map<string, number>();
    for (const event of events)
      byMonitor.set(
        event.payload.data.monitor_id,
        (byMonitor.get(event.payload.data.monitor_id) ?? 0) + 1,
      );
    expect([...byMonitor.keys()].sort()).toEqual([...monitorOf.values()].sort());
    expect([...byMonitor.values()].every((count) => count === 1)).toBe(true);
    for (const event of events) {
      const change = event.payload.data.changes.find((c) => c.field === 'company_legal_status');
      expect(change, JSON.stringify(event.payload.data.changes)).toMatchObject({
        previous: 'active',
        current: 'liquidation',
      });
    }
    // The second worker resumed from a committed position, not from the present: the stream
    // resent what the first had read from that timepoint on (at least that event itself).
    const resumed = stream.requests.filter((request) => request.status === 200).at(-1);
    expect(resumed?.timepoint).not.toBeNull();
    const resent = stream.published
      .slice(0, sentToFirst)
      .filter((event) => event.timepoint >= Number(resumed?.timepoint)).length;
    expect(resent).toBeGreaterThanOrEqual(1);
    if (process.env.FEEDS_TEST_REPORT) console.log(JSON.stringify({ sentToFirst, resent }));
  }, 90_000);
});
