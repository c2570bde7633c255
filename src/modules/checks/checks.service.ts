import type { Kysely } from 'kysely';
import type { Database, UsageSource } from '../../db/schema.js';
import type { FormatOutcome, IdentifierType } from '../../formats/format-rule.js';
import { checkFormat } from '../../formats/registry.js';
import type { Page, PageRequest, Paginator } from '../../http/pagination.js';
import { toTimestamp } from '../../lib/clock.js';
import { isIdOf } from '../../lib/ids.js';
import { DomainProblem } from '../../lib/problem.js';
import type { LookupResult, RegistrySource } from '../../sources/registry-source.js';
import type { Principal } from '../accounts/principal.js';
import {
  type CompaniesDeps,
  type LastWrites,
  runLastWrites,
} from '../companies/companies.service.js';
import { tenantOf } from '../tenancy/tenant.js';
import { startUsage, type UsageOperation } from '../usage/usage.service.js';
import { type CheckFilters, checkFiltersKey, checkRowFilters } from './check-filters.js';
import type { Check, CheckCreateRequest, Evidence, Warning } from './checks.schemas.js';
import { findCheckBody, insertCheck, listCheckRows } from './checks.store.js';
import { sameCompanyName } from './company-name.js';
import { liveCoverageWarning } from './live-coverage-warning.js';
import {
  type RegistryFindings,
  registryFindings,
  registryNotSupported,
} from './registry-findings.js';

/**
 * Checks never call a tax authority (contract section 1). For numbers a tax authority issues the
 * finding is `not_supported`; for company register numbers it does not apply.
 */
function taxAuthorityStatus(type: IdentifierType): Check['tax_authority_status'] {
  return type === 'registration_number' ? 'not_applicable' : 'not_supported';
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
    client_reference: check.client_reference ?? null,
    identifier_normalized: format.normalized,
    country_code: country,
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
  const body = isIdOf('chk', id) ? await findCheckBody(db, tenantOf(principal), id) : undefined;
  if (!body) throw new DomainProblem('not_found', { detail: `No check ${id.slice(0, 100)}.` });
  return JSON.parse(body) as Check;
}

export async function listChecks(
  db: Kysely<Database>,
  paginator: Paginator,
  principal: Principal,
  request: PageRequest & CheckFilters,
): Promise<Page<Check>> {
  const filters = checkRowFilters(request);
  const page = await paginator.page(
    ['checks', principal.workspaceId, principal.environment, ...checkFiltersKey(filters)],
    request,
    (position, take) => listCheckRows(db, tenantOf(principal), filters, position, take),
    (row) => ({ sortValue: row.created_at, id: row.id }),
  );
  return {
    rows: page.rows.map((row) => JSON.parse(row.body) as Check),
    pagination: page.pagination,
  };
}
