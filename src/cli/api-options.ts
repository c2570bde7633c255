import { type Command, Option } from 'commander';
import { createFirmwatchClient, type FirmwatchClient } from '../kit/client.js';
import { DEFAULT_SERVICE_URL } from '../lib/service-url.js';
import { CliError } from './output.js';

/** The options of every command that is a client of the REST API (it opens no database). */
export interface ApiCommandOptions {
  apiKey?: string;
  baseUrl?: string;
}

export function addApiOptions(command: Command, scope: string): Command {
  return command
    .addOption(
      new Option('--api-key <key>', `an API key with ${scope} (default: FIRMWATCH_API_KEY)`),
    )
    .addOption(
      new Option(
        '--base-url <url>',
        `the API base URL (default: FIRMWATCH_URL, or ${DEFAULT_SERVICE_URL}/v1)`,
      ),
    );
}

export function httpUrl(value: string, option: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError('invalid_option', `${option} must be an http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError('invalid_option', `${option} must be an http:// or https:// URL`);
  }
  return url.toString();
}

/** The key and base URL a command talks to the API with, from its options or the environment. */
export function apiConnection(options: ApiCommandOptions): { apiKey: string; baseUrl: string } {
  const apiKey = options.apiKey ?? process.env.FIRMWATCH_API_KEY;
  if (!apiKey) throw new CliError('missing_api_key', 'give --api-key or set FIRMWATCH_API_KEY');
  const baseUrl = httpUrl(
    options.baseUrl ?? process.env.FIRMWATCH_URL ?? `${DEFAULT_SERVICE_URL}/v1`,
    '--base-url',
  );
  // openapi-fetch joins paths to the base as text: no trailing slash.
  return { apiKey, baseUrl: baseUrl.replace(/\/+$/, '') };
}

export function apiClient(options: ApiCommandOptions): FirmwatchClient {
  return createFirmwatchClient(apiConnection(options));
}
