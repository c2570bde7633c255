import { registerCountryNames } from './countries.js';
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
import {
  americasAsiaPacificNames,
  americasAsiaPacificRules,
} from './rules/world-americas-asia-pacific.js';
import { europeAfricaNames, europeAfricaRules } from './rules/world-europe-africa.js';

registerCountryNames(americasAsiaPacificNames);
registerCountryNames(europeAfricaNames);

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
  ...americasAsiaPacificRules,
  ...europeAfricaRules,
].sort((a, b) =>
  a.countryCode === b.countryCode
    ? a.identifierType.localeCompare(b.identifierType)
    : a.countryCode.localeCompare(b.countryCode),
);

// Rules by country, then type: a check looks its rule up without building a key. Plain objects
// without a prototype, so that no inherited name is ever taken for a country.
const BY_COUNTRY: Record<string, Partial<Record<IdentifierType, FormatRule>> | undefined> =
  Object.create(null);
for (const rule of FORMAT_RULES) {
  const types = BY_COUNTRY[rule.countryCode] ?? Object.create(null);
  types[rule.identifierType] = rule;
  BY_COUNTRY[rule.countryCode] = types;
}

const isUpperAscii = (text: string) => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 65 || c > 90) return false;
  }
  return true;
};

export function findFormatRule(
  countryCode: string,
  identifierType: IdentifierType,
): FormatRule | undefined {
  const types = BY_COUNTRY[isUpperAscii(countryCode) ? countryCode : countryCode.toUpperCase()];
  return types?.[identifierType];
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
