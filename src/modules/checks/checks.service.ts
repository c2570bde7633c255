import type { Kysely } from 'kysely';
import type { Database, UsageSource } from '../../db/schema.js';
import type { FormatOutcome, IdentifierType } from '../../formats/format-rule.js';
import { checkFormat } from '../../formats/registry.js';
import type { Page, PageRequest, Paginator } from '../../http/pagination.js';
import { toTimestamp } from '../../lib/clock.js';
import { isIdOf } from '../../lib/ids.js';
import { DomainProblem } from '../../lib/problem.js';
import type { CompanyRecord, LookupResult, RegistrySource } from '../../sources/registry-source.js';
import { foldText } from '../../sources/source-text.js';
import type { Principal } from '../accounts/principal.js';
import type { Company } from '../companies/companies.schemas.js';
import {
  type CompaniesDeps,
  type LastWrites,
  runLastWrites,
  saveCompanySnapshots,
  scopeOf,
} from '../companies/companies.service.js';
import { startUsage, type UsageOperation } from '../usage/usage.service.js';
import type { Check, CheckCreateRequest, Evidence, Warning } from './checks.schemas.js';
import { findCheckBody, insertCheck, listCheckRows } from './checks.store.js';
import { sameCompanyName } from './company-name.js';
import { liveCoverageWarning } from './live-coverage-warning.js';

type RegistryFindings = Pick<Check, 'registry_match_status' | 'company_legal_status'> & {
  company?: Company;
  evidence: Evidence[];
  warnings: Warning[];
};

/**
 * Checks never call a tax authority (contract section 1). For numbers a tax authority issues the
 * finding is `not_supported`; for company register numbers it does not apply.
 */
function taxAuthorityStatus(type: IdentifierType): Check['tax_authority_status'] {
  return type === 'registration_number' ? 'not_applicable' : 'not_supported';
}

/** Says exactly what is not covered: this identifier type in this country, in this environment. */
function registryNotSupported(
  source: RegistrySource,
  principal: Principal,
  country: string,
  type: IdentifierType,
  normalized?: string,
): RegistryFindings {
  const covered = source.coverage.find((c) => c.countryCode === country);
  const typesHere = covered?.identifiers.map((i) => i.identifierType) ?? [];
  const countries = source.coverage.map((c) => c.countryCode).join(', ');
  const reason = source.notSupportedReason?.(country, type, normalized);
  const where =
    principal.environment === 'live'
      ? (reason ?? `No live registry source covers ${type} numbers in ${country}.`)
      : typesHere.length > 0
        ? `The sandbox has no registry fixtures for ${type} numbers in ${country}; there it covers ${typesHere.join(' and ')}.`
        : `The sandbox has registry fixtures for ${countries} only; ${country} is not one of them.`;
  return {
    registry_match_status: 'not_supported',
    company_legal_status: 'not_supported',
    evidence: [],
    warnings: [
      {
        dimension: 'registry_match',
        code: 'registry_not_supported',
        message: `${where} The format was still checked.`,
        retryable: false,
      },
    ],
  };
}

/** How many of an ambiguous number's companies a check names (and stores). */
const AMBIGUOUS_NAMED = 5;

/**
 * Names the companies that carry an ambiguous number and says which search tells them apart: a
 * search by the number and `city_or_state` does when the register gives each a different city
 * (the search filters the number's companies by city); otherwise no search does, and the caller
 * chooses by id.
 */
function ambiguousMessage(all: readonly CompanyRecord[], named: readonly Company[]): string {
  const list = named.map((c) => `"${c.legal_name}" (${c.id})`).join(', ');
  const more = all.length > named.length ? `, and ${all.length - named.length} more` : '';
  const cities = all.map((c) => c.city_or_state);
  const distinct = new Set(cities.map((c) => (c === undefined ? undefined : foldText(c))));
  const apart =
    cities.every((c) => c !== undefined) && distinct.size === all.length
      ? `POST /companies/search with this registration_number and city_or_state (${cities.join(', ')}) tells them apart.`
      : 'The register gives them no different city, so no search tells them apart: choose by id (GET /companies/{id}).';
  return `${all.length} companies in the registry carry this number: ${list}${more}. ${apart}`;
}

