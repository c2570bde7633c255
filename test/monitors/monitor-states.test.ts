import { describe, expect, it } from 'vitest';
import type { MonitorRow } from '../../src/db/schema.js';
import {
  afterRecheck,
  afterWebhookFailure,
  afterWebhookRecovered,
  CREDITS_RETRY_MS,
  nextRegularCheck,
  retryDelayMs,
  spreadMs,
  statusWhenResumed,
} from '../../src/modules/monitors/monitor-states.js';

// Every row of the state table in docs/monitoring.md, on the pure transition function.
const NOW = new Date('2026-11-21T12:00:00.000Z');
type State = Pick<MonitorRow, 'id' | 'status' | 'health' | 'failure_count' | 'cadence'>;
const monitor = (state: Partial<State>): State => ({
  id: 'mon_00000000000000000000000000',
  status: 'active',
  health: 'healthy',
  failure_count: 0,
  cadence: 'daily',
  ...state,
});
const minutesAfterNow = (date: Date) => (date.getTime() - NOW.getTime()) / 60_000;

describe('monitor state machine', () => {
  it.each([
    ['active', 'healthy', 0, 'active', []],
    ['active', 'source_degraded', 2, 'active', ['vat.monitor.source_restored']],
    ['attention', 'source_degraded', 5, 'active', ['vat.monitor.source_restored']],
    ['attention', 'needs_credits', 1, 'active', []],
    ['paused', 'source_degraded', 4, 'paused', ['vat.monitor.source_restored']],
  ] as const)(
    'an answered recheck of a %s/%s monitor (%d failures): %s, healthy, %j',
    (status, health, failures, nextStatus, events) => {
      const next = afterRecheck(
        monitor({ status, health, failure_count: failures }),
        { kind: 'observed' },
        NOW,
      );
      expect(next).toMatchObject({
        status: nextStatus,
        health: 'healthy',
        failure_count: 0,
        last_error_code: null,
      });
      expect(next.events.map((e) => e.type)).toEqual(events);
      expect(next.next_check_at).toEqual(nextRegularCheck(monitor({}).id, 'daily', NOW));
    },
  );

  it.each([
    ['active', 'healthy', 0, 'active', 1, ['vat.monitor.source_degraded'], 5],
    ['active', 'source_degraded', 1, 'active', 2, [], 10],
    ['active', 'source_degraded', 2, 'attention', 3, [], 20],
    ['attention', 'source_degraded', 3, 'attention', 4, [], 40],
    ['paused', 'healthy', 0, 'paused', 1, ['vat.monitor.source_degraded'], 5],
    ['attention', 'needs_credits', 0, 'active', 1, ['vat.monitor.source_degraded'], 5],
  ] as const)(
    'an outage on a %s/%s monitor (%d failures): %s, degraded, %d failures, %j, retried after %d min',
    (status, health, failures, nextStatus, nextFailures, events, retryMinutes) => {
      const next = afterRecheck(
        monitor({ status, health, failure_count: failures }),
        { kind: 'source_unavailable' },
        NOW,
      );
      expect(next).toMatchObject({
        status: nextStatus,
        health: 'source_degraded',
        failure_count: nextFailures,
        last_error_code: 'registry_unavailable',
      });
      expect(next.events.map((e) => [e.type, e.severity])).toEqual(
        events.map((e) => [e, 'warning']),
      );
      expect(minutesAfterNow(next.next_check_at)).toBe(retryMinutes);
    },
  );

  it('backs off up to 6 hours, never past the cadence', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 30].map((f) => retryDelayMs(f, 'daily') / 60_000)).toEqual([
      5, 10, 20, 40, 80, 160, 320, 360, 360,
    ]);
  });

  it.each([
    ['active', 'healthy', 'attention', ['vat.monitor.needs_credits']],
    ['attention', 'needs_credits', 'attention', []],
    ['paused', 'healthy', 'paused', ['vat.monitor.needs_credits']],
  ] as const)(
    'an unpaid recheck of a %s/%s monitor: %s, needs_credits, %j',
    (status, health, nextStatus, events) => {
      const next = afterRecheck(
        monitor({ status, health }),
        { kind: 'unpaid', code: 'insufficient_credits' },
        NOW,
      );
      expect(next).toMatchObject({
        status: nextStatus,
        health: 'needs_credits',
        last_error_code: 'insufficient_credits',
      });
      expect(next.events.map((e) => e.type)).toEqual(events);
      expect(next.next_check_at.getTime() - NOW.getTime()).toBe(CREDITS_RETRY_MS);
    },
  );

  it.each([
    ['healthy', 0, 'active'],
    ['source_degraded', 2, 'active'],
    ['source_degraded', 3, 'attention'],
    ['needs_credits', 1, 'attention'],
  ] as const)(
    'resuming a paused %s monitor (%d failures) makes it %s',
    (health, failures, status) => {
      expect(statusWhenResumed({ health, failure_count: failures })).toBe(status);
    },
  );

  it('spreads due times by monitor, by up to an hour, the same way every time', () => {
    const spreads = Array.from({ length: 200 }, (_, i) =>
      spreadMs(`mon_${String(i).padStart(26, '0')}`, 86_400_000),
    );
    expect(new Set(spreads).size).toBeGreaterThan(150);
    expect(Math.max(...spreads)).toBeLessThan(3_600_000);
    expect(spreadMs('mon_x', 86_400_000)).toBe(spreadMs('mon_x', 86_400_000));
  });
});

describe('monitor state machine: a failing webhook', () => {
  const failing = { ...monitor({}), webhook_error_code: 'webhook_failed' };

  it('puts a monitor in attention when a delivery fails for good; a paused one stays paused', () => {
    expect(
      afterWebhookFailure({ status: 'active', last_error_code: null }, 'webhook_gone'),
    ).toEqual({
      status: 'attention',
      webhook_error_code: 'webhook_gone',
      last_error_code: 'webhook_gone',
    });
    expect(
      afterWebhookFailure(
        { status: 'paused', last_error_code: 'registry_unavailable' },
        'webhook_failed',
      ),
    ).toEqual({
      status: 'paused',
      webhook_error_code: 'webhook_failed',
      // A source's error, already there, is not hidden.
      last_error_code: 'registry_unavailable',
    });
  });

  it('keeps it in attention through an answered recheck, and resumes a paused one into attention', () => {
    expect(afterRecheck(failing, { kind: 'observed' }, NOW)).toMatchObject({
      status: 'attention',
      health: 'healthy',
      last_error_code: 'webhook_failed',
    });
    expect(
      afterRecheck({ ...failing, status: 'active' }, { kind: 'source_unavailable' }, NOW),
    ).toMatchObject({
      status: 'attention',
      health: 'source_degraded',
    });
    expect(statusWhenResumed(failing)).toBe('attention');
  });

  it('returns to what its health says once the webhook recovers', () => {
    const recovering = {
      ...failing,
      status: 'attention' as const,
      last_error_code: 'webhook_failed',
    };
    expect(afterWebhookRecovered(recovering)).toEqual({
      status: 'active',
      webhook_error_code: null,
      last_error_code: null,
    });
    expect(
      afterWebhookRecovered({
        ...recovering,
        health: 'needs_credits',
        last_error_code: 'insufficient_credits',
      }),
    ).toEqual({
      status: 'attention',
      webhook_error_code: null,
      last_error_code: 'insufficient_credits',
    });
    expect(afterWebhookRecovered({ ...recovering, status: 'paused' })).toMatchObject({
      status: 'paused',
    });
  });
});
