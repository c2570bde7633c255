import type { Command } from 'commander';
import { type DeliveryLogEntry, deliveryLog } from '../modules/webhooks/deliveries.service.js';
import { REDELIVERY_LIMIT, redeliverEvent } from '../modules/webhooks/redelivery.service.js';
import { createOption, withDatabase } from './database-command.js';
import { jsonOption, printResult, type RunCommand } from './output.js';

function describeLog(eventId: string, deliveries: DeliveryLogEntry[]): string {
  if (deliveries.length === 0) return `${eventId}: no webhook deliveries (the monitor had no URL)`;
  const lines: string[] = [];
  for (const delivery of deliveries) {
    const next = delivery.next_attempt_at ? `, next attempt ${delivery.next_attempt_at}` : '';
    lines.push(`${delivery.id} to ${delivery.url}: ${delivery.status}${next}`);
    for (const attempt of delivery.log) {
      const outcome = attempt.response_status ?? `${attempt.error_code} (${attempt.error_message})`;
      const excerpt = attempt.response_excerpt
        ? ` "${attempt.response_excerpt.slice(0, 60).replace(/\s+/g, ' ')}"`
        : '';
      lines.push(
        `  #${attempt.number} ${attempt.attempted_at} ${attempt.address ?? '-'} ${outcome} ${attempt.duration_ms} ms${excerpt}`,
      );
    }
  }
  return lines.join('\n');
}

/** `firmwatch events ...`: the webhook delivery log of an event, and redelivery. */
export function addEventsCommands(program: Command, run: RunCommand): void {
  const events = program.command('events').description('Webhook deliveries of monitoring events.');
  events
    .command('deliveries')
    .description(
      "Show an event's webhook deliveries: every attempt, its address, status or error, duration and response excerpt.",
    )
    .requiredOption('--event <id>', 'the event (evt_...)')
    .addOption(jsonOption())
    .addOption(createOption())
    .action(async (options: { event: string; json?: boolean; create?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const deliveries = await withDatabase(options, (database) =>
          deliveryLog(database.db, options.event),
        );
        printResult(
          output,
          { event_id: options.event, deliveries },
          describeLog(options.event, deliveries),
        );
      });
    });
  events
    .command('redeliver')
    .description(
      `Deliver an event again to its monitor's webhook URL: the same body, signed afresh (an open delivery is brought forward instead; at most ${REDELIVERY_LIMIT.redeliveries} an hour per event).`,
    )
    .requiredOption('--event <id>', 'the event (evt_...)')
    .addOption(jsonOption())
    .addOption(createOption())
    .action(async (options: { event: string; json?: boolean; create?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const result = await withDatabase(options, (database, deps) =>
          database.transact((trx) => redeliverEvent(trx, deps, options.event)),
        );
        printResult(
          output,
          { event_id: options.event, ...result },
          result.brought_forward
            ? `${result.delivery_id} to ${result.url}: already queued; its next attempt is due now`
            : `${result.delivery_id} to ${result.url}: queued; a running worker sends it`,
        );
      });
    });
}