async function registryFindings(
  db: Kysely<Database>,
  deps: CompaniesDeps,
  principal: Principal,
  source: RegistrySource,
  lookup: LookupResult,
  now: Date,
  last: LastWrites,
): Promise<RegistryFindings> {
  // The register that holds the record and when it was fetched from it, which for a cached record
  // is earlier than now.
  const origin = (lookup.outcome !== 'unavailable' && lookup.source) || source.info;
  const fetchedAt = (lookup.outcome !== 'unavailable' && lookup.retrievedAt) || now;
  const evidence = (dimension: Evidence['dimension'], raw_status?: string): Evidence => ({
    dimension,
    source_type: origin.source_type,
    ...(origin.source_name ? { source_name: origin.source_name } : {}),
    ...(origin.source_url ? { source_url: origin.source_url } : {}),
    ...(raw_status ? { raw_status } : {}),
    retrieved_at: toTimestamp(fetchedAt),
  });
  switch (lookup.outcome) {
    case 'matched': {
      const [company] = await saveCompanySnapshots(
        db,
        deps,
        scopeOf(principal),
        origin,
        [lookup.company],
        fetchedAt,
        last,
      );
      return {
        registry_match_status: 'matched',
        company_legal_status: lookup.company.company_legal_status,
        ...(company ? { company } : {}),
        evidence: [
          evidence('registry_match', 'matched'),
          ...(lookup.notes ?? []).map((note) => evidence('registry_match', note.raw_status)),
          evidence('company_legal', lookup.company.raw_company_legal_status),
        ],
        warnings: [
          ...(lookup.matchNote
            ? [
                {
                  dimension: 'registry_match',
                  code: 'matched_through_embedded_number',
                  message: lookup.matchNote,
                  retryable: false,
                },
              ]
            : []),
          ...(lookup.company.legal_name_withheld
            ? [
                {
                  dimension: 'registry_match',
                  code: 'legal_name_not_published',
                  message: `The register holds this company but does not publish its name (${lookup.company.legal_name_withheld}); legal_name says so instead of giving one, and company_name was not compared.`,
                  retryable: false,
                },
              ]
            : []),
          ...(lookup.notes ?? []).map((note) => ({
            dimension: 'registry_match',
            code: note.code,
            message: note.message,
            retryable: false,
          })),
        ],
      };
    }
    case 'ambiguous': {
      // The candidates are stored as companies, as a search stores its results, so the warning
      // can name each by a `cmp_` id the caller can fetch (GET /companies/{id}).
      const named = await saveCompanySnapshots(
        db,
        deps,
        scopeOf(principal),
        origin,
        lookup.companies.slice(0, AMBIGUOUS_NAMED),
        fetchedAt,
        last,
      );
      return {
        registry_match_status: 'ambiguous',
        // Several companies, no one legal status: that finding was not made.
        company_legal_status: 'not_checked',
        evidence: [evidence('registry_match', 'ambiguous')],
        warnings: [
          {
            dimension: 'registry_match',
            code: 'registry_ambiguous',
            message: ambiguousMessage(lookup.companies, named),
            retryable: false,
          },
        ],
      };
    }
    case 'not_matched':
      return {
        registry_match_status: 'not_matched',
        // No associated company, so no legal status to report; this is not a negative finding.
        company_legal_status: 'not_applicable',
        evidence: [evidence('registry_match', 'not_matched')],
        warnings: [],
      };
    case 'unavailable':
      // Kept as unavailable: an outage is never turned into not_matched or invalid.
      return {
        registry_match_status: 'unavailable',
        company_legal_status: 'unavailable',
        evidence: [evidence('registry_match', 'unavailable')],
        warnings: [
          {
            dimension: 'registry_match',
            code: 'registry_unavailable',
            message: `The company registry did not answer (${lookup.reason}); retry the check later.`,
            retryable: true,
          },
        ],
      };
  }
}

