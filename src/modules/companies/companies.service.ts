import type { Kysely } from 'kysely';
import type { Database, UsageSource } from '../../db/schema.js';
import { type Clock, toTimestamp } from '../../lib/clock.js';
import { type IdGenerator, isIdOf } from '../../lib/ids.js';
import { DomainProblem } from '../../lib/problem.js';
import type { CompanyRecord, RegistrySource, SourceInfo } from '../../sources/registry-source.js';
import type { Principal } from '../accounts/principal.js';
import { type Tenant, tenantOf } from '../tenancy/tenant.js';
import { startUsage } from '../usage/usage.service.js';
import type { Company, CompanySearchRequest } from './companies.schemas.js';
import {
  findCompanyBySourceKey,
  findCompanySnapshot,
  findSnapshotAllowanceUsage,
  insertCompanyIfAbsent,
  refreshCompany,
  reserveSnapshotAllowance,
} from './companies.store.js';

export const MAX_SEARCH_CANDIDATES = 100;

export interface CompaniesDeps {
  clock: Clock;
  newId: IdGenerator;
  /** New snapshots a workspace may store per environment per UTC day. */
  snapshotsPerDay: number;
}

function toCompany(
  record: CompanyRecord,
  id: string,
  source: SourceInfo,
  retrievedAt: string,
): Company {
  return {
    id,
    object: 'company',
    legal_name: record.legal_name,
    ...(record.registration_number ? { registration_number: record.registration_number } : {}),
    vat_numbers: record.vat_numbers,
    tax_identifiers: record.tax_identifiers,
    country_code: record.country_code,
    company_legal_status: record.company_legal_status,
    ...(record.raw_company_legal_status
      ? { raw_company_legal_status: record.raw_company_legal_status }
      : {}),
    ...(record.legal_form ? { legal_form: record.legal_form } : {}),
    ...(record.incorporation_date ? { incorporation_date: record.incorporation_date } : {}),
    ...(record.registered_address ? { registered_address: record.registered_address } : {}),
    ...(record.website ? { website: record.website } : {}),
    sources: [source],
    retrieved_at: retrievedAt,
  };
}

/**
 * Writes a unit of work runs last (see `OperationResult.last`): on PostgreSQL their row locks are
 * then held only until COMMIT. A company's row is one: every check of that company rewrites it.
 */
export type LastWrites = Array<(db: Kysely<Database>) => Promise<void>>;

/** Runs the writes collected for the end of a unit of work, in order. */
export async function runLastWrites(db: Kysely<Database>, writes: LastWrites): Promise<void> {
  for (const write of writes) await write(db);
}

/**
 * Stores what a source returned as snapshots: a company seen before keeps its id and gets a new
 * `retrieved_at` (no new storage slot); a new one takes a slot of the daily allowance. Safe under
 * concurrency: inserts never clash (a request that loses the race refreshes the winner's row),
 * and the slots are reserved atomically after the inserts, so exceeding the allowance rolls the
 * caller's transaction back with nothing stored.
 */
export async function saveCompanySnapshots(
  db: Kysely<Database>,
  deps: CompaniesDeps,
  tenant: Tenant,
  source: SourceInfo,
  records: readonly CompanyRecord[],
  /** When the records were fetched from the register (a cached record keeps its first fetch). */
  fetchedAt: Date = deps.clock.now(),
  /** Where to leave the refreshes of known companies for the end of the unit (else run now). */
  last?: LastWrites,
): Promise<Company[]> {
  const now = deps.clock.now();
  const retrievedAt = toTimestamp(fetchedAt);
  const companies: Company[] = [];
  let inserted = 0;
  for (const record of records) {
    let stored = await findCompanyBySourceKey(db, tenant, record.key);
    if (stored === undefined) {
      const newId = deps.newId('cmp');
      const company = toCompany(record, newId, source, retrievedAt);
      const row = {
        ...tenant,
        id: newId,
        source_key: record.key,
        snapshot: JSON.stringify(company),
        retrieved_at: retrievedAt,
        created_at: retrievedAt,
      };
      if (await insertCompanyIfAbsent(db, row)) {
        inserted += 1;
        companies.push(company);
        continue;
      }
      // Another request stored this company first: refresh its row instead.
      stored = (await findCompanyBySourceKey(db, tenant, record.key)) ?? {
        id: newId,
        snapshot: '',
      };
    }
    const company = toCompany(record, stored.id, source, retrievedAt);
    const snapshot = JSON.stringify(company);
    // The same record retrieved at the same time (a cached record, a repeated check within the
    // same millisecond) leaves the row as it is: rewriting it would change nothing but cost a write.
    if (snapshot !== stored.snapshot) {
      const id = stored.id;
      const refresh = (trx: Kysely<Database>) => refreshCompany(trx, id, snapshot, retrievedAt);
      if (last) last.push(refresh);
      else await refresh(db);
    }
    companies.push(company);
  }
  if (inserted > 0) {
    // Storage is counted on the day it is used, whenever the record was fetched.
    const day = toTimestamp(now).slice(0, 10);
    const total = await reserveSnapshotAllowance(db, tenant, day, inserted, deps.snapshotsPerDay);
    if (total === undefined) {
      const used = await findSnapshotAllowanceUsage(db, tenant, day);
      const nextDay = Date.parse(`${day}T00:00:00.000Z`) + 24 * 60 * 60 * 1000;
      throw new DomainProblem('snapshot_allowance_exceeded', {
        detail: `This request would store ${inserted} new company snapshots, but ${used} of the ${deps.snapshotsPerDay} allowed today (UTC) are used. Known companies can still be refreshed.`,
        retryAfter: Math.max(1, Math.ceil((nextDay - now.getTime()) / 1000)),
      });
    }
  }
  return companies;
}

