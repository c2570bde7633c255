import type { IdentifierType } from '../../formats/format-rule.js';
import {
  defaultLiveCoverageOf,
  defaultLiveRegisters,
  type LiveCoverage,
} from '../../sources/live-coverage.js';
import type { Warning } from './checks.schemas.js';

export const LIVE_COVERAGE_DIFFERS = 'live_coverage_differs';

const FORMAT_ONLY =
  'the format finding only (registry_match_status and company_legal_status not_supported)';

function findingsOf(coverage: LiveCoverage): string {
  if (coverage.registryMatch === 'not_supported' || !coverage.register) return FORMAT_ONLY;
  return `registry match ${coverage.registryMatch} and legal status ${coverage.companyLegalStatus} from ${coverage.register.title}`;
}

/** What live gives for the country's other identifier types, as a way round one it does not cover. */
function otherTypes(country: string, type: IdentifierType): string {
  const others = defaultLiveRegisters()
    .flatMap((r) => r.source.coverage.filter((c) => c.countryCode === country))
    .flatMap((c) => c.identifiers.map((i) => i.identifierType))
    .filter((other, at, all) => other !== type && all.indexOf(other) === at)
    .map((other) => ({ other, live: defaultLiveCoverageOf(country, other) }))
    .filter(({ live }) => live.registryMatch !== 'not_supported')
    .map(({ other, live }) => {
      const key = live.withoutKey ? ` where ${live.register?.keyVariables} is set` : '';
      return `a ${other} gets ${findingsOf(live)}${key}`;
    });
  return others.length > 0 ? ` In live, ${others.join('; ')}.` : '';
}

/** Why live gives no registry finding: the register's own words, or that none covers it. */
function whyNotSupported(country: string, type: IdentifierType, live: LiveCoverage): string {
  if (live.notSupportedReason) return live.notSupportedReason;
  // Checks never call a tax authority (contract section 1), the only other source of such numbers.
  const taxAuthority =
    type === 'registration_number' ? '' : ', and checks never call a tax authority';
  return `No register firmwatch reads in live covers ${type} numbers in ${country}${taxAuthority}.`;
}

/**
 * What a live check of this country and identifier type gives (with every register firmwatch
 * has on), when it is less than the sandbox's fixtures give, which is every registry finding for
 * every number: no register covers it, a register covers it only in part, or its register is off
 * without a key. Undefined when live gives the same. The coverage is what the live registers
 * declare, so no register is called.
 */
export function liveCoverageDifference(country: string, type: IdentifierType): string | undefined {
  const live = defaultLiveCoverageOf(country, type);
  const subject = `A live check (svc_live_ key) of a ${country} ${type}`;
  const parts: string[] = [];
  if (live.registryMatch === 'not_supported' || !live.register) {
    parts.push(
      `${subject} gives ${FORMAT_ONLY}.`,
      `${whyNotSupported(country, type, live)}${otherTypes(country, type)}`,
    );
  } else {
    const { register, withoutKey } = live;
    const keyed = withoutKey
      ? ` only where the service runs with ${register.keyVariables} set; without it, ${findingsOf(withoutKey)}`
      : '';
    const partial = live.registryMatch !== 'supported' || live.companyLegalStatus !== 'supported';
    if (!keyed && !partial) return undefined;
    parts.push(`${subject} gets ${findingsOf(live)}${keyed}.`);
    if (partial) {
      parts.push(
        register.partialCoverage ??
          `${register.title} does not hold every company or every status of this kind.`,
      );
    }
  }
  parts.push(`The sandbox answers ${country} ${type} checks from fixtures, which are test data.`);
  return parts.join(' ');
}

/**
 * The message for each country and type, worked out once: it depends only on the default
 * registers' declared coverage, which never changes in a running process, and building it walks
 * every register (about 3 % of a sandbox check's CPU when done per check).
 */
const differences = new Map<string, string | undefined>();

/** The sandbox's warning that live will not give what its fixtures gave, if it will not. */
export function liveCoverageWarning(country: string, type: IdentifierType): Warning | undefined {
  const key = `${country} ${type}`;
  let message = differences.get(key);
  if (message === undefined && !differences.has(key)) {
    message = liveCoverageDifference(country, type);
    differences.set(key, message);
  }
  return message
    ? { dimension: 'registry_match', code: LIVE_COVERAGE_DIFFERS, message, retryable: false }
    : undefined;
}