export interface ChecksDeps extends CompaniesDeps {
  /** The registry source of the caller's environment. */
  sourceFor(principal: Principal): RegistrySource;
}

/** What a check learns without the database: its format finding and the registry's answer. */
export interface IdentifierLookup {
  country: string;
  format: FormatOutcome;
  source: RegistrySource;
  /** Absent when the registry was not asked (invalid format, or no source for the country). */
  lookup?: LookupResult;
}

/**
 * The format rules and the registry lookup of a check. Kept out of the check's unit of work, so
 * that a registry's answer is never awaited while holding the database's writer.
 */
export async function lookUpIdentifier(
  deps: ChecksDeps,
  principal: Principal,
  request: CheckCreateRequest,
  recheck?: number,
): Promise<IdentifierLookup> {
  const country = request.country_code.toUpperCase();
  const format = checkFormat(country, request.identifier_type, request.identifier);
  const source = deps.sourceFor(principal);
  if (
    format.status === 'invalid' ||
    !source.supports(country, request.identifier_type, format.normalized)
  ) {
    return { country, format, source };
  }
  const lookup = await source.lookup({
    countryCode: country,
    identifierType: request.identifier_type,
    normalized: format.normalized,
    ...(recheck !== undefined ? { recheck } : {}),
  });
  return { country, format, source, lookup };
}

/** Who asked for a check and what it is billed as: a check, a monitor baseline, run or recheck. */
export interface CheckChannel {
  source: UsageSource;
  operation: UsageOperation;
}

export const API_CHECK: CheckChannel = { source: 'api', operation: 'checks.create' };

/**
 * Computes the four findings separately, stores the check and returns it. Every check is made
 * here, whoever asks (POST /checks, a monitor's baseline, run or scheduled recheck).
 */
export async function createCheck(
  db: Kysely<Database>,
  deps: ChecksDeps,
  principal: Principal,
  request: CheckCreateRequest,
  lookup: IdentifierLookup,
  channel: CheckChannel,
): Promise<Check> {
  const { check, last } = await writeCheck(db, deps, principal, request, lookup, channel);
  await runLastWrites(db, last);
  return check;
}

/**
 * `createCheck` without its last writes, which the caller runs as the last writes of its unit of
 * work (`runLastWrites`): the refresh of a known company, the credit debit and the usage totals,
 * rows that other checks of the workspace write too.
 */
