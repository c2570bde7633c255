import type { Check, MonitorChange } from '../kit/client.js';

/**
 * A check for a person: the four findings each on a line of its own, under the API's names, and
 * never folded into one verdict (a valid format says nothing of the register, an active company
 * nothing of its VAT number; README, first paragraph).
 */
export function describeCheck(check: Check): string {
  const { identifier } = check;
  const lines = [
    `Check ${check.id}: ${identifier.type} ${identifier.normalized} (${identifier.country_code})`,
    `  format_status:         ${check.format_status}`,
    `  registry_match_status: ${check.registry_match_status}`,
    `  tax_authority_status:  ${check.tax_authority_status}`,
    `  company_legal_status:  ${check.company_legal_status}`,
  ];
  if (check.company) lines.push(`Company: ${check.company.legal_name} (${check.company.id})`);
  else lines.push('Company: (none in this check)');
  if (check.client_reference) lines.push(`Client reference: ${check.client_reference}`);
  if (check.warnings.length > 0) {
    lines.push('Warnings:');
    for (const warning of check.warnings) lines.push(`  ${warning.code}: ${warning.message}`);
  }
  lines.push(`Credits used: ${check.credits_used}`);
  return lines.join('\n');
}

const shown = (value: MonitorChange['current']) =>
  value === null ? '(none)' : Array.isArray(value) ? value.join(', ') || '(none)' : value;

/** A monitor's changes, one a line: `field: previous -> current`. */
export function describeChanges(changes: MonitorChange[]): string[] {
  return changes.map(
    (change) => `  ${change.field}: ${shown(change.previous)} -> ${shown(change.current)}`,
  );
}
