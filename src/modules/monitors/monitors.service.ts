import type { Kysely } from 'kysely';
import type { Database, MonitorRow, MonitorsTable, UsageSource } from '../../db/schema.js';
import { checkFormat } from '../../formats/registry.js';
import type { Page, PageRequest, Paginator } from '../../http/pagination.js';
import { toTimestamp } from '../../lib/clock.js';
import { isIdOf } from '../../lib/ids.js';
import { DomainProblem } from '../../lib/problem.js';
import type { Principal } from '../accounts/principal.js';
import type { CheckCreateRequest } from '../checks/checks.schemas.js';
import {
  type ChecksDeps,
  createCheck,
  type IdentifierLookup,
  lookUpIdentifier,
} from '../checks/checks.service.js';
import { tenantOf } from '../tenancy/tenant.js';
import { assertCanPay } from '../usage/usage.service.js';
import { webhookUrlError } from '../webhooks/destination-policy.js';
import { isObservation, snapshotOfCheck } from './changes.js';
import { recordEvent } from './events.service.js';
import { applyTransition, toMonitor } from './monitor-rows.js';
import { afterWebhookRecovered, nextRegularCheck, statusWhenResumed } from './monitor-states.js';
import type {
  Monitor,
  MonitorCreateRequest,
  MonitorCreateResponse,
  MonitorHealth,
  MonitorStatus,
  MonitorUpdateRequest,
  MonitorUpdateResponse,
} from './monitors.schemas.js';
import { WATCHED_FIELDS } from './monitors.schemas.js';
import {
  countLiveMonitors,
  findMonitor,
  insertMonitor,
  listMonitorRows,
  lockWorkspaceForMonitors,
  type MonitorRowFilters,
  type MonitorUpdate,
  updateMonitor,
} from './monitors.store.js';
import { newSigningSecret } from './signing-secret.js';

// A monitor's lifecycle: create (with its baseline check), get, list, update and archive. Its
// rechecks, manual and scheduled, are in rechecks.service.ts.

export interface MonitorsDeps extends ChecksDeps {
  /** Live (not archived) monitors a workspace may have per environment. */
  monitorSlots: number;
}

function assertWebhookUrl(url: string | null | undefined): void {
  if (url === undefined || url === null) return;
  const error = webhookUrlError(url);
  if (error) {
    throw new DomainProblem('validation_failed', {
      detail: `The request body failed validation: ${error.pointer} ${error.message}.`,
      errors: [error],
    });
  }
}

function notFound(id: string): DomainProblem {
  return new DomainProblem('not_found', { detail: `No monitor ${id.slice(0, 100)}.` });
}

/** The monitor of a path parameter, or 404 (a malformed id is a 404 too, as for checks). */
export async function requireMonitor(
  db: Kysely<Database>,
  principal: Principal,
  id: string,
  options: { lock?: boolean } = {},
): Promise<MonitorRow> {
  const row = isIdOf('mon', id)
    ? await findMonitor(db, tenantOf(principal), id, options)
    : undefined;
  if (!row) throw notFound(id);
  return row;
}

async function assertSlotFree(
  db: Kysely<Database>,
  deps: MonitorsDeps,
  principal: Principal,
): Promise<void> {
  if ((await countLiveMonitors(db, tenantOf(principal))) >= deps.monitorSlots) {
    throw new DomainProblem('monitor_limit_reached', {
      detail: `This workspace already has ${deps.monitorSlots} monitors in the ${principal.environment} environment, the most it may have. Archive one to free a slot.`,
    });
  }
}

/**
 * The refusals of POST /monitors that need no registry answer, checked before anything is looked
 * up, charged or written: the webhook URL, a free slot, and a number a registry can be asked about
 * (a monitor on an invalid number, or one no source covers, could never detect anything).
 */
async function assertMonitorCreatable(
  db: Kysely<Database>,
  deps: MonitorsDeps,
  principal: Principal,
  request: MonitorCreateRequest,
  lookup: Pick<IdentifierLookup, 'format' | 'source' | 'country'>,
): Promise<void> {
  assertWebhookUrl(request.webhook_url);
  if (lookup.format.status === 'invalid') {
    throw new DomainProblem('validation_failed', {
      detail: `The number ${lookup.format.message}; a monitor needs a number the registry can be asked about. POST /checks reports the format finding without creating a monitor.`,
      errors: [
        {
          pointer: '/identifier',
          code: 'invalid_format',
          message: `is not a valid ${request.identifier_type} for ${lookup.country}`,
        },
      ],
    });
  }
  if (!lookup.source.supports(lookup.country, request.identifier_type, lookup.format.normalized)) {
    throw new DomainProblem('validation_failed', {
      detail: `No registry source covers ${request.identifier_type} numbers in ${lookup.country} in the ${principal.environment} environment, so a monitor could never detect a change. GET /countries lists what is covered.`,
      errors: [
        {
          pointer: '/identifier_type',
          code: 'not_supported',
          message: `has no registry source in ${lookup.country} here`,
        },
      ],
    });
  }
  await assertSlotFree(db, deps, principal);
}

