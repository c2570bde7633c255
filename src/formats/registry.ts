import {
  cleanIdentifier,
  type FormatOutcome,
  type FormatRule,
  type IdentifierType,
} from './format-rule.js';
import { deRegisterNumberRule } from './rules/de.js';
import { gbCompanyNumberRule, gbVatRule } from './rules/gb.js';
import {
  euRegistrationRules,
  norwayRules,
  otherRules,
  switzerlandRules,
  unitedStatesRules,
} from './rules/other.js';
import { euVatRules } from './rules/vat-eu.js';

/** Every published rule: the one list behind checks, GET /countries and docs/formats.md. */
export const FORMAT_RULES: readonly FormatRule[] = [
  ...euVatRules,
  gbVatRule,
  gbCompanyNumberRule,
  deRegisterNumberRule,
  ...switzerlandRules,
  ...norwayRules,
  ...unitedStatesRules,
  ...otherRules,
  ...euRegistrationRules,
].sort((a, b) =>
  a.countryCode === b.countryCode
    ? a.identifierType.localeCompare(b.identifierType)
    : a.countryCode.localeCompare(b.countryCode),
);

const BY_KEY = new Map(
  FORMAT_RULES.map((rule) => [`${rule.countryCode}:${rule.identifierType}`, rule]),
);

export function findFormatRule(
  countryCode: string,
  identifierType: IdentifierType,
): FormatRule | undefined {
  return BY_KEY.get(`${countryCode.toUpperCase()}:${identifierType}`);
}

/**
 * The format finding of a check. Without a rule for the country and type the answer is
 * `not_supported` (never `invalid`), with the input cleaned as far as the shared rules go.
 */
export function checkFormat(
  countryCode: string,
  identifierType: IdentifierType,
  input: string,
): FormatOutcome {
  const rule = findFormatRule(countryCode, identifierType);
  if (!rule) return { status: 'not_supported', normalized: cleanIdentifier(input) };
  return rule.check(input);
}
