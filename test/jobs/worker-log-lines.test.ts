import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainDeps } from '../../src/domain.js';
import { createMonitorScheduler } from '../../src/jobs/monitor-scheduler.js';
import { createWebhookDeliverer } from '../../src/jobs/webhook-deliverer.js';
import { createLogger } from '../../src/lib/logger.js';
import { createWebhookSender } from '../../src/modules/webhooks/sender.js';
import { sandboxSource } from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { post, readJson } from '../helpers/http.js';
import {
  startWebhookReceiver,
  testNetwork,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

// The worker's log (issue 31): a line per scheduled recheck and per delivery attempt, at info,
// with what an operator needs (ids, outcome, status, duration) and no secret.

// docs/sandbox.md: an active company that goes into liquidation at its next recheck.
const TIMELINE = { identifier_type: 'vat_number', identifier: 'GB999000341', country_code: 'GB' };
const DAY = 24 * 3600_000;

describe('worker log lines', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let sender: ReturnType<typeof createWebhookSender>;
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger('info', {
    write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
  }) as unknown as FastifyBaseLogger;

  beforeAll(async () => {
    const sandbox = sandboxSource();
    t = await startTestApp({ sources: { sandbox, live: sandbox } });
    receiver = await startWebhookReceiver();
    sender = createWebhookSender({ network: testNetwork() });
  });
  afterAll(async () => {
    await sender?.close();
    await receiver?.close();
    await t?.close();
  });

  it('one line per recheck and per attempt, at info, with ids, outcome and duration, and no secret', async () => {
    const { key } = await t.createKey();
    const created = await readJson(
      await post(t.baseUrl, '/monitors', { ...TIMELINE, webhook_url: receiver.url() }, key),
    );
    const monitorId: string = created.monitor.id;
    const secret: string = created.webhook_signing_secret;
    expect(secret).toMatch(/^svcwhsec_/);

    t.clock.advance(DAY + 3600_000);
    const sandbox = sandboxSource();
    const deps = domainDeps({
      clock: t.clock,
      newId: t.newId,
      sources: { sandbox, live: sandbox },
    });
    const scheduler = createMonitorScheduler(t.database, deps, { owner: 'worker-a', log });
    expect(await scheduler.tick()).toMatchObject({ rechecked: 1 });
    const deliverer = createWebhookDeliverer(t.database, deps, { owner: 'worker-a', sender, log });
    expect((await deliverer.tick()).delivered).toBeGreaterThanOrEqual(1);

    const recheck = lines.find((line) => line.msg === 'monitor recheck');
    expect(recheck).toMatchObject({
      level: 30,
      monitor_id: monitorId,
      outcome: 'rechecked',
      changes: expect.any(Number),
      duration_ms: expect.any(Number),
    });
    expect(recheck?.check_id).toMatch(/^chk_/);
    expect(recheck?.event_id).toMatch(/^evt_/);
    const attempts = lines.filter((line) => line.msg === 'webhook attempt');
    expect(attempts.map((line) => line.event_id)).toContain(recheck?.event_id);
    expect(attempts.find((line) => line.event_id === recheck?.event_id)).toMatchObject({
      level: 30,
      outcome: 'delivered',
      http_status: 200,
      error_code: null,
      duration_ms: expect.any(Number),
    });
    // Neither the signing secret nor the API key is in any line.
    const all = JSON.stringify(lines);
    expect(all).not.toContain(secret);
    expect(all).not.toContain(key);
  });
});