export async function writeCheck(
  db: Kysely<Database>,
  deps: ChecksDeps,
  principal: Principal,
  request: CheckCreateRequest,
  { country, format, source, lookup }: IdentifierLookup,
  channel: CheckChannel,
): Promise<{ check: Check; last: LastWrites }> {
  // Charged by what the register answered (billableUnits): a live check without paid access is a
  // 402 here, one the balance cannot pay a 402 when the usage settles, and a later failure rolls
  // everything back.
  const usage = await startUsage(db, deps, {
    workspaceId: principal.workspaceId,
    environment: principal.environment,
    source: channel.source,
    operation: channel.operation,
    outcome: format.status === 'invalid' ? 'not_checked' : (lookup?.outcome ?? 'not_supported'),
  });
  const { credits_used } = usage;
  const last: LastWrites = [];
  const now = toTimestamp(deps.clock.now());
  const warnings: Warning[] = [];
  const evidence: Evidence[] = [];

  if (format.status === 'not_supported') {
    warnings.push({
      dimension: 'format',
      code: 'format_not_supported',
      message: `No format rule is published for ${request.identifier_type} in ${country}; the number's format was not checked.`,
      retryable: false,
    });
  } else {
    evidence.push({
      dimension: 'format',
      source_type: 'vatfind_rules',
      source_name: 'firmwatch format rules',
      ...(format.status === 'invalid' ? { raw_status: `invalid_${format.reason}` } : {}),
      retrieved_at: now,
    });
  }
  if (format.status === 'valid' && format.notice) {
    // The number checked is not the one typed (a SIRET read as its SIREN): the caller must know.
    warnings.push({
      dimension: 'format',
      code: 'read_as_carried_number',
      message: format.notice,
      retryable: false,
    });
  }

  let registry: RegistryFindings;
  if (format.status === 'invalid') {
    // An invalid number is not looked up: the registry findings were not made.
    registry = {
      registry_match_status: 'not_checked',
      company_legal_status: 'not_checked',
      evidence: [],
      warnings: [
        {
          dimension: 'format',
          code: 'format_invalid',
          message: `The number ${format.message}; the registry was not queried.`,
          retryable: false,
        },
      ],
    };
  } else if (!lookup) {
    registry = registryNotSupported(
      source,
      principal,
      country,
      request.identifier_type,
      format.normalized,
    );
  } else {
    registry = await registryFindings(db, deps, principal, source, lookup, deps.clock.now(), last);
  }

  if (
    request.company_name &&
    registry.company &&
    !(lookup?.outcome === 'matched' && lookup.company.legal_name_withheld) &&
    !sameCompanyName(request.company_name, registry.company.legal_name)
  ) {
    warnings.push({
      dimension: 'registry_match',
      code: 'company_name_mismatch',
      message: `The company_name given does not match the registered legal name "${registry.company.legal_name}". No finding was changed.`,
      retryable: false,
    });
  }

  // The sandbox answers from fixtures what live may not answer at all: an integration must learn
  // that here, not in production. Only when the fixtures were asked (a valid number of a covered
  // type); an invalid number is reported the same way in both.
  const liveWarning =
    principal.environment === 'sandbox' && lookup
      ? liveCoverageWarning(country, request.identifier_type)
      : undefined;
  if (liveWarning) warnings.push(liveWarning);

  const check: Check = {
    id: deps.newId('chk'),
    object: 'check',
    processing_status: 'completed',
    source: channel.source,
    identifier: {
      type: request.identifier_type,
      input: request.identifier,
      normalized: format.normalized,
      country_code: country,
    },
    format_status: format.status,
    registry_match_status: registry.registry_match_status,
    tax_authority_status: taxAuthorityStatus(request.identifier_type),
    company_legal_status: registry.company_legal_status,
    ...(request.company_name !== undefined ? { company_name: request.company_name } : {}),
    ...(request.client_reference !== undefined
      ? { client_reference: request.client_reference }
      : {}),
    ...(request.metadata !== undefined ? { metadata: request.metadata } : {}),
    ...(registry.company ? { company: registry.company } : {}),
    evidence: [...evidence, ...registry.evidence],
    warnings: [...registry.warnings, ...warnings],
    credits_used,
    created_at: now,
    completed_at: now,
  };
  await insertCheck(db, {
    id: check.id,
    workspace_id: principal.workspaceId,
    environment: principal.environment,
    created_at: now,
    body: JSON.stringify(check),
  });
  last.push(usage.settle);
  return { check, last };
}

export async function getCheck(
  db: Kysely<Database>,
  principal: Principal,
  id: string,
): Promise<Check> {
  const body = isIdOf('chk', id) ? await findCheckBody(db, scopeOf(principal), id) : undefined;
  if (!body) throw new DomainProblem('not_found', { detail: `No check ${id.slice(0, 100)}.` });
  return JSON.parse(body) as Check;
}

export async function listChecks(
  db: Kysely<Database>,
  paginator: Paginator,
  principal: Principal,
  request: PageRequest,
): Promise<Page<Check>> {
  const page = await paginator.page(
    ['checks', principal.workspaceId, principal.environment],
    request,
    (position, take) => listCheckRows(db, scopeOf(principal), position, take),
    (row) => ({ sortValue: row.created_at, id: row.id }),
  );
  return {
    rows: page.rows.map((row) => JSON.parse(row.body) as Check),
    pagination: page.pagination,
  };
}
