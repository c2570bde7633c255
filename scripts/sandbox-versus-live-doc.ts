import type { IdentifierType } from '../src/formats/format-rule.js';
import { FORMAT_RULES } from '../src/formats/registry.js';
import {
  LIVE_COVERAGE_DIFFERS,
  liveCoverageDifference,
} from '../src/modules/checks/live-coverage-warning.js';
import type { CountryCapability } from '../src/modules/countries/countries.schemas.js';
import { buildCountryCapabilities } from '../src/modules/countries/countries.service.js';
import {
  defaultLiveCoverageOf,
  defaultLiveSearchOf,
  defaultLiveSourceCoverage,
  type LiveRegister,
} from '../src/sources/live-coverage.js';
import { type CountryFixtures, sandboxSource } from '../src/sources/sandbox/sandbox-source.js';
import type { Coverage } from '../src/sources/source-coverage.js';

/** One row of the table: what the sandbox and a live check (or search) give. */
export interface SandboxVersusLiveRow {
  country: string;
  /** An identifier type, or `company search`. */
  kind: IdentifierType | 'company search';
  sandbox: string;
  /** Live registry match (for search: company search), as GET /countries reports it. */
  liveMatch: Coverage;
  /** Live company legal status, as GET /countries reports it; absent for search. */
  liveLegalStatus?: Coverage;
  register: string;
  key: string;
  /** The sandbox check's live_coverage_differs message, when it carries one. */
  warning?: string;
}

const LEGAL_STATUS_ORDER = ['active', 'inactive', 'dissolved', 'liquidation', 'insolvency'];

/** What the fixtures answer for a type: each outcome they hold, matched with its legal statuses. */
function sandboxGives(country: CountryFixtures, type: IdentifierType): string | undefined {
  const entries = country.identifiers.filter((i) => i.identifier_type === type);
  if (entries.length === 0) return undefined;
  const statuses = new Set(
    entries
      .filter((e) => e.outcome === 'matched')
      .map((e) => country.companies.find((c) => c.key === e.companies?.[0])?.company_legal_status),
  );
  const has = (outcome: string) => entries.some((e) => e.outcome === outcome);
  const matched = LEGAL_STATUS_ORDER.filter((s) => statuses.has(s as never));
  return [
    ...(has('matched') ? [`\`matched\` (${matched.join(', ')})`] : []),
    ...['ambiguous', 'not_matched', 'unavailable'].filter(has).map((o) => `\`${o}\``),
    ...(has('invalid_format') ? ['invalid format'] : []),
  ].join(', ');
}

function keyText(register: LiveRegister | undefined, withoutKey: Coverage | undefined): string {
  if (!register?.keyVariables) return 'none';
  return `\`${register.keyVariables}\` (without it: \`${withoutKey ?? 'not_supported'}\`)`;
}

/**
 * The rows of "Sandbox versus live": per sandbox country, every identifier type the format rules,
 * the sandbox or live know there, and company search. The live columns are GET /countries's
 * capabilities (buildCountryCapabilities) over the default live configuration's coverage; the
 * warning is the one a sandbox check carries.
 */
export function sandboxVersusLiveRows(
  fixtures: readonly CountryFixtures[],
): SandboxVersusLiveRow[] {
  const sandboxCapabilities = buildCountryCapabilities(
    FORMAT_RULES,
    sandboxSource(fixtures).coverage,
  );
  const liveCapabilities = buildCountryCapabilities(FORMAT_RULES, defaultLiveSourceCoverage());
  const of = (capabilities: CountryCapability[], code: string) =>
    capabilities.find((c) => c.country_code === code);
  return fixtures.flatMap((country) => {
    const code = country.country_code;
    const live = of(liveCapabilities, code);
    const types = [
      ...new Set(
        [of(sandboxCapabilities, code), live].flatMap(
          (c) => c?.identifier_capabilities.map((i) => i.identifier_type) ?? [],
        ),
      ),
    ].sort();
    const rows = types.map((type): SandboxVersusLiveRow => {
      const capability = live?.identifier_capabilities.find((i) => i.identifier_type === type);
      const coverage = defaultLiveCoverageOf(code, type);
      const sandbox = sandboxGives(country, type);
      const warning = sandbox ? liveCoverageDifference(code, type) : undefined;
      return {
        country: code,
        kind: type,
        sandbox: sandbox ? `fixtures: ${sandbox}` : 'format only (registry `not_supported`)',
        liveMatch: capability?.registry_match ?? 'not_supported',
        liveLegalStatus: capability?.company_legal_status ?? 'not_supported',
        register:
          coverage.registryMatch === 'not_supported'
            ? 'none'
            : (coverage.register?.title ?? 'none'),
        key:
          coverage.registryMatch === 'not_supported'
            ? 'none'
            : keyText(coverage.register, coverage.withoutKey?.registryMatch),
        ...(warning ? { warning } : {}),
      };
    });
    const search = defaultLiveSearchOf(code);
    rows.push({
      country: code,
      kind: 'company search',
      sandbox: 'fixtures: by name, number and `city_or_state`',
      liveMatch: live?.company_search ?? 'not_supported',
      register: search.register?.title ?? 'none',
      key: keyText(search.register, search.withoutKey?.companySearch),
    });
    return rows;
  });
}

function warningText(row: SandboxVersusLiveRow): string {
  if (row.kind === 'company search') return 'none (a search has no warnings)';
  return row.warning ? `\`${LIVE_COVERAGE_DIFFERS}\`` : 'none';
}

/** The "Sandbox versus live" section of docs/sandbox.md. */
export function sandboxVersusLiveSection(fixtures: readonly CountryFixtures[]): string {
  const rows = sandboxVersusLiveRows(fixtures);
  const kind = (row: SandboxVersusLiveRow) =>
    row.kind === 'company search' ? 'company search' : `\`${row.kind}\``;
  const table = rows.map(
    (row) =>
      `| ${row.country} | ${kind(row)} | ${row.sandbox} | \`${row.liveMatch}\` | ${row.liveLegalStatus ? `\`${row.liveLegalStatus}\`` : ''} | ${row.register} | ${row.key} | ${warningText(row)} |`,
  );
  const warnings = rows
    .filter((row) => row.warning)
    .map((row) => `- **${row.country} ${kind(row)}**: ${row.warning}`);
  return `## Sandbox versus live

The sandbox answers every number of the types below from fixtures; a live key (\`svc_live_\`) gets only what the live company registers give. The live columns are what \`GET /v1/countries\` reports with a live key when every register is on and every key is set (the default \`LIVE_SOURCES\`; see [sources.md](sources.md)), generated from the coverage the live registers declare. Where live gives less than the fixtures, a sandbox check of a valid number carries a \`${LIVE_COVERAGE_DIFFERS}\` warning (dimension \`registry_match\`, not retryable) saying what a live check would give; its findings are the fixture's, unchanged.

| Country | Check | Sandbox gives | Live registry match (or search) | Live legal status | Live register | Key it needs | Sandbox warning |
|---|---|---|---|---|---|---|---|
${table.join('\n')}

What each of those sandbox checks says:

${warnings.join('\n')}
`;
}
