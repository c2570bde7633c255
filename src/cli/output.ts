import { Option } from 'commander';

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

export const jsonOption = () => new Option('--json', 'print the result as one JSON object');