/** A registry answer that names several companies cannot start a monitor of one company. */
function assertBaselineUsable(lookup: IdentifierLookup): void {
  if (lookup.lookup?.outcome === 'ambiguous') {
    throw new DomainProblem('validation_failed', {
      detail: `${lookup.lookup.companies.length} companies in the registry carry this number, so it cannot identify one company to monitor. Search by name (POST /companies/search) and monitor the company's registration number.`,
      errors: [
        { pointer: '/identifier', code: 'ambiguous', message: 'belongs to several companies' },
      ],
    });
  }
}

/**
 * What POST /monitors does before its unit of work, in the documented order of refusals
 * (docs/decisions.md, "Order of refusals on create"): the webhook URL, the number, a free slot,
 * then paid access and credits, all before the registry is asked; then the registry's answer,
 * outside any transaction, which must name one company.
 */
export async function prepareMonitorCreate(
  db: Kysely<Database>,
  deps: MonitorsDeps,
  principal: Principal,
  request: MonitorCreateRequest,
): Promise<IdentifierLookup> {
  const country = request.country_code.toUpperCase();
  await assertMonitorCreatable(db, deps, principal, request, {
    country,
    format: checkFormat(country, request.identifier_type, request.identifier),
    source: deps.sourceFor(principal),
  });
  await assertCanPay(db, principal, 'monitors.baseline');
  const lookup = await lookUpIdentifier(deps, principal, request);
  assertBaselineUsable(lookup);
  return lookup;
}

/**
 * POST /monitors, in the caller's unit of work: the baseline check (billed as `monitors.baseline`),
 * the monitor and, when the registry was down, the `source_degraded` event that says so.
 */
export async function createMonitor(
  db: Kysely<Database>,
  deps: MonitorsDeps,
  principal: Principal,
  request: MonitorCreateRequest,
  lookup: IdentifierLookup,
  source: UsageSource,
): Promise<MonitorCreateResponse> {
  // The authoritative slot count: concurrent creates of one workspace queue on the lock.
  await lockWorkspaceForMonitors(db, principal.workspaceId);
  await assertSlotFree(db, deps, principal);
  const checkRequest: CheckCreateRequest = {
    identifier_type: request.identifier_type,
    identifier: request.identifier,
    country_code: request.country_code,
    ...(request.company_name !== undefined ? { company_name: request.company_name } : {}),
    ...(request.client_reference !== undefined
      ? { client_reference: request.client_reference }
      : {}),
    ...(request.metadata !== undefined ? { metadata: request.metadata } : {}),
  };
  const check = await createCheck(db, deps, principal, checkRequest, lookup, {
    source,
    operation: 'monitors.baseline',
  });
  const now = deps.clock.now();
  const at = toTimestamp(now);
  const id = deps.newId('mon');
  const cadence = request.cadence ?? 'daily';
  const secret = request.webhook_url !== undefined ? newSigningSecret() : null;
  const snapshot = snapshotOfCheck(check);
  const row: MonitorsTable = {
    id,
    workspace_id: principal.workspaceId,
    environment: principal.environment,
    status: 'active',
    health: 'healthy',
    identifier_type: request.identifier_type,
    identifier_input: request.identifier,
    identifier_normalized: lookup.format.normalized,
    country_code: lookup.country,
    company_name: request.company_name ?? null,
    client_reference: request.client_reference ?? null,
    metadata: request.metadata !== undefined ? JSON.stringify(request.metadata) : null,
    cadence,
    watched_fields: JSON.stringify(request.watched_fields ?? WATCHED_FIELDS),
    webhook_url: request.webhook_url ?? null,
    webhook_secret: secret,
    baseline_check_id: check.id,
    latest_check_id: check.id,
    latest_snapshot: JSON.stringify(snapshot),
    last_checked_at: at,
    next_check_at: toTimestamp(nextRegularCheck(id, cadence, now)),
    last_event_at: null,
    failure_count: 0,
    last_error_code: null,
    recheck_count: 0,
    created_at: at,
    updated_at: at,
    archived_at: null,
    lease_owner: null,
    lease_expires_at: null,
    webhook_error_code: null,
  };
  // A baseline the registry could not answer detects nothing yet: the monitor says so (health,
  // failure count, an event) and retries soon; the first good answer becomes its baseline.
  const degraded = isObservation(snapshot)
    ? undefined
    : applyTransition(row, { kind: 'source_unavailable' }, now);
  const created: MonitorsTable = degraded
    ? { ...row, ...degraded.update, last_event_at: degraded.events.length > 0 ? at : null }
    : row;
  await insertMonitor(db, created);
  for (const event of degraded?.events ?? []) {
    await recordEvent(db, deps, created, { ...event, changes: [] }, now);
  }
  return {
    monitor: toMonitor(created),
    baseline_check: check,
    ...(secret !== null ? { webhook_signing_secret: secret } : {}),
  };
}

