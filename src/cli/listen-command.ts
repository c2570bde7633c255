import type { Command } from 'commander';
import { WEBHOOK_EVENT_TYPES } from '../kit/webhooks.js';
import { newSigningSecret } from '../modules/monitors/signing-secret.js';
import { type ApiCommandOptions, addApiOptions, apiConnection, httpUrl } from './api-options.js';
import { type ListenReport, LOOK_BACK_MS, listen } from './listen.js';
import { CliError, jsonOption, type RunCommand } from './output.js';

interface ListenCommandOptions extends ApiCommandOptions {
  forwardTo: string;
  events?: string;
  monitor?: string;
  interval: string;
  json?: boolean;
}

function eventTypes(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const types = value
    .split(',')
    .map((type) => type.trim())
    .filter(Boolean);
  const unknown = types.filter(
    (type) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type),
  );
  if (types.length === 0 || unknown.length > 0) {
    throw new CliError(
      'invalid_option',
      `--events takes event types separated by commas, of: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
    );
  }
  return [...new Set(types)];
}

function describe(report: ListenReport): string {
  if (report.object === 'service_unreachable') {
    return `${report.at}  service unreachable (${report.error}); trying again`;
  }
  if (report.object === 'service_reachable') return `${report.at}  service reachable again`;
  const outcome =
    report.status !== null ? `${report.status}` : `not delivered (${report.error ?? 'failed'})`;
  const company = report.company !== null ? `  "${report.company}"` : '';
  return `${report.forwarded_at}  ${report.type}  ${report.monitor_id}${company}  ${report.event_id}  -> ${outcome}`;
}

/** `firmwatch listen --forward-to URL`: signed webhooks on a developer's own machine. */
export function addListenCommand(program: Command, run: RunCommand): void {
  const command = program
    .command('listen')
    .description(
      'Follow the monitoring events of the workspace an API key belongs to and forward each new one to a URL (http://localhost:... included) as the signed webhook request the service would send, signed with a secret made for this session and printed at the start. A client of the REST API: it opens no database. Ctrl-C stops it.',
    )
    .requiredOption('--forward-to <url>', 'where to POST each event (your webhook receiver)');
  addApiOptions(command, 'events:read')
    .option('--events <types>', 'only these event types, separated by commas')
    .option('--monitor <id>', 'only the events of this monitor (mon_...)')
    .option('--interval <ms>', 'how often to ask the service for new events', '1000')
    .addOption(jsonOption())
    .action(async (options: ListenCommandOptions) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const { apiKey, baseUrl } = apiConnection(options);
        const intervalMs = Number(options.interval);
        if (!Number.isInteger(intervalMs) || intervalMs < 50 || intervalMs > 60_000) {
          throw new CliError('invalid_option', '--interval is milliseconds, 50 to 60000');
        }
        const forwardTo = httpUrl(options.forwardTo, '--forward-to');
        const types = eventTypes(options.events);
        // A session secret, made as a monitor's is.
        const secret = newSigningSecret();
        const write = (line: string) => process.stdout.write(`${line}\n`);
        // Printed once the starting point is taken, so that whatever the developer does next
        // is forwarded.
        const ready = () =>
          write(
            output.json
              ? JSON.stringify({
                  object: 'listen_session',
                  signing_secret: secret,
                  forward_to: forwardTo,
                  base_url: baseUrl,
                })
              : [
                  `Ready. Forwarding new monitoring events from ${baseUrl} to ${forwardTo}.`,
                  `Session signing secret (verify the forwarded requests with it): ${secret}`,
                  `Events are found within ${LOOK_BACK_MS / 1000} s of being recorded; Ctrl-C stops.`,
                ].join('\n'),
          );
        const stop = new AbortController();
        const abort = () => stop.abort();
        process.once('SIGINT', abort);
        process.once('SIGTERM', abort);
        try {
          await listen(
            {
              baseUrl,
              apiKey,
              forwardTo,
              ...(types ? { types } : {}),
              ...(options.monitor ? { monitorId: options.monitor } : {}),
              intervalMs,
              signal: stop.signal,
              onReady: ready,
              report: (report) => write(output.json ? JSON.stringify(report) : describe(report)),
            },
            secret,
          );
        } finally {
          process.off('SIGINT', abort);
          process.off('SIGTERM', abort);
        }
      });
    });
}
