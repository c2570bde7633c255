/**
 * `npm run test:sources:real [-- <source> ...]`: one well-known lookup per live register, against
 * the real upstream, through the same adapter, upstream client (timeouts, budget, retries, circuit
 * breaker) and format rules a live check uses, without the database or the record cache. Opt-in
 * and outside `npm test`: the registers change, rate-limit and go down on their own schedule, and
 * our machines have no internet.
 *
 * Each register is first probed with one request (3 s timeout); one that cannot be reached is
 * skipped with one line. A reachable register that answers wrongly (another company or status, not
 * found, or an answer the adapter cannot read) fails the run (exit 1). A reachable register that is
 * rate-limiting, erroring or slow is reported but does not fail it: that is the upstream's state,
 * not a wrong answer. Base URLs and the registers' credentials come from the service's
 * configuration (`<NAME>_BASE_URL`, and the credentials each register lists, such as
 * `COMPANIES_HOUSE_API_KEY`); a register whose credentials are not set is skipped.
 */
import { Agent, request } from 'undici';
import { ConfigError, loadConfig } from '../src/config.js';
import type { IdentifierType } from '../src/formats/format-rule.js';
import { checkFormat } from '../src/formats/registry.js';
import { systemClock } from '../src/lib/clock.js';
import { memoryTokenBuckets } from '../src/lib/token-bucket.js';
import { COVERAGE_ONLY_DATABASE } from '../src/sources/live-coverage.js';
import { LIVE_SOURCE_NAMES, type LiveSourceName } from '../src/sources/live-source-names.js';
import { LIVE_SOURCES, type LiveSourcesConfig } from '../src/sources/live-sources.js';
import type { CompanyLegalStatus, CompanyRecord } from '../src/sources/registry-source.js';
import {
  createUpstreamClient,
  DEFAULT_UPSTREAM_POLICY,
  type UnavailableReason,
} from '../src/sources/upstream/upstream-client.js';

const PROBE_TIMEOUT_MS = 3000;

interface SmokeCase {
  countryCode: string;
  identifierType: IdentifierType;
  /** As a user would type it; normalized by the format rules, as a check does. */
  identifier: string;
  /** Part of the company's legal name, compared with case and accents folded. */
  name: string;
  status: CompanyLegalStatus;
}

/**
 * Long-lived, listed companies whose numbers and status are public and stable. GLEIF matches a
 * German number without its court, so an `ambiguous` answer that includes the company is right.
 */
// The mirrors (EDGAR, the e-Business Register, KBO) answer from the database: no register to call here.
const CASES: Record<Exclude<LiveSourceName, 'edgar' | 'ariregister' | 'kbo'>, SmokeCase> = {
  companies_house: {
    countryCode: 'GB',
    identifierType: 'registration_number',
    identifier: '00445790',
    name: 'tesco',
    status: 'active',
  },
  brreg: {
    countryCode: 'NO',
    identifierType: 'registration_number',
    identifier: '923609016',
    name: 'equinor',
    status: 'active',
  },
  recherche_entreprises: {
    countryCode: 'FR',
    identifierType: 'registration_number',
    identifier: '632012100',
    name: 'oreal',
    status: 'active',
  },
  ares: {
    countryCode: 'CZ',
    identifierType: 'registration_number',
    identifier: '45274649',
    name: 'cez',
    status: 'active',
  },
  gleif: {
    countryCode: 'DE',
    identifierType: 'registration_number',
    identifier: 'Amtsgericht Mannheim HRB 719915',
    name: 'sap',
    status: 'active',
  }, // Listed on the Warsaw Stock Exchange since 2000; KRS number as in its current extract.
  krs: {
    countryCode: 'PL',
    identifierType: 'registration_number',
    identifier: '0000006865',
    name: 'cd projekt',
    status: 'active',
  },
  // Novo Nordisk A/S, listed in Copenhagen; its CVR number as datacvr.virk.dk shows it.
  cvr: {
    countryCode: 'DK',
    identifierType: 'registration_number',
    identifier: '24256790',
    name: 'novo nordisk',
    status: 'active',
  },
  // ORLEN S.A.: the NIP and REGON (610188201) the GusApi client's integration tests look up.
  regon: {
    countryCode: 'PL',
    identifierType: 'vat_number',
    identifier: 'PL7740001454',
    name: 'orlen',
    status: 'active',
  },
  prh: {
    countryCode: 'FI',
    identifierType: 'registration_number',
    identifier: '0112038-9',
    name: 'nokia',
    status: 'active',
  },
  // A federal office, in the UID register since it began (its UID entry is definitive).
  uid: {
    countryCode: 'CH',
    identifierType: 'registration_number',
    identifier: 'CHE-116.068.369',
    name: 'swisstopo',
    status: 'active',
  },
  // AB Volvo, registered since 1915; needs BOLAGSVERKET_CLIENT_ID and BOLAGSVERKET_CLIENT_SECRET.
  bolagsverket: {
    countryCode: 'SE',
    identifierType: 'registration_number',
    identifier: '556012-5790',
    name: 'volvo',
    status: 'active',
  },
};

/** The upstream's state rather than a wrong answer: reported, but the run does not fail. */
const TRANSIENT: ReadonlySet<UnavailableReason> = new Set([
  'timeout',
  'connection_failed',
  'rate_limited',
  'server_error',
  'budget_exhausted',
  'circuit_open',
]);