export async function getMonitor(
  db: Kysely<Database>,
  principal: Principal,
  id: string,
): Promise<Monitor> {
  return toMonitor(await requireMonitor(db, principal, id));
}

/** The filters of `GET /monitors`, as validated. */
export interface MonitorFilters {
  status?: MonitorStatus[];
  health?: MonitorHealth[];
  client_reference?: string;
}

export async function listMonitors(
  db: Kysely<Database>,
  paginator: Paginator,
  principal: Principal,
  request: PageRequest & MonitorFilters,
): Promise<Page<Monitor>> {
  const filters: MonitorRowFilters = {
    statuses: request.status === undefined ? undefined : [...request.status].sort(),
    healths: request.health === undefined ? undefined : [...request.health].sort(),
    clientReference: request.client_reference,
  };
  const key = [
    filters.statuses?.join(',') ?? '',
    filters.healths?.join(',') ?? '',
    filters.clientReference ?? '',
  ];
  const page = await paginator.page(
    // Filters are part of the list a cursor continues; none leaves the list as it was named before
    // the filters existed, so cursors made then stay valid.
    [
      'monitors',
      principal.workspaceId,
      principal.environment,
      ...(key.some((value) => value !== '') ? key : []),
    ],
    request,
    (position, take) => listMonitorRows(db, tenantOf(principal), filters, position, take),
    (row) => ({ sortValue: row.updated_at, id: row.id }),
  );
  return { rows: page.rows.map(toMonitor), pagination: page.pagination };
}

/**
 * PATCH /monitors/{id}: pausing and resuming emit `vat.monitor.paused` / `resumed`; a new cadence
 * reschedules from the last check; the signing secret is made when the monitor first gets a
 * webhook URL and kept until an operator rotates it (docs/decisions.md), and returned whenever a URL is supplied.
 */
export async function updateMonitorSettings(
  db: Kysely<Database>,
  deps: MonitorsDeps,
  principal: Principal,
  id: string,
  request: MonitorUpdateRequest,
): Promise<MonitorUpdateResponse> {
  assertWebhookUrl(request.webhook_url);
  let row = await requireMonitor(db, principal, id, { lock: true });
  const now = deps.clock.now();
  const update: MonitorUpdate = {};
  const events: Array<{ type: 'vat.monitor.paused' | 'vat.monitor.resumed' }> = [];

  if (request.status === 'paused' && row.status !== 'paused') {
    update.status = 'paused';
    events.push({ type: 'vat.monitor.paused' });
  } else if (request.status === 'active' && row.status === 'paused') {
    // Back to what its health says; a monitor that fell due while paused is due now.
    update.status = statusWhenResumed(row);
    if (row.next_check_at < toTimestamp(now)) update.next_check_at = toTimestamp(now);
    events.push({ type: 'vat.monitor.resumed' });
  }
  if (request.cadence !== undefined && request.cadence !== row.cadence) {
    update.cadence = request.cadence;
    if (row.health === 'healthy') {
      const next = nextRegularCheck(row.id, request.cadence, new Date(row.last_checked_at));
      update.next_check_at = toTimestamp(next < now ? now : next);
    }
  }
  if (request.watched_fields !== undefined) {
    const watched = JSON.stringify(request.watched_fields);
    if (watched !== row.watched_fields) update.watched_fields = watched;
  }
  if (request.webhook_url !== undefined && request.webhook_url !== row.webhook_url) {
    update.webhook_url = request.webhook_url;
  }
  if (request.webhook_url && row.webhook_secret === null)
    update.webhook_secret = newSigningSecret();
  // Setting the URL (a new one, the same again, or none) is how a failing webhook is dealt with.
  if (request.webhook_url !== undefined && row.webhook_error_code !== null)
    Object.assign(update, afterWebhookRecovered({ ...row, ...update }));

  if (Object.keys(update).length > 0) {
    update.updated_at = toTimestamp(now);
    row = { ...row, ...update };
    for (const event of events) {
      await recordEvent(db, deps, row, { ...event, severity: 'info', changes: [] }, now);
      update.last_event_at = toTimestamp(now);
    }
    row = { ...row, ...update };
    await updateMonitor(db, row.id, update);
  }
  return {
    monitor: toMonitor(row),
    ...(request.webhook_url && row.webhook_secret !== null
      ? { webhook_signing_secret: row.webhook_secret }
      : {}),
  };
}

/** DELETE /monitors/{id}: no more rechecks, the slot is free, the events stay readable. */
export async function archiveMonitor(
  db: Kysely<Database>,
  deps: MonitorsDeps,
  principal: Principal,
  id: string,
): Promise<{ archived: true }> {
  const row = await requireMonitor(db, principal, id, { lock: true });
  const at = toTimestamp(deps.clock.now());
  await updateMonitor(db, row.id, {
    archived_at: at,
    updated_at: at,
    lease_owner: null,
    lease_expires_at: null,
  });
  return { archived: true };
}
