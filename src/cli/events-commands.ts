import type { Command } from 'commander';
import { type DeliveryLogEntry, deliveryLog } from '../modules/webhooks/deliveries.service.js';
import { REDELIVERY_LIMIT, redeliverEvent } from '../modules/webhooks/redelivery.service.js';
import { sendTestEvent } from '../modules/webhooks/test-events.service.js';
import { createOption, withDatabase } from './database-command.js';
import { addEventApiCommands } from './event-api-commands.js';
import { CliError, jsonOption, printResult, type RunCommand } from './output.js';

function describeLog(eventId: string, deliveries: DeliveryLogEntry[]): string {
  if (deliveries.length === 0) return `${eventId}: no webhook deliveries (the monitor had no URL)`;
  const lines: string[] = [];
  for (const delivery of deliveries) {
    const next = delivery.next_attempt_at ? `, next attempt ${delivery.next_attempt_at}` : '';
    const test = delivery.test ? ' (test event)' : '';
    lines.push(`${delivery.id}${test} to ${delivery.url}: ${delivery.status}${next}`);
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

/**
 * `firmwatch events ...`: monitoring events through the REST API (main() runs those without the
 * server), and on the database, an event's webhook delivery log and redelivery.
 */
export function addEventsCommands(program: Command, run: RunCommand): void {
  const events = program
    .command('events')
    .description(
      'Monitoring events through the REST API, and their webhook deliveries on the database.',
    );
  addEventApiCommands(events, run);
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
  events
    .command('test')
    .description(
      "Send a test event to a monitor's webhook URL through the real delivery path: signed with the monitor's secret, recorded in the delivery log, attempted once. Its id starts with evt_test_, it lists no changes, and GET /monitoring-events never shows it.",
    )
    .requiredOption('--monitor <id>', 'the monitor (mon_...)')
    .option('--type <type>', 'the event type', 'vat.monitor.change_detected')
    .option(
      '--wait <seconds>',
      'wait this long for a running worker to attempt it and print the outcome (0: do not wait)',
      '10',
    )
    .addOption(jsonOption())
    .addOption(createOption())
    .action(
      async (options: {
        monitor: string;
        type: string;
        wait: string;
        json?: boolean;
        create?: boolean;
      }) => {
        const output = { json: options.json === true };
        await run(output, async () => {
          const waitMs = Number(options.wait) * 1000;
          if (!Number.isFinite(waitMs) || waitMs < 0)
            throw new CliError(
              'invalid_option',
              `--wait takes a number of seconds, not ${options.wait}`,
            );
          const { sent, attempted } = await withDatabase(options, async (database, deps) => {
            const sent = await database.transact((trx) =>
              sendTestEvent(trx, deps, { monitorId: options.monitor, type: options.type }),
            );
            return { sent, attempted: await attemptOf(database.db, sent.event_id, waitMs) };
          });
          const outcome = attempted
            ? describeLog(sent.event_id, [attempted])
            : `not attempted yet (no worker sent it within ${options.wait} s): \`firmwatch events deliveries --event ${sent.event_id}\` shows it later`;
          printResult(
            output,
            { ...sent, delivery: attempted ?? null },
            `Test event ${sent.event_id} (${sent.type}) queued to ${sent.url}\n${outcome}`,
          );
        });
      },
    );
}

/** The test event's delivery once a worker has attempted it, or undefined after `waitMs`. */
async function attemptOf(
  db: Parameters<typeof deliveryLog>[0],
  eventId: string,
  waitMs: number,
): Promise<DeliveryLogEntry | undefined> {
  const until = Date.now() + waitMs;
  for (;;) {
    const [delivery] = await deliveryLog(db, eventId);
    if (delivery && delivery.attempts > 0) return delivery;
    if (Date.now() >= until) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
