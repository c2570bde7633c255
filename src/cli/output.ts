import { Command, Option } from 'commander';

/**
 * Every command prints either human text or, with --json, exactly one JSON object on stdout.
 * Failures follow the same rule: `{"error": {"code", "message"}}` with --json, one line otherwise.
 */
export interface CommandOutput {
  json: boolean;
}

export function printResult(output: CommandOutput, result: object, human: string): void {
  process.stdout.write(output.json ? `${JSON.stringify(result)}\n` : `${human}\n`);
}

export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function printError(output: CommandOutput, code: string, message: string): void {
  if (output.json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
  else process.stderr.write(`firmwatch: ${message}\n`);
}

/** How main() runs a command body: failures become the command's error output and exit code 1. */
export type RunCommand = (output: CommandOutput, body: () => Promise<void>) => Promise<void>;

/** A RunCommand that names each failure as `describe` says. */
export function commandRunner(
  describe: (error: unknown) => { code: string; message: string },
): RunCommand {
  return async (output, body) => {
    try {
      await body();
    } catch (error) {
      const { code, message } = describe(error);
      printError(output, code, message);
      process.exitCode = 1;
    }
  };
}

/** The program every command hangs from, the full CLI's and the API client's alike. */
export function rootCommand(json: boolean, version: string): Command {
  const program = new Command('firmwatch')
    .description('Company-identifier check and monitoring service.')
    .version(version)
    .exitOverride()
    // With --json, a usage error is reported as one JSON object by main(), not as text.
    .configureOutput({ writeErr: (text) => void (json || process.stderr.write(text)) });
  if (!json) program.showHelpAfterError();
  return program;
}

export const jsonOption = () => new Option('--json', 'print the result as one JSON object');
