import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * What a process counts for Prometheus (docs/operations.md, "Metrics"), kept in a registry of its
 * own (never prom-client's global one, so that two apps in one process, as in the tests, count
 * apart). Counting is always on and cheap; only a METRICS_PORT listener (metrics-listener.ts)
 * shows the numbers. Names follow Prometheus's conventions (`firmwatch_..._total`, `_seconds`), and
 * no label carries a key, an identifier, a workspace or a URL: an operation is its OpenAPI
 * operationId, a source its register's name, an outcome one of a few words.
 */
export interface Metrics {
  readonly registry: Registry;
  /** An HTTP request answered: its operation (see request-metrics.ts), status and duration. */
  httpRequest(operation: string, status: number, seconds: number): void;
  /** A check committed, whoever asked (the API, MCP, a monitor), with its four findings. */
  checkCommitted(check: CommittedCheck): void;
  /** Credits debited by a committed operation that is not a check (a live search). */
  creditsDebited(units: number): void;
  /** A request answered with the stored response of its Idempotency-Key. */
  idempotencyReplay(): void;
  /** One call of a register's upstream client, retries included, and what came of it. */
  registryCall(source: string, outcome: RegistryCallOutcome, seconds: number): void;
  /** A scheduled recheck, from its claim to its commit. */
  recheck(outcome: 'rechecked' | 'unpaid' | 'skipped' | 'failed', seconds: number): void;
  /** A webhook delivery attempt and what it left the delivery as. */
  webhookAttempt(outcome: 'delivered' | 'retrying' | 'failed', seconds: number): void;
  /**
   * A batch of a register change feed committed: the companies it said changed, the monitors it
   * made due, and when the register published its last event (the feed's lag).
   */
  feedBatch(feed: string, changes: number, monitorsDue: number, publishedAt: Date | null): void;
  /** A feed could not resume from its position: every monitor it covers was made due. */
  feedGap(feed: string): void;
  /** Where the gauges read at each scrape come from (the process wires them once it has them). */
  readAtScrape(readings: ScrapeReadings): void;
  /** Adds Node's process and event-loop metrics (once; a listener asks for them). */
  collectProcessMetrics(): void;
}

/** What a front door or job that counts into the metrics takes beside its domain dependencies. */
export interface MetricsDeps {
  metrics: Metrics;
}

export interface CommittedCheck {
  /** `sandbox` or `live`, from the key's environment. */
  environment: string;
  format_status: string;
  registry_match_status: string;
  tax_authority_status: string;
  company_legal_status: string;
  credits_used: number;
}

/**
 * What became of a register call: `answered` (a record or a search), `not_found` (the register's
 * 404 or 410), or why it is unavailable (`breaker_open`: not asked, the register kept failing;
 * `budget_exhausted`: not asked, our share of its rate limit was spent).
 */
export type RegistryCallOutcome =
  | 'answered'
  | 'not_found'
  | 'rate_limited'
  | 'budget_exhausted'
  | 'timeout'
  | 'breaker_open'
  | 'connection_failed'
  | 'server_error'
  | 'rejected'
  | 'malformed_response'
  | 'response_too_large';

export type BreakerState = 'closed' | 'open' | 'half_open';

/** An upstream client as the scrape sees it. */
export interface UpstreamReading {
  name: string;
  breakerState(): BreakerState;
  /** Requests left in its budget now (shared through Redis when configured); undefined if unknown. */
  budgetTokens(): Promise<number | undefined>;
}

export interface ScrapeReadings {
  /** Monitors the scheduler would recheck now, and when the longest-waiting one fell due. */
  dueMonitors(): Promise<{ due: number; oldestDueAt: Date | null }>;
  /** Deliveries not yet delivered or given up, and when the oldest one was recorded. */
  pendingDeliveries(): Promise<{ pending: number; oldestCreatedAt: Date | null }>;
  upstreams(): readonly UpstreamReading[];
  now(): Date;
}

const FINDINGS = [
  'format_status',
  'registry_match_status',
  'tax_authority_status',
  'company_legal_status',
] as const;

