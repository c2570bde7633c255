import type { Command } from 'commander';
import type { MonitorEvent } from '../kit/client.js';
import { answerOf, choices, firstItems, limitOf, pageSizeFor } from './api-answers.js';
import { type ApiCommandOptions, addApiOptions, apiClient } from './api-options.js';
import { describeChanges } from './check-summary.js';
import { jsonOption, printResult, type RunCommand } from './output.js';

const EVENT_TYPES: Record<MonitorEvent['type'], true> = {
  'vat.monitor.change_detected': true,
  'vat.monitor.source_degraded': true,
  'vat.monitor.source_restored': true,
  'vat.monitor.needs_credits': true,
  'vat.monitor.paused': true,
  'vat.monitor.resumed': true,
};

function describeEvent(event: MonitorEvent): string {
  const { delivery } = event;
  const lines = [
    `${event.id}  ${event.created_at}  ${event.type} (${event.severity})  ${event.monitor_id}`,
    ...describeChanges(event.changes),
    `  delivery: ${delivery.status}${delivery.attempts > 0 ? `, ${delivery.attempts} attempts` : ''}${delivery.response_status ? `, last answer ${delivery.response_status}` : ''}`,
  ];
  if (event.check_id) lines.splice(1, 0, `  check: ${event.check_id}`);
  return lines.join('\n');
}

interface ListOptions extends ApiCommandOptions {
  monitor?: string;
  type?: MonitorEvent['type'][];
  createdAfter?: string;
  createdBefore?: string;
  limit: number;
  json?: boolean;
}

/** `firmwatch events list|show`: monitoring events through the REST API. */
export function addEventApiCommands(events: Command, run: RunCommand): void {
  const list = events
    .command('list')
    .description(
      'List monitoring events (newest first) through GET /v1/monitoring-events and its filters.',
    );
  addApiOptions(list, 'events:read')
    .option('--monitor <id>', 'only the events of this monitor (mon_..., archived ones included)')
    .option(
      '--type <type>',
      `only these types, repeatable or separated by commas: ${Object.keys(EVENT_TYPES).join(', ')}`,
      choices(EVENT_TYPES, '--type'),
    )
    .option('--created-after <time>', 'only events created after this instant (RFC 3339)')
    .option('--created-before <time>', 'only events created before this instant (RFC 3339)')
    .option('--limit <n>', 'print at most this many', limitOf, 100)
    .addOption(jsonOption())
    .action(async (options: ListOptions) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const client = apiClient(options);
        const query = {
          ...(options.monitor ? { monitor_id: options.monitor } : {}),
          ...(options.type ? { type: options.type } : {}),
          ...(options.createdAfter ? { created_after: options.createdAfter } : {}),
          ...(options.createdBefore ? { created_before: options.createdBefore } : {}),
          limit: pageSizeFor(options.limit),
        };
        const { data, hasMore } = await firstItems(
          client.list('/monitoring-events', query),
          options.limit,
          {
            monitor_id: '--monitor',
            type: '--type',
            created_after: '--created-after',
            created_before: '--created-before',
          },
        );
        const lines = data.length === 0 ? ['No events.'] : data.map(describeEvent);
        if (hasMore) lines.push(`More events match: raise --limit (now ${options.limit}).`);
        printResult(output, { object: 'list', data, has_more: hasMore }, lines.join('\n'));
      });
    });

  const show = events
    .command('show')
    .description('Show a monitoring event through GET /v1/monitoring-events/{id}.')
    .argument('<event>', 'the event (evt_...)');
  addApiOptions(show, 'events:read')
    .addOption(jsonOption())
    .action(async (eventId: string, options: ApiCommandOptions & { json?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const event = answerOf(
          await apiClient(options).GET('/monitoring-events/{event_id}', {
            params: { path: { event_id: eventId } },
          }),
        );
        printResult(output, event, describeEvent(event));
      });
    });
}