/** Rules 1 to 4 of the contract's CompanySearchRequest, each a 422 pointing at its field. */
function validateSearch(request: CompanySearchRequest, country: string): void {
  const errors: Array<{ pointer: string; code: string; message: string }> = [];
  if (
    !request.name &&
    !request.registration_number &&
    !request.vat_number &&
    !request.tax_identifier
  ) {
    errors.push({
      pointer: '',
      code: 'required',
      message: 'needs at least one of name, registration_number, vat_number, tax_identifier',
    });
  }
  if (request.vat_number !== undefined && request.tax_identifier !== undefined) {
    errors.push({
      pointer: '/tax_identifier',
      code: 'not_allowed',
      message: 'cannot be sent together with vat_number',
    });
  } else if (country === 'US' && request.vat_number !== undefined) {
    errors.push({
      pointer: '/vat_number',
      code: 'not_allowed',
      message: 'is not allowed for US; use tax_identifier',
    });
  } else if (country !== 'US' && request.tax_identifier !== undefined) {
    errors.push({
      pointer: '/tax_identifier',
      code: 'not_allowed',
      message: 'is only allowed for US; use vat_number or registration_number',
    });
  }
  if (errors.length > 0) {
    throw new DomainProblem('validation_failed', {
      detail: `The request body failed validation: ${errors.map((e) => `${e.pointer || 'the body'} ${e.message}`).join('; ')}.`,
      errors,
    });
  }
}

/** The 422s of a search: rules 1 to 4, and a country where this environment has no search. */
export function checkSearchRequest(
  principal: Principal,
  source: RegistrySource,
  request: CompanySearchRequest,
): void {
  const country = request.country_code.toUpperCase();
  validateSearch(request, country);
  if (!source.searches(country)) {
    throw new DomainProblem('validation_failed', {
      detail: `Company search is not available for ${country} in the ${principal.environment} environment; GET /v1/countries lists where it is.`,
      errors: [
        { pointer: '/country_code', code: 'not_supported', message: 'has no company search here' },
      ],
    });
  }
}

/**
 * The upstream search (502 when it fails). It runs before the search's unit of work, so that a
 * registry's answer is never awaited while holding the writer.
 */
export interface SearchCandidates {
  records: CompanyRecord[];
  /** The register that answered, and when it was asked. */
  source: SourceInfo;
  retrievedAt?: Date;
  /** No register was asked (the source could answer by itself): no credit is used. */
  noRegisterAsked?: true;
}

export async function findCandidates(
  source: RegistrySource,
  request: CompanySearchRequest,
): Promise<SearchCandidates> {
  const country = request.country_code.toUpperCase();
  const result = await source.search({
    countryCode: country,
    name: request.name,
    registrationNumber: request.registration_number,
    vatNumber: request.vat_number,
    taxIdentifier: request.tax_identifier,
    cityOrState: request.city_or_state,
  });
  if (result.outcome === 'unavailable') {
    throw new DomainProblem('upstream_unavailable', {
      detail: `The company registry for ${country} did not answer (${result.reason}); retry later.`,
      retryAfter: 5,
    });
  }
  return {
    records: result.companies.slice(0, MAX_SEARCH_CANDIDATES),
    source: result.source ?? source.info,
    ...(result.retrievedAt ? { retrievedAt: result.retrievedAt } : {}),
    ...(result.noRegisterAsked ? { noRegisterAsked: true } : {}),
  };
}

/**
 * Charges the search (402 in live without paid access or credits) and stores its candidates. The
 * caller runs `last` (refreshes of known companies, the debit and the running totals) as the last
 * writes of its unit of work.
 */
export async function recordSearch(
  db: Kysely<Database>,
  deps: CompaniesDeps,
  principal: Principal,
  candidates: SearchCandidates,
  source: UsageSource,
): Promise<{ companies: Company[]; credits_used: number; last: LastWrites }> {
  const last: LastWrites = [];
  const usage = await startUsage(db, deps, {
    workspaceId: principal.workspaceId,
    environment: principal.environment,
    source,
    operation: 'companies.search',
    // A register answered (a search none answered is a 502 before this): charged. One no
    // register was asked for is uncharged, like a check whose register was not queried.
    outcome: candidates.noRegisterAsked
      ? 'not_checked'
      : candidates.records.length > 0
        ? 'matched'
        : 'not_matched',
  });
  const companies = await saveCompanySnapshots(
    db,
    deps,
    tenantOf(principal),
    candidates.source,
    candidates.records,
    candidates.retrievedAt,
    last,
  );
  last.push(usage.settle);
  return { companies, credits_used: usage.credits_used, last };
}

export async function getCompany(
  db: Kysely<Database>,
  principal: Principal,
  id: string,
): Promise<Company> {
  const snapshot = isIdOf('cmp', id)
    ? await findCompanySnapshot(db, tenantOf(principal), id)
    : undefined;
  if (!snapshot)
    throw new DomainProblem('not_found', { detail: `No company ${id.slice(0, 100)}.` });
  return JSON.parse(snapshot) as Company;
}
