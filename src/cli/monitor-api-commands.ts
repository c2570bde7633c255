import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { FirmwatchClient, Monitor } from '../kit/client.js';
import {
  answerOf,
  choice,
  choices,
  firstItems,
  limitOf,
  metadataEntry,
  pageSizeFor,
} from './api-answers.js';
import { type ApiCommandOptions, addApiOptions, apiClient } from './api-options.js';
import { CHECK_FIELDS, type IdentifierType, identifierTypeArgument } from './check-command.js';
import { describeChanges, describeCheck } from './check-summary.js';
import { jsonOption, printResult, type RunCommand } from './output.js';

const CADENCES: Record<Monitor['cadence'], true> = { daily: true, weekly: true, monthly: true };
const WATCHED_FIELDS: Record<Monitor['watched_fields'][number], true> = {
  registry_match_status: true,
  company_legal_status: true,
  legal_name: true,
  registration_number: true,
  vat_numbers: true,
  registered_address: true,
};
const STATUSES: Record<Monitor['status'], true> = { active: true, paused: true, attention: true };
const HEALTHS: Record<Monitor['health'], true> = {
  healthy: true,
  source_degraded: true,
  needs_credits: true,
};

/** A monitor for a person: what it watches, its state and when it looks next. */
export function describeMonitor(monitor: Monitor): string {
  const { identifier } = monitor;
  const lines = [
    `${monitor.id}  ${monitor.status}, ${monitor.health}  ${identifier.type} ${identifier.normalized} (${identifier.country_code})  ${monitor.cadence}`,
  ];
  const company = monitor.latest_snapshot.legal_name;
  if (company) lines.push(`  company: ${company}`);
  if (monitor.client_reference) lines.push(`  client reference: ${monitor.client_reference}`);
  lines.push(`  last checked ${monitor.last_checked_at}, next check ${monitor.next_check_at}`);
  if (monitor.webhook_url) lines.push(`  webhook: ${monitor.webhook_url}`);
  if (monitor.last_error_code) lines.push(`  last error: ${monitor.last_error_code}`);
  return lines.join('\n');
}

/** The signing secret, framed the way the API gives it: once, now. */
const secretLines = (secret: string | undefined) =>
  secret
    ? [
        'Webhook signing secret (shown only now; keep it secret, verify deliveries with it):',
        `  ${secret}`,
      ]
    : [];

const writeKey = () => ({ header: { 'idempotency-key': randomUUID() } });

interface CreateOptions extends ApiCommandOptions {
  country: string;
  companyName?: string;
  cadence?: Monitor['cadence'];
  webhookUrl?: string;
  watchedFields?: Monitor['watched_fields'];
  clientReference?: string;
  metadata?: Record<string, string>;
  json?: boolean;
}

interface ListOptions extends ApiCommandOptions {
  status?: Monitor['status'][];
  health?: Monitor['health'][];
  clientReference?: string;
  limit: number;
  json?: boolean;
}

/** A command on one monitor by its id: show, pause, resume, archive, run. */
function monitorCommand(
  monitors: Command,
  name: string,
  description: string,
  scope: string,
  run: RunCommand,
  body: (client: FirmwatchClient, monitorId: string) => Promise<{ result: object; human: string }>,
): void {
  const command = monitors
    .command(name)
    .description(description)
    .argument('<monitor>', 'the monitor (mon_...)');
  addApiOptions(command, scope)
    .addOption(jsonOption())
    .action(async (monitorId: string, options: ApiCommandOptions & { json?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const { result, human } = await body(apiClient(options), monitorId);
        printResult(output, result, human);
      });
    });
}

