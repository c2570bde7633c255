import type { MonitorHealth, MonitorStatus } from '../src/db/schema.js';
import type { IdentifierType } from '../src/formats/format-rule.js';
import { checkFormat } from '../src/formats/registry.js';
import type { Check } from '../src/modules/checks/checks.schemas.js';
import {
  detectChanges,
  isObservation,
  severityOfChanges,
  snapshotOfCheck,
} from '../src/modules/monitors/changes.js';
import { afterRecheck, type RecheckOutcome } from '../src/modules/monitors/monitor-states.js';
import {
  type EventSeverity,
  type EventType,
  type MonitorChange,
  type MonitorSnapshot,
  WATCHED_FIELDS,
  type WatchedField,
} from '../src/modules/monitors/monitors.schemas.js';
import type { CompanyRecord, LookupResult } from '../src/sources/registry-source.js';
import {
  type CountryFixtures,
  type FixtureTimeline,
  SANDBOX_FIXTURES,
  timelineAnswer,
  timelineStepIndex,
} from '../src/sources/sandbox/sandbox-source.js';
import { sandboxVersusLiveSection } from './sandbox-versus-live-doc.js';

const OUTCOME_TEXT: Record<string, string> = {
  matched: 'matched',
  ambiguous: 'ambiguous (several companies)',
  not_matched: 'not_matched (valid format, no record)',
  unavailable: 'unavailable (the registry is down; retryable warning)',
  invalid_format: 'format invalid (registry not queried)',
};

function countrySection(country: CountryFixtures): string {
  const company = (key: string) => country.companies.find((c) => c.key === key);
  const rows = country.identifiers.map((entry) => {
    const result = checkFormat(
      country.country_code,
      entry.identifier_type as IdentifierType,
      entry.value,
    );
    const companies = (entry.companies ?? []).map((key) => company(key));
    const status =
      entry.outcome === 'matched'
        ? `${companies[0]?.company_legal_status} (raw: ${companies[0]?.raw_company_legal_status})`
        : '';
    return `| \`${entry.identifier_type}\` | \`${entry.value}\` | ${result.status} | ${OUTCOME_TEXT[entry.outcome]} | ${companies.map((c) => c?.legal_name).join('; ')} | ${status} |`;
  });
  const cities = [...new Set(country.companies.map((c) => c.city_or_state).filter(Boolean))];
  return `## ${country.country_code}

| Type | Number | Format | Registry | Company | Legal status |
|---|---|---|---|---|---|
${rows.join('\n')}

Companies (search by any part of the name, by number, and filter by \`city_or_state\`: ${cities.join(', ')}):

${country.companies
  .filter((c) => c.searchable !== false)
  .map(
    (c) =>
      `- ${c.legal_name}: ${c.company_legal_status}, ${c.city_or_state ?? ''}${c.registration_number ? `, registration ${c.registration_number}` : ''}${c.vat_numbers.length ? `, VAT ${c.vat_numbers.join(', ')}` : ''}${c.tax_identifiers.length ? `, EIN ${c.tax_identifiers.join(', ')}` : ''}`,
  )
  .join('\n')}

A search for the name ${country.search_failures.map((f) => `\`${f}\``).join(', ')} fails upstream (502 \`upstream_unavailable\`).
`;
}

type TimelineEvent = { type: EventType; severity: EventSeverity; changes: MonitorChange[] };

/** One run of a timeline as the monitor sees it: the registry's answer and the events it emits. */
export interface TimelineRun {
  /** 0 for the baseline (POST /monitors), k for the k-th run. */
  run: number;
  step: number;
  answer: LookupResult | 'credit_shortage';
  events: TimelineEvent[];
  status: MonitorStatus;
  health: MonitorHealth;
}

const ALL_FIELDS: WatchedField[] = [...WATCHED_FIELDS];
const AT = new Date('2025-01-01T00:00:00.000Z');

/**
 * The snapshot a monitor takes from a check of this answer: the findings as the check maps them,
 * then the monitor's own snapshotOfCheck.
 */
