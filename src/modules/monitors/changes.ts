import { cleanIdentifier } from '../../formats/format-rule.js';
import type { Check } from '../checks/checks.schemas.js';
import type { Company } from '../companies/companies.schemas.js';
import type {
  EventSeverity,
  MonitorChange,
  MonitorSnapshot,
  WatchedField,
} from './monitors.schemas.js';
import { WATCHED_FIELDS } from './monitors.schemas.js';

/** What a monitor remembers of a check: the watched fields of the company it found. */
export function snapshotOfCheck(check: Check): MonitorSnapshot {
  // The check's schema refers to Company by $ref; its static type is the Company object.
  const company = check.company as Company | undefined;
  return {
    check_id: check.id,
    observed_at: check.completed_at,
    registry_match_status: check.registry_match_status,
    company_legal_status: check.company_legal_status,
    legal_name: company?.legal_name ?? null,
    registration_number: company?.registration_number ?? null,
    vat_numbers: company?.vat_numbers ?? [],
    registered_address: company?.registered_address?.formatted ?? null,
  };
}

/** Whether a snapshot says anything about the company: an outage says nothing at all. */
export function isObservation(snapshot: MonitorSnapshot): boolean {
  return snapshot.registry_match_status !== 'unavailable';
}

// Text compared after Unicode, case and whitespace folding, so "ACME  Ltd" and "Acme Ltd" are the
// same name; a registry re-typing an address is not a move.
const foldText = (text: string | null) =>
  text === null
    ? null
    : text
        .normalize('NFKC')
        .toLocaleLowerCase('en')
        .replace(/\s+/g, ' ')
        .replace(/\s*,\s*/g, ', ')
        .trim();

const foldNumber = (text: string | null) => (text === null ? null : cleanIdentifier(text));

/** VAT numbers are a set: order and separators do not matter. */
const foldNumbers = (numbers: readonly string[]) =>
  JSON.stringify([...new Set(numbers.map(cleanIdentifier))].sort());

const SAME: Record<WatchedField, (a: MonitorSnapshot, b: MonitorSnapshot) => boolean> = {
  registry_match_status: (a, b) => a.registry_match_status === b.registry_match_status,
  company_legal_status: (a, b) => a.company_legal_status === b.company_legal_status,
  legal_name: (a, b) => foldText(a.legal_name) === foldText(b.legal_name),
  registration_number: (a, b) =>
    foldNumber(a.registration_number) === foldNumber(b.registration_number),
  vat_numbers: (a, b) => foldNumbers(a.vat_numbers) === foldNumbers(b.vat_numbers),
  registered_address: (a, b) => foldText(a.registered_address) === foldText(b.registered_address),
};

/**
 * The material changes between two snapshots, on the watched fields only, in the contract's field
 * order. An outage on either side is never a change of any field: an unavailable registry says
 * nothing about the company.
 */
export function detectChanges(
  previous: MonitorSnapshot,
  current: MonitorSnapshot,
  watched: readonly WatchedField[],
): MonitorChange[] {
  if (!isObservation(previous) || !isObservation(current)) return [];
  return WATCHED_FIELDS.filter(
    (field) => watched.includes(field) && !SAME[field](previous, current),
  ).map((field) => ({ field, previous: previous[field], current: current[field] }));
}

const RANK: Record<EventSeverity, number> = { info: 0, warning: 1, high: 2 };
const GONE = new Set(['inactive', 'dissolved', 'liquidation', 'insolvency']);

/** The severity of one change (docs/monitoring.md has the table). */
export function severityOfChange(change: MonitorChange): EventSeverity {
  switch (change.field) {
    case 'company_legal_status':
      // A company leaving `active` (or entering a terminal state) is what a payer must act on.
      return change.previous === 'active' || GONE.has(String(change.current)) ? 'high' : 'warning';
    case 'registry_match_status':
      return change.previous === 'matched' ? 'high' : 'warning';
    case 'legal_name':
    case 'registration_number':
    case 'vat_numbers':
      return 'warning';
    case 'registered_address':
      return 'info';
  }
}

/** A change event is as severe as its most severe change. */
export function severityOfChanges(changes: readonly MonitorChange[]): EventSeverity {
  return changes
    .map(severityOfChange)
    .reduce<EventSeverity>((worst, s) => (RANK[s] > RANK[worst] ? s : worst), 'info');
}