/** `firmwatch monitors create|list|show|pause|resume|archive|run`: monitors through the REST API. */
export function addMonitorApiCommands(monitors: Command, run: RunCommand): void {
  const create = monitors
    .command('create')
    .description(
      'Enrol a company for monitoring through POST /v1/monitors: a baseline check now, rechecks at its cadence, signed webhook events on changes. The signing secret is printed once when a webhook URL is given.',
    )
    .addArgument(identifierTypeArgument())
    .argument('<identifier>', 'the number as written; the API normalises it');
  addApiOptions(create, 'monitors:write')
    .requiredOption('--country <cc>', 'the country of the number (two letters)')
    .option('--company-name <name>', 'the name you expect (a mismatch is only a warning)')
    .option(
      '--cadence <cadence>',
      'daily, weekly or monthly (default daily)',
      choice(CADENCES, '--cadence'),
    )
    .option('--webhook-url <url>', 'a public https:// URL for signed events')
    .option(
      '--watched-fields <fields>',
      `the fields whose changes count, separated by commas (default all: ${Object.keys(WATCHED_FIELDS).join(', ')})`,
      choices(WATCHED_FIELDS, '--watched-fields'),
    )
    .option('--client-reference <ref>', 'your own reference, returned as given')
    .option(
      '--metadata <key=value>',
      'a metadata entry, returned as given (repeatable)',
      metadataEntry,
    )
    .addOption(jsonOption())
    .action(async (identifierType: IdentifierType, identifier: string, options: CreateOptions) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const created = answerOf(
          await apiClient(options).POST('/monitors', {
            params: writeKey(),
            body: {
              identifier_type: identifierType,
              identifier,
              country_code: options.country,
              ...(options.companyName !== undefined ? { company_name: options.companyName } : {}),
              ...(options.cadence ? { cadence: options.cadence } : {}),
              ...(options.webhookUrl !== undefined ? { webhook_url: options.webhookUrl } : {}),
              ...(options.watchedFields ? { watched_fields: options.watchedFields } : {}),
              ...(options.clientReference !== undefined
                ? { client_reference: options.clientReference }
                : {}),
              ...(options.metadata ? { metadata: options.metadata } : {}),
            },
          }),
          {
            ...CHECK_FIELDS,
            cadence: '--cadence',
            webhook_url: '--webhook-url',
            watched_fields: '--watched-fields',
          },
        );
        printResult(
          output,
          created,
          [
            `Created monitor ${created.monitor.id}`,
            describeMonitor(created.monitor),
            'Baseline:',
            describeCheck(created.baseline_check),
            ...secretLines(created.webhook_signing_secret),
          ].join('\n'),
        );
      });
    });

  const list = monitors
    .command('list')
    .description('List monitors (newest first) through GET /v1/monitors and its filters.');
  addApiOptions(list, 'monitors:read')
    .option(
      '--status <status>',
      'only these statuses: active, paused, attention (repeatable or a,b)',
      choices(STATUSES, '--status'),
    )
    .option(
      '--health <health>',
      'only these: healthy, source_degraded, needs_credits (repeatable or a,b)',
      choices(HEALTHS, '--health'),
    )
    .option('--client-reference <ref>', 'only monitors with this client_reference')
    .option('--limit <n>', 'print at most this many', limitOf, 100)
    .addOption(jsonOption())
    .action(async (options: ListOptions) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const client = apiClient(options);
        const query = {
          ...(options.status ? { status: options.status } : {}),
          ...(options.health ? { health: options.health } : {}),
          ...(options.clientReference ? { client_reference: options.clientReference } : {}),
          limit: pageSizeFor(options.limit),
        };
        const { data, hasMore } = await firstItems(client.list('/monitors', query), options.limit, {
          status: '--status',
          health: '--health',
          client_reference: '--client-reference',
        });
        const lines = data.length === 0 ? ['No monitors.'] : data.map(describeMonitor);
        if (hasMore) lines.push(`More monitors match: raise --limit (now ${options.limit}).`);
        printResult(output, { object: 'list', data, has_more: hasMore }, lines.join('\n'));
      });
    });

  monitorCommand(
    monitors,
    'show',
    'Show a monitor through GET /v1/monitors/{id}.',
    'monitors:read',
    run,
    async (client, id) => {
      const monitor = answerOf(
        await client.GET('/monitors/{monitor_id}', { params: { path: { monitor_id: id } } }),
      );
      return { result: monitor, human: describeMonitor(monitor) };
    },
  );
  for (const [name, status, verb] of [
    ['pause', 'paused', 'Pause a monitor (no rechecks until resumed)'],
    ['resume', 'active', 'Resume a paused monitor'],
  ] as const) {
    monitorCommand(
      monitors,
      name,
      `${verb} through PATCH /v1/monitors/{id}.`,
      'monitors:write',
      run,
      async (client, id) => {
        const updated = answerOf(
          await client.PATCH('/monitors/{monitor_id}', {
            params: { ...writeKey(), path: { monitor_id: id } },
            body: { status },
          }),
        );
        const human = [
          describeMonitor(updated.monitor),
          ...secretLines(updated.webhook_signing_secret),
        ];
        return { result: updated, human: human.join('\n') };
      },
    );
  }
  monitorCommand(
    monitors,
    'archive',
    'Archive a monitor (it stops for good; its events stay listed) through DELETE /v1/monitors/{id}.',
    'monitors:write',
    run,
    async (client, id) => {
      const archived = answerOf(
        await client.DELETE('/monitors/{monitor_id}', {
          params: { ...writeKey(), path: { monitor_id: id } },
        }),
      );
      return { result: { monitor_id: id, ...archived }, human: `Archived monitor ${id}` };
    },
  );
  monitorCommand(
    monitors,
    'run',
    'Recheck a monitor now through POST /v1/monitors/{id}/run: the check, the changes it found and the event it raised.',
    'monitors:write',
    run,
    async (client, id) => {
      const ran = answerOf(
        await client.POST('/monitors/{monitor_id}/run', {
          params: { ...writeKey(), path: { monitor_id: id } },
        }),
      );
      const lines = [describeMonitor(ran.monitor), describeCheck(ran.check)];
      lines.push(
        ran.changes.length === 0 ? 'No changes.' : 'Changes:',
        ...describeChanges(ran.changes),
      );
      if (ran.event_id) lines.push(`Event: ${ran.event_id}`);
      return { result: ran, human: lines.join('\n') };
    },
  );
}
