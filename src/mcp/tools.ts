/**
 * The MCP tools: one per operation of the API. A tool names the REST operation it runs
 * (`operationId`); its input and output schemas, scope, idempotency and every rule come from that
 * operation (see tool-definitions.ts), so this file holds only what an agent reads: names,
 * descriptions, hints and the short text summary of a result.
 */

type Json = Record<string, unknown>;

export interface ToolSpec {
  name: string;
  title: string;
  /** The REST operation the tool runs. */
  operationId: string;
  description: string;
  /** Reads only (MCP `readOnlyHint`); every read is also idempotent. */
  readOnly: boolean;
  /** A write whose repetition changes nothing more (MCP `idempotentHint`). */
  idempotent?: boolean;
  /** A write that can remove something (MCP `destructiveHint`). */
  destructive?: boolean;
  /** The short text an agent reads next to the structured result. */
  summarize(result: Json): string;
}

const FOUR_FINDINGS =
  'Four separate findings (format_status, registry_match_status, tax_authority_status, company_legal_status): report each; never merge them into one verdict. No tax authority is ever called, so no finding establishes an active VAT registration.';
const BILLED =
  'Billing: one credit with a live key (svc_live_), only when a register answered; free in the sandbox.';
const PAGED = 'Paged: pass `pagination.next_cursor` as `cursor` for the next page.';

function findings(check: Json): string {
  const identifier = check.identifier as Json;
  const company = check.company as Json | undefined;
  return [
    `Check ${check.id} of ${identifier.type} ${identifier.normalized} (${identifier.country_code}):`,
    `format_status: ${check.format_status}`,
    `registry_match_status: ${check.registry_match_status}`,
    `tax_authority_status: ${check.tax_authority_status}`,
    `company_legal_status: ${check.company_legal_status}`,
    ...(company ? [`Company: ${company.legal_name} (${company.id})`] : []),
    'These are four separate findings, not one verdict. No tax authority was called.',
  ].join('\n');
}

function monitorLine(monitor: Json): string {
  const identifier = monitor.identifier as Json;
  const next =
    monitor.status === 'paused'
      ? 'paused, so not rechecked'
      : `next check ${monitor.next_check_at}`;
  return `Monitor ${monitor.id} on ${identifier.type} ${identifier.normalized} (${identifier.country_code}): status ${monitor.status}, health ${monitor.health}, ${monitor.cadence}, ${next}.`;
}

function listLine(noun: string, list: Json): string {
  const data = list.data as unknown[];
  const pagination = list.pagination as Json | undefined;
  const more = pagination?.has_more ? ' More: pass pagination.next_cursor as cursor.' : '';
  const plural = noun === 'company' ? 'companies' : noun === 'country' ? 'countries' : `${noun}s`;
  return `${data.length} ${data.length === 1 ? noun : plural}.${more}`;
}