function snapshotOfAnswer(answer: LookupResult, run: number): MonitorSnapshot {
  const company = answer.outcome === 'matched' ? answer.company : undefined;
  const legalStatus = company
    ? company.company_legal_status
    : answer.outcome === 'not_matched'
      ? 'not_applicable'
      : 'unavailable';
  const check = {
    id: `chk_sandbox_timeline_run_${run}`,
    completed_at: AT.toISOString(),
    registry_match_status: answer.outcome,
    company_legal_status: legalStatus,
    ...(company ? { company } : {}),
  };
  return snapshotOfCheck(check as unknown as Check);
}

/**
 * Walks a timeline as a monitor watching every field does: the baseline, then one run per step
 * and one more (the record then stays on its last step). The changes and the state transitions
 * are the monitor's own (changes.ts, monitor-states.ts), so this page cannot drift from them.
 */
export function timelineRuns(country: CountryFixtures, timeline: FixtureTimeline): TimelineRun[] {
  const baseline = timelineAnswer(country, timeline, 0);
  let latest = snapshotOfAnswer(baseline, 0);
  let monitor = {
    id: 'mon_sandbox_timeline_doc',
    status: 'active' as MonitorStatus,
    health: 'healthy' as MonitorHealth,
    failure_count: 0,
    cadence: 'daily' as const,
  };
  const runs: TimelineRun[] = [
    { run: 0, step: 0, answer: baseline, events: [], status: 'active', health: 'healthy' },
  ];
  for (let run = 1; run <= timeline.steps.length; run += 1) {
    const step = timelineStepIndex(timeline, run);
    const shortage = timeline.steps[step]?.outcome === 'credit_shortage';
    const answer = timelineAnswer(country, timeline, run);
    const snapshot = snapshotOfAnswer(answer, run);
    const outcome: RecheckOutcome = shortage
      ? { kind: 'unpaid', code: 'simulated_credit_shortage' }
      : isObservation(snapshot)
        ? { kind: 'observed' }
        : { kind: 'source_unavailable' };
    const transition = afterRecheck(monitor, outcome, AT);
    const events: TimelineEvent[] = transition.events.map((e) => ({ ...e, changes: [] }));
    if (!shortage) {
      const changes = detectChanges(latest, snapshot, ALL_FIELDS);
      if (changes.length > 0) {
        events.push({
          type: 'vat.monitor.change_detected',
          severity: severityOfChanges(changes),
          changes,
        });
      }
      // The latest snapshot is the latest observation: an outage does not replace it.
      if (isObservation(snapshot)) latest = snapshot;
    }
    monitor = {
      ...monitor,
      status: transition.status,
      health: transition.health,
      failure_count: transition.failure_count,
    };
    runs.push({
      run,
      step,
      answer: shortage ? 'credit_shortage' : answer,
      events,
      status: transition.status,
      health: transition.health,
    });
  }
  return runs;
}

const code = (value: unknown) => `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;

const WATCHED_TEXT: Record<string, (c: CompanyRecord) => string | undefined> = {
  registration_number: (c) =>
    c.registration_number && `registration ${code(c.registration_number)}`,
  vat_numbers: (c) => `VAT ${code(c.vat_numbers)}`,
  registered_address: (c) =>
    c.registered_address && `address ${code(c.registered_address.formatted)}`,
};

/**
 * The registry's answer: in full the first time it matches; after that the name, the legal status
 * and the watched fields the step changes from the company's baseline record.
 */
function answerText(timeline: FixtureTimeline, run: TimelineRun, full: boolean): string {
  if (run.answer === 'credit_shortage') {
    return 'no check: the workspace looks out of credits (**simulated**)';
  }
  if (run.answer.outcome !== 'matched') return code(run.answer.outcome);
  const { company } = run.answer;
  const step = timeline.steps[run.step];
  const changed = full
    ? Object.keys(WATCHED_TEXT)
    : Object.keys(step?.outcome === 'matched' ? (step.changes ?? {}) : {});
  const details = changed.flatMap((field) => WATCHED_TEXT[field]?.(company) ?? []);
  return [
    `${code('matched')}: ${company.legal_name}, ${code(company.company_legal_status)}`,
    ...details,
  ].join('; ');
}

function eventText(event: TimelineEvent): string {
  const changes = event.changes.map((c) => `${c.field} ${code(c.previous)} → ${code(c.current)}`);
  return `${code(event.type)} (${event.severity})${changes.length ? `: ${changes.join('; ')}` : ''}`;
}

function timelineSection(country: CountryFixtures, timeline: FixtureTimeline): string {
  const runs = timelineRuns(country, timeline);
  const last = runs.length - 1;
  const firstMatch = runs.find(
    (r) => r.answer !== 'credit_shortage' && r.answer.outcome === 'matched',
  );
  const full = (run: TimelineRun) => run === firstMatch;
  const rows = runs.map((run) => {
    const label =
      run.run === 0 ? 'baseline' : run.run === last ? `run ${run.run} and later` : `run ${run.run}`;
    const events = run.events.length ? run.events.map(eventText).join('<br>') : 'none';
    const shortage =
      run.answer === 'credit_shortage'
        ? '; `POST /monitors/{id}/run` answers 402 `insufficient_credits`, saying it is simulated'
        : '';
    return `| ${label} | ${answerText(timeline, run, full(run))} | ${events}${shortage} | ${run.status} / ${run.health} |`;
  });
  return `### ${country.country_code}: ${timeline.name}