const fold = (text: string) =>
  text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
const say = (source: LiveSourceName, text: string) =>
  console.log(`sources-smoke: ${source} ${oneLine(text)}`);

/** Why the upstream cannot be reached, or undefined when it answers anything at all. */
async function unreachable(baseUrl: string, dispatcher: Agent): Promise<string | undefined> {
  try {
    const response = await request(baseUrl, {
      method: 'HEAD',
      dispatcher,
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    await response.body.dump();
    return undefined;
  } catch (error) {
    const { name, code, message } = error as { name?: string; code?: string; message?: string };
    if (name === 'TimeoutError' || /TIMEOUT/.test(code ?? ''))
      return `no answer within ${PROBE_TIMEOUT_MS / 1000} s`;
    if (message && (!code || message.includes(code))) return message;
    return [code, message].filter(Boolean).join(' ') || String(error);
  }
}

function describeCompany(company: CompanyRecord): string {
  const raw = company.raw_company_legal_status ? ` (${company.raw_company_legal_status})` : '';
  return `${company.company_legal_status}${raw}, "${company.legal_name}"`;
}

/** Runs one case; returns whether the run must fail. */
async function smoke(
  source: LiveSourceName,
  config: LiveSourcesConfig,
  probe: Agent,
): Promise<boolean> {
  if (source === 'edgar' || source === 'ariregister' || source === 'kbo') {
    say(source, 'skipped: a mirror, never called per lookup (npx firmwatch mirror status)');
    return false;
  }
  const smokeCase = CASES[source];
  const missing = (LIVE_SOURCES[source].credentials ?? []).filter(
    (variable) => !config.credentials[variable],
  );
  if (missing.length > 0) {
    say(source, `skipped: ${missing.join(' and ')} not set`);
    return false;
  }
  const baseUrl = config.baseUrls[source];
  const why = await unreachable(baseUrl, probe);
  if (why) {
    say(source, `skipped: upstream unreachable (${why})`);
    return false;
  }

  const format = checkFormat(smokeCase.countryCode, smokeCase.identifierType, smokeCase.identifier);
  const asked = `${smokeCase.countryCode} ${smokeCase.identifierType} ${format.normalized}`;
  if (format.status === 'invalid') {
    say(source, `FAILED: ${asked}: the smoke case's number fails its own format rule`);
    return true;
  }
  const definition = LIVE_SOURCES[source];
  if (definition.budget === 'mirror') return false;
  const client = createUpstreamClient(
    { ...DEFAULT_UPSTREAM_POLICY, name: source, budget: definition.budget },
    { clock: systemClock, buckets: memoryTokenBuckets() },
  );
  try {
    const adapter = definition.build({
      client,
      baseUrl,
      credentials: config.credentials,
      clock: systemClock,
      // Not a mirror (returned above): no database is read.
      database: COVERAGE_ONLY_DATABASE,
    });
    const result = await adapter.lookup({
      countryCode: smokeCase.countryCode,
      identifierType: smokeCase.identifierType,
      normalized: format.normalized,
    });
    if (result.outcome === 'unavailable') {
      const reason = result.reason.split(':')[0] as UnavailableReason;
      if (TRANSIENT.has(reason)) {
        say(source, `unavailable: ${asked}: ${result.reason} (the upstream's state; not counted)`);
        return false;
      }
      say(source, `FAILED: ${asked}: unavailable: ${result.reason}`);
      return true;
    }
    const companies =
      result.outcome === 'matched'
        ? [result.company]
        : result.outcome === 'ambiguous'
          ? result.companies
          : [];
    const company = companies.find((c) => fold(c.legal_name).includes(smokeCase.name));
    const answered = `${result.outcome}, ${companies.map(describeCompany).join('; ') || 'no company'}`;
    if (!company || company.company_legal_status !== smokeCase.status) {
      say(
        source,
        `FAILED: ${asked}: expected a company named like "${smokeCase.name}", ${smokeCase.status}; got ${answered}`,
      );
      return true;
    }
    const register = result.source?.source_name ?? adapter.info.source_name ?? source;
    say(source, `ok: ${asked} -> ${result.outcome}, ${describeCompany(company)} (${register})`);
    return false;
  } finally {
    await client.close();
  }
}

async function main(): Promise<number> {
  let config: LiveSourcesConfig;
  try {
    config = loadConfig().liveSources;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`sources-smoke: ${error.message}`);
    return 2;
  }
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !(LIVE_SOURCE_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    console.error(
      `sources-smoke: unknown source ${unknown.join(', ')}; known: ${LIVE_SOURCE_NAMES.join(', ')}`,
    );
    return 2;
  }
  const sources = LIVE_SOURCE_NAMES.filter((name) => wanted.length === 0 || wanted.includes(name));
  const probe = new Agent({
    connect: { timeout: PROBE_TIMEOUT_MS },
    headersTimeout: PROBE_TIMEOUT_MS,
    bodyTimeout: PROBE_TIMEOUT_MS,
  });
  let failed = false;
  try {
    for (const source of sources) if (await smoke(source, config, probe)) failed = true;
  } finally {
    await probe.close();
  }
  return failed ? 1 : 0;
}

process.exitCode = await main();