/** Seconds: a sandbox check takes a few milliseconds, a live one up to its register's deadline. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const UPSTREAM_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const ageSeconds = (now: Date, since: Date | null) =>
  since === null ? 0 : Math.max(0, (now.getTime() - since.getTime()) / 1000);

/**
 * A reading shared by the calls made while it is in flight. A scrape collects every metric at
 * once, so the two gauges of the monitor backlog (and the two of the deliveries) ask the database
 * one query per scrape instead of one each.
 */
function joined<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= read().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  let readings: ScrapeReadings | undefined;
  let processMetrics = false;

  const httpRequests = new Counter({
    name: 'firmwatch_http_requests_total',
    help: 'HTTP requests answered, by operation (the OpenAPI operationId, or the area outside the API) and status code.',
    labelNames: ['operation', 'status'],
    registers,
  });
  const httpDuration = new Histogram({
    name: 'firmwatch_http_request_duration_seconds',
    help: 'Time from a request arriving to its response being sent, by operation.',
    labelNames: ['operation'],
    buckets: HTTP_BUCKETS,
    registers,
  });
  const checks = new Counter({
    name: 'firmwatch_checks_total',
    help: 'Checks committed (API, MCP and monitors), by environment.',
    labelNames: ['environment'],
    registers,
  });
  const findings = new Counter({
    name: 'firmwatch_check_findings_total',
    help: "Committed checks by each finding's value: the four findings are counted apart, never merged.",
    labelNames: ['environment', 'finding', 'value'],
    registers,
  });
  const credits = new Counter({
    name: 'firmwatch_credits_debited_total',
    help: 'Credits debited by committed live operations.',
    registers,
  });
  const replays = new Counter({
    name: 'firmwatch_idempotency_replays_total',
    help: 'Requests answered with the stored response of their Idempotency-Key.',
    registers,
  });
  const registryCalls = new Counter({
    name: 'firmwatch_registry_calls_total',
    help: 'Calls to a live register (retries included in one call), by source and outcome.',
    labelNames: ['source', 'outcome'],
    registers,
  });
  const registryDuration = new Histogram({
    name: 'firmwatch_registry_call_duration_seconds',
    help: 'Time a register call took, waits for the budget and retries included, by source.',
    labelNames: ['source'],
    buckets: UPSTREAM_BUCKETS,
    registers,
  });
  const rechecks = new Counter({
    name: 'firmwatch_monitor_rechecks_total',
    help: 'Scheduled monitor rechecks, by outcome.',
    labelNames: ['outcome'],
    registers,
  });
  const recheckDuration = new Histogram({
    name: 'firmwatch_monitor_recheck_duration_seconds',
    help: 'Time a scheduled recheck took, its register call included.',
    buckets: UPSTREAM_BUCKETS,
    registers,
  });
  const attempts = new Counter({
    name: 'firmwatch_webhook_attempts_total',
    help: 'Webhook delivery attempts, by what they left the delivery as: delivered, retrying (a retry is scheduled) or failed (given up).',
    labelNames: ['outcome'],
    registers,
  });
  const attemptDuration = new Histogram({
    name: 'firmwatch_webhook_attempt_duration_seconds',
    help: "Time a webhook attempt took, until the receiver's answer or the error.",
    buckets: UPSTREAM_BUCKETS,
    registers,
  });

  const feedChanges = new Counter({
    name: 'firmwatch_feed_changes_total',
    help: 'Companies a register change feed said changed (watched or not), by feed.',
    labelNames: ['feed'],
    registers,
  });
  const feedDue = new Counter({
    name: 'firmwatch_feed_monitors_due_total',
    help: 'Monitors a register change feed made due, by feed.',
    labelNames: ['feed'],
    registers,
  });
  const feedGaps = new Counter({
    name: 'firmwatch_feed_gaps_total',
    help: 'Times a feed could not resume from its position (every monitor it covers was made due), by feed.',
    labelNames: ['feed'],
    registers,
  });
  const feedLag = new Gauge({
    name: 'firmwatch_feed_lag_seconds',
    help: 'From the register publishing the last event read to its batch being committed, by feed.',
    labelNames: ['feed'],
    registers,
  });

  // Read at each scrape, from the database and the upstream clients. A reading that fails (the
  // database down) leaves its gauges out of that scrape instead of failing the whole scrape.
  new Gauge({
    name: 'firmwatch_monitors_due',
    help: 'Monitors due for a recheck now (not paused or archived).',
    registers,
    async collect() {
      this.reset();
      const read = await readings?.dueMonitors().catch(() => undefined);
      if (read) this.set(read.due);
    },
  });
  new Gauge({
    name: 'firmwatch_monitors_oldest_due_age_seconds',
    help: 'How long the longest-waiting due monitor has been due (0 when none is due).',
    registers,
    async collect() {
      this.reset();
      const read = await readings?.dueMonitors().catch(() => undefined);
      if (read && readings) this.set(ageSeconds(readings.now(), read.oldestDueAt));
    },
  });
  new Gauge({
    name: 'firmwatch_webhook_deliveries_pending',
    help: 'Webhook deliveries not yet delivered or given up.',
    registers,
    async collect() {
      this.reset();
      const read = await readings?.pendingDeliveries().catch(() => undefined);
      if (read) this.set(read.pending);
    },
  });
  new Gauge({
    name: 'firmwatch_webhook_oldest_pending_delivery_age_seconds',
    help: 'Age of the oldest pending webhook delivery (0 when none is pending).',
    registers,
    async collect() {
      this.reset();
      const read = await readings?.pendingDeliveries().catch(() => undefined);
      if (read && readings) this.set(ageSeconds(readings.now(), read.oldestCreatedAt));
    },
  });
  new Gauge({
    name: 'firmwatch_registry_breaker_state',
    help: "A register's circuit breaker: 1 for its current state (closed, open or half_open), 0 for the others.",
    labelNames: ['source', 'state'],
    registers,
    collect() {
      this.reset();
      for (const upstream of readings?.upstreams() ?? []) {
        const current = upstream.breakerState();
        for (const state of ['closed', 'open', 'half_open'] as const)
          this.set({ source: upstream.name, state }, state === current ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'firmwatch_registry_budget_tokens',
    help: "Requests left now in a register's budget (our share of its rate limit).",
    labelNames: ['source'],
    registers,
    async collect() {
      this.reset();
      for (const upstream of readings?.upstreams() ?? []) {
        const tokens = await upstream.budgetTokens().catch(() => undefined);
        if (tokens !== undefined) this.set({ source: upstream.name }, tokens);
      }
    },
  });

  return {
    registry,
    httpRequest(operation, status, seconds) {
      httpRequests.inc({ operation, status });
      httpDuration.observe({ operation }, seconds);
    },
    checkCommitted(check) {
      const environment = check.environment;
      checks.inc({ environment });
      for (const finding of FINDINGS) findings.inc({ environment, finding, value: check[finding] });
      if (check.credits_used > 0) credits.inc(check.credits_used);
    },
    creditsDebited(units) {
      if (units > 0) credits.inc(units);
    },
    idempotencyReplay() {
      replays.inc();
    },
    registryCall(source, outcome, seconds) {
      registryCalls.inc({ source, outcome });
      registryDuration.observe({ source }, seconds);
    },
    recheck(outcome, seconds) {
      rechecks.inc({ outcome });
      recheckDuration.observe(seconds);
    },
    webhookAttempt(outcome, seconds) {
      attempts.inc({ outcome });
      attemptDuration.observe(seconds);
    },
    feedBatch(feed, changes, monitorsDue, publishedAt) {
      if (changes > 0) feedChanges.inc({ feed }, changes);
      if (monitorsDue > 0) feedDue.inc({ feed }, monitorsDue);
      if (publishedAt)
        feedLag.set({ feed }, Math.max(0, (Date.now() - publishedAt.getTime()) / 1000));
    },
    feedGap(feed) {
      feedGaps.inc({ feed });
    },
    readAtScrape(next) {
      readings = {
        ...next,
        dueMonitors: joined(() => next.dueMonitors()),
        pendingDeliveries: joined(() => next.pendingDeliveries()),
      };
    },
    collectProcessMetrics() {
      if (processMetrics) return;
      processMetrics = true;
      collectDefaultMetrics({ register: registry });
    },
  };
}