\`${timeline.identifier_type}\` \`${timeline.value}\`. ${timeline.description}

| Run | Registry answer | Events | Monitor status / health after |
|---|---|---|---|
${rows.join('\n')}
`;
}

function timelinesSection(fixtures: readonly CountryFixtures[]): string {
  const sections = fixtures.flatMap((country) =>
    (country.timelines ?? []).map((timeline) => timelineSection(country, timeline)),
  );
  return `## Monitoring timelines

The numbers below move along a fixed timeline, so that every monitoring event can be seen in the sandbox without waiting days:

- \`POST /monitors\` takes the first step as its baseline; a plain \`POST /checks\` always answers the first step.
- Each run moves the monitor one step on: \`POST /monitors/{id}/run\` and scheduled rechecks alike. Each monitor keeps its own place, so a new monitor on the same number starts again from its baseline. After the last step the record stays as it is. Runs are free in the sandbox.
- A **simulated credit shortage** makes one run behave as if the workspace had no credits: no check is made, the monitor records \`vat.monitor.needs_credits\` and a manual run answers 402 \`insufficient_credits\` (its detail says it is simulated). The next run goes ahead. Sandbox keys are never charged.
- Events are worked out here with the monitor's own rules (see [monitoring.md](monitoring.md) for severities and states), for a monitor watching all six fields; a monitor watching fewer fields only reports changes to those. \`paused\` and \`resumed\` come from \`PATCH /monitors/{id}\`, not from a timeline.
- An address that is only re-typed (case, spacing) is not a change. Each step's changes apply to the company's record at the baseline; the first row that matches shows the whole record, and later rows its name, legal status and the watched fields that differ from the baseline. These companies keep the same \`cmp_\` id on every run and are not returned by company search; only the timeline number itself moves.

${sections.join('\n')}`;
}

/** docs/sandbox.md, generated from the fixture files; test/docs/sandbox-doc.test.ts keeps it current. */
export function renderSandboxDoc(fixtures: readonly CountryFixtures[] = SANDBOX_FIXTURES): string {
  return `# Sandbox fixtures

Generated from \`src/sources/sandbox/fixtures/*.json\` and the coverage the live registers declare by \`npm run docs:sandbox\`; a test fails when this file and the code differ.

Keys starting \`svc_test_\` use the sandbox: deterministic fixtures for GB, DE and US, no credits. **These companies and numbers are test data, not evidence about real companies**; their source is named "firmwatch sandbox fixtures (test data, not real companies)" in every \`Source\` and \`Evidence\`.

- Every number in the country tables gives the same answer every time (the [monitoring timelines](#monitoring-timelines) move on with each run of a monitor). Any other valid-format number in GB, DE or US is \`not_matched\`.
- A check in any other country still runs the format rules; its registry findings are \`not_supported\`, with a warning.
- \`tax_authority_status\` is \`not_supported\` for VAT numbers and tax identifiers and \`not_applicable\` for registration numbers: checks never call a tax authority.

${sandboxVersusLiveSection(fixtures)}
${fixtures.map(countrySection).join('\n')}
${timelinesSection(fixtures)}`;
}