export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'check_identifier',
    title: 'Check a company identifier',
    operationId: 'createCheck',
    description: `Checks one company identifier (VAT number, US EIN or company registration number, issued in country_code) and stores the check. An invalid format, or a number no company is registered under, is a successful check, not an error. ${FOUR_FINDINGS} ${BILLED}`,
    readOnly: false,
    summarize: findings,
  },
  {
    name: 'get_check',
    title: 'Get a check',
    operationId: 'getCheck',
    description: `Gets a stored check (chk_ id) as it was created. ${FOUR_FINDINGS} Free.`,
    readOnly: true,
    summarize: findings,
  },
  {
    name: 'list_checks',
    title: 'List checks',
    operationId: 'listChecks',
    description: `Lists the checks of this key's workspace and environment, newest first. ${PAGED} Free.`,
    readOnly: true,
    summarize: (list) => listLine('check', list),
  },
  {
    name: 'search_companies',
    title: 'Search companies',
    operationId: 'searchCompanies',
    description: `Searches a country's company register by name or number, optionally narrowed by city_or_state; returns up to 100 candidate companies, each stored with a cmp_ id. ${BILLED}`,
    readOnly: false,
    summarize: (list) => `${listLine('company', list)} Credits used: ${list.credits_used}.`,
  },
  {
    name: 'get_company',
    title: 'Get a company',
    operationId: 'getCompany',
    description:
      'Gets a stored company snapshot (cmp_ id) as last retrieved from its register; retrieved_at is when it was retrieved, not when the register last changed. A missing field is not a negative finding. Free.',
    readOnly: true,
    summarize: (company) =>
      `${company.legal_name} (${company.id}), ${company.country_code}: company_legal_status ${company.company_legal_status}, retrieved ${company.retrieved_at}.`,
  },
  {
    name: 'list_countries',
    title: 'List country capabilities',
    operationId: 'listCountries',
    description:
      'Lists which identifier types each country supports and how each is checked (format rules, registry sources), optionally filtered by `query`. Free.',
    readOnly: true,
    summarize: (list) => listLine('country', list),
  },
  {
    name: 'get_country',
    title: "Get one country's capabilities",
    operationId: 'getCountry',
    description:
      'Gets what one country (two-letter country_code) supports: identifier types, format rules and registry coverage in this environment. Free.',
    readOnly: true,
    summarize: (country) =>
      `${country.name} (${country.country_code}): company search ${country.company_search}; ${(country.identifier_capabilities as unknown[]).length} identifier type(s).`,
  },
  {
    name: 'create_monitor',
    title: 'Start monitoring a company',
    operationId: 'createMonitor',
    description: `Starts watching a company's record (by identifier) for changes, after a baseline check. A webhook_url gets signed events; its signing secret is returned once, in webhook_signing_secret. Watches company-record fields, not VAT registration. Billing: the baseline and each recheck cost one credit with a live key when a register answered; free in the sandbox.`,
    readOnly: false,
    summarize: (result) =>
      `${monitorLine(result.monitor as Json)}\nBaseline:\n${findings(result.baseline_check as Json)}${result.webhook_signing_secret ? '\nThe webhook signing secret is in webhook_signing_secret; it is shown only now.' : ''}`,
  },
  {
    name: 'list_monitors',
    title: 'List monitors',
    operationId: 'listMonitors',
    description: `Lists the monitors of this key's workspace and environment, most recently updated first. ${PAGED} Free.`,
    readOnly: true,
    summarize: (list) => listLine('monitor', list),
  },
  {
    name: 'get_monitor',
    title: 'Get a monitor',
    operationId: 'getMonitor',
    description: 'Gets a monitor (mon_ id) with its latest snapshot, health and next check. Free.',
    readOnly: true,
    summarize: monitorLine,
  },
  {
    name: 'update_monitor',
    title: 'Update a monitor',
    operationId: 'updateMonitor',
    description:
      'Changes a monitor: pause or resume it (status), its cadence, watched_fields, or webhook_url (null stops delivery). Setting a webhook_url returns the signing secret in webhook_signing_secret. Free.',
    readOnly: false,
    idempotent: true,
    summarize: (result) => monitorLine(result.monitor as Json),
  },
  {
    name: 'run_monitor',
    title: 'Recheck a monitor now',
    operationId: 'runMonitor',
    description: `Rechecks a monitor's company now and reports the changes against its last snapshot (an event is recorded when something changed). ${BILLED}`,
    readOnly: false,
    summarize: (result) => {
      const changes = result.changes as Json[];
      const event = result.event_id ? `event ${result.event_id}` : 'no event';
      return `${monitorLine(result.monitor as Json)}\n${changes.length} change(s), ${event}.\n${findings(result.check as Json)}`;
    },
  },
  {
    name: 'archive_monitor',
    title: 'Archive a monitor',
    operationId: 'archiveMonitor',
    description:
      'Stops a monitor for good (it is no longer rechecked and frees its slot); its checks and events stay readable. Free.',
    readOnly: false,
    idempotent: true,
    destructive: true,
    summarize: () => 'The monitor is archived.',
  },
  {
    name: 'list_monitoring_events',
    title: 'List monitoring events',
    operationId: 'listMonitoringEvents',
    description: `Lists monitoring events (changes, status changes, source outages) with their webhook delivery, newest first. ${PAGED} Free.`,
    readOnly: true,
    summarize: (list) => listLine('event', list),
  },
  {
    name: 'get_monitoring_event',
    title: 'Get a monitoring event',
    operationId: 'getMonitoringEvent',
    description: 'Gets a monitoring event (evt_ id) with its changes and delivery state. Free.',
    readOnly: true,
    summarize: (event) =>
      `Event ${event.id}: ${event.type} (${event.severity}) on ${event.monitor_id} at ${event.created_at}, ${(event.changes as unknown[]).length} change(s); delivery ${(event.delivery as Json).status}.`,
  },
  {
    name: 'get_usage',
    title: 'Get usage',
    operationId: 'getUsage',
    description:
      "Gets this month's operations and billable units in the key's environment, by channel and by operation, and the allowance left. Free.",
    readOnly: true,
    summarize: (usage) => {
      const totals = usage.totals as Json;
      const allowance = usage.allowance as Json;
      const left =
        allowance.remaining_units === null
          ? 'no fixed allowance applies'
          : `${allowance.remaining_units} units of the allowance remain`;
      return `${usage.environment} usage this period: ${totals.requests} operations, ${totals.billable_units} billable units; ${left}.`;
    },
  },
];
