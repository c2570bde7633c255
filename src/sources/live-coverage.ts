import type { DatabaseHandle } from '../db/database.js';
import type { IdentifierType } from '../formats/format-rule.js';
import { systemClock } from '../lib/clock.js';
import {
  LIVE_SOURCE_DEFAULT_BASE_URLS,
  LIVE_SOURCE_NAMES,
  LIVE_SOURCE_TITLES,
  type LiveSourceName,
} from './live-source-names.js';
import { LIVE_SOURCES } from './live-sources.js';
import type { RegistrySource } from './registry-source.js';
import { mergeCoverage } from './routed-source.js';
import type { Coverage, SourceCoverage } from './source-coverage.js';
import { uncalledClient } from './upstream/upstream-client.js';

const COVERAGE_ONLY_CLIENT = uncalledClient('coverage only: no register is called');

/** One live register as the default live configuration has it, for what it declares. */
export interface LiveRegister {
  name: LiveSourceName;
  title: string;
  /** The variables that must hold its credentials ("A and B"), when it is off without them. */
  keyVariables?: string;
  /** Why what it declares `partial` is partial. */
  partialCoverage?: string;
  source: RegistrySource;
}

/** A database that is never read: the coverage of a mirror built on it is that of no data yet. */
export const COVERAGE_ONLY_DATABASE = new Proxy({} as DatabaseHandle, {
  get() {
    throw new Error('coverage only: no database is read');
  },
});

let defaults: readonly LiveRegister[] | undefined;

/**
 * Every live register, in the default routing order (`LIVE_SOURCES` unset), each with its key:
 * what live gives with every register firmwatch has on. A new entry of LIVE_SOURCES is in it.
 */
export function defaultLiveRegisters(): readonly LiveRegister[] {
  defaults ??= LIVE_SOURCE_NAMES.map((name) => {
    const definition = LIVE_SOURCES[name];
    return {
      name,
      title: LIVE_SOURCE_TITLES[name],
      ...(definition.credentials?.length
        ? { keyVariables: definition.credentials.join(' and ') }
        : {}),
      ...(definition.partialCoverage ? { partialCoverage: definition.partialCoverage } : {}),
      source: definition.build({
        client: COVERAGE_ONLY_CLIENT,
        baseUrl: LIVE_SOURCE_DEFAULT_BASE_URLS[name],
        credentials: Object.fromEntries(
          (definition.credentials ?? []).map((variable) => [variable, 'coverage-only']),
        ),
        clock: systemClock,
        database: COVERAGE_ONLY_DATABASE,
      }),
    };
  });
  return defaults;
}

/**
 * The default live configuration's coverage, merged as routing merges it: what GET /countries
 * reports with every register on and every key set.
 */
export function defaultLiveSourceCoverage(): SourceCoverage[] {
  return mergeCoverage(defaultLiveRegisters().map((register) => register.source));
}

/** What live gives for one country and identifier type. */
export interface LiveCoverage {
  registryMatch: Coverage;
  companyLegalStatus: Coverage;
  /** The register asked: the first, in routing order, that declares the type for the country. */
  register?: LiveRegister;
  /** What live gives when that register's key is not set, when it needs one. */
  withoutKey?: LiveCoverage;
  /** Why no register gives a finding, when a register says why. */
  notSupportedReason?: string;
}

function coverageAmong(
  registers: readonly LiveRegister[],
  countryCode: string,
  identifierType: IdentifierType,
): LiveCoverage {
  // The same choice as mergeCoverage (and so GET /countries): the first register to declare it.
  for (const register of registers) {
    const entry = register.source.coverage
      .find((c) => c.countryCode === countryCode)
      ?.identifiers.find((i) => i.identifierType === identifierType);
    if (!entry) continue;
    const covered: LiveCoverage = {
      registryMatch: entry.registryMatch,
      companyLegalStatus: entry.companyLegalStatus,
      register,
    };
    if (entry.registryMatch === 'not_supported') return withReason(covered);
    if (!register.keyVariables) return covered;
    const keyless = registers.filter((r) => r.keyVariables !== register.keyVariables);
    return { ...covered, withoutKey: coverageAmong(keyless, countryCode, identifierType) };
  }
  return withReason({ registryMatch: 'not_supported', companyLegalStatus: 'not_supported' });

  function withReason(coverage: LiveCoverage): LiveCoverage {
    const reason = registers
      .map((r) => r.source.notSupportedReason?.(countryCode, identifierType))
      .find(Boolean);
    return reason ? { ...coverage, notSupportedReason: reason } : coverage;
  }
}

/** What a live check of this country and identifier type gives with the default configuration. */
export function defaultLiveCoverageOf(
  countryCode: string,
  identifierType: IdentifierType,
): LiveCoverage {
  return coverageAmong(defaultLiveRegisters(), countryCode.toUpperCase(), identifierType);
}

/** What a live company search in a country gives, chosen as mergeCoverage chooses it. */
export interface LiveSearchCoverage {
  companySearch: Coverage;
  register?: LiveRegister;
  /** What live gives when that register's key is not set, when it needs one. */
  withoutKey?: LiveSearchCoverage;
}

function searchAmong(registers: readonly LiveRegister[], countryCode: string): LiveSearchCoverage {
  for (const register of registers) {
    const coverage = register.source.coverage.find((c) => c.countryCode === countryCode);
    if (!coverage || coverage.companySearch === 'not_supported') continue;
    const found: LiveSearchCoverage = { companySearch: coverage.companySearch, register };
    if (!register.keyVariables) return found;
    const keyless = registers.filter((r) => r.keyVariables !== register.keyVariables);
    return { ...found, withoutKey: searchAmong(keyless, countryCode) };
  }
  return { companySearch: 'not_supported' };
}

/** What a live company search in this country gives with the default configuration. */
export function defaultLiveSearchOf(countryCode: string): LiveSearchCoverage {
  return searchAmong(defaultLiveRegisters(), countryCode.toUpperCase());
}
