import type { CountryCapability, FirmwatchClient } from '../kit/client.js';
import { CliError } from './output.js';
import { isBadRow, type RowKind, readSupplierRows } from './supplier-rows.js';

export interface DryRunCountry {
  country_code: string;
  rows: number;
  /** Rows whose identifier type a register covers in this country (GET /countries). */
  register_rows: number;
}

export interface DryRun {
  environment: 'live' | 'sandbox';
  rows: number;
  bad_rows: number;
  countries: DryRunCountry[];
  /**
   * The most the run can cost: a live check costs one credit only when a register answered, so
   * every row a register covers may cost one, and no other row can (sandbox costs nothing).
   */
  max_credits: number;
}

/**
 * `--dry-run`: what a run would send, from the file and `GET /countries` alone, before anything is
 * charged. A row counts towards a register when its country declares a registry match other than
 * `not_supported` for its identifier type.
 */
export async function dryRun(
  file: string,
  client: FirmwatchClient,
  apiKey: string,
  kind: RowKind,
): Promise<DryRun> {
  const { data, error } = await client.GET('/countries');
  if (!data) throw new CliError(error?.code ?? 'failed', error?.detail ?? 'GET /countries failed');
  const capabilities = new Map<string, CountryCapability>(
    data.data.map((country) => [country.country_code, country]),
  );
  const environment = apiKey.startsWith('svc_live_') ? 'live' : 'sandbox';
  const countries = new Map<string, DryRunCountry>();
  const result: DryRun = { environment, rows: 0, bad_rows: 0, countries: [], max_credits: 0 };
  for await (const row of readSupplierRows(file, kind)) {
    result.rows += 1;
    if (isBadRow(row)) {
      result.bad_rows += 1;
      continue;
    }
    const code = row.body.country_code;
    const entry = countries.get(code) ?? { country_code: code, rows: 0, register_rows: 0 };
    countries.set(code, entry);
    entry.rows += 1;
    const covered = capabilities
      .get(code)
      ?.identifier_capabilities.some(
        (capability) =>
          capability.identifier_type === row.body.identifier_type &&
          capability.registry_match !== 'not_supported',
      );
    if (covered) entry.register_rows += 1;
  }
  result.countries = [...countries.values()].sort((a, b) =>
    a.country_code.localeCompare(b.country_code),
  );
  result.max_credits =
    environment === 'live'
      ? result.countries.reduce((total, country) => total + country.register_rows, 0)
      : 0;
  return result;
}
