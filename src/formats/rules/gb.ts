import { cleanIdentifier, type FormatOutcome, type FormatRule } from '../format-rule.js';
import { ukVat } from './corrected-validators.js';
import { stdnumRule } from './stdnum-rule.js';

/**
 * UK VAT numbers: GB for Great Britain, XI for Northern Ireland (the same number, used for trade in
 * goods under the Windsor Framework). The prefix given is kept; without one, GB is returned.
 */
export const gbVatRule: FormatRule = stdnumRule({
  countryCode: 'GB',
  identifierType: 'vat_number',
  name: 'VAT registration number',
  description:
    'GB or XI followed by 9 digits (12 with a branch suffix), or GD/HA and 3 digits for government departments and health authorities. The prefix may be omitted.',
  validator: ukVat,
  examples: ['GB980780684', 'GB340804329', 'XI980780684', 'GBGD001', 'GBHA500'],
  pattern: '^(GB|XI)([0-9]{9}|[0-9]{12}|GD[0-4][0-9]{2}|HA[5-9][0-9]{2}|(GD|HA)8888[0-9]{5})$',
  checks: ['prefix', 'length', 'characters', 'checksum', 'component'],
  source: 'HMRC VAT Notice 700/1 and VAT check-digit (modulus 97 and 9755) rules, via stdnum',
  prefixes: ['GB', 'XI'],
  outputPrefix: (used) => used ?? 'GB',
});

/**
 * Companies House number prefixes (two characters, then 6 digits). England and Wales companies
 * have none: 8 digits. Source: the "List of Company Numbers and Prefixes" of Companies House's
 * Uniform Resource Identifiers (URI) Customer Guide (adds ES and EN, Societates Europaeae in
 * Scotland and Northern Ireland, to the prefixes found on the register), and OE for the Register
 * of Overseas Entities that Companies House has kept since 1 August 2022 (Economic Crime
 * (Transparency and Enforcement) Act 2022), whose numbers its own services check as
 * `^OE[0-9]{6}$` (Companies House's oracle-query-api, "Invalid overseas entity number").
 */
const CRN_PREFIXES: Record<string, string> = {
  AC: 'assurance company (England and Wales)',
  BR: 'UK establishment of an overseas company',
  CE: 'charitable incorporated organisation (England and Wales)',
  CS: 'charitable incorporated organisation (Scotland)',
  EN: 'European public limited company (Societas Europaea, Northern Ireland)',
  ES: 'European public limited company (Societas Europaea, Scotland)',
  FC: 'overseas company',
  GE: 'European Economic Interest Grouping (England and Wales)',
  GN: 'European Economic Interest Grouping (Northern Ireland)',
  GS: 'European Economic Interest Grouping (Scotland)',
  IC: 'investment company with variable capital',
  IP: 'industrial and provident society',
  LP: 'limited partnership (England and Wales)',
  NA: 'assurance company (Northern Ireland)',
  NC: 'limited liability partnership (Northern Ireland)',
  NF: 'overseas company (Northern Ireland)',
  NI: 'company (Northern Ireland)',
  NL: 'limited partnership (Northern Ireland)',
  NO: 'other Northern Ireland body',
  NP: 'industrial and provident society (Northern Ireland)',
  NR: 'royal charter body (Northern Ireland)',
  NZ: 'not company act body (Northern Ireland)',
  OC: 'limited liability partnership (England and Wales)',
  OE: 'overseas entity (Register of Overseas Entities)',
  R0: 'company registered before 1973 (Northern Ireland)',
  RC: 'royal charter body (England and Wales)',
  RS: 'registered society (Scotland)',
  SA: 'assurance company (Scotland)',
  SC: 'company (Scotland)',
  SE: 'European public limited company (Societas Europaea, England and Wales)',
  SF: 'overseas company (Scotland)',
  SG: 'Scottish qualifying partnership',
  SI: 'investment company with variable capital (Scotland)',
  SL: 'limited partnership (Scotland)',
  SO: 'limited liability partnership (Scotland)',
  SP: 'industrial and provident society (Scotland)',
  SR: 'royal charter body (Scotland)',
  SZ: 'not company act body (Scotland)',
  ZC: 'not company act body (England and Wales)',
};

function checkCompanyNumber(input: string): FormatOutcome {
  const value = cleanIdentifier(input);
  // People drop leading zeros ("445790" for 00445790); the register pads to 8 characters.
  const digitsOnly = /^[0-9]{1,8}$/.exec(value);
  if (digitsOnly) {
    const padded = value.padStart(8, '0');
    if (/^0+$/.test(padded)) {
      return {
        status: 'invalid',
        normalized: padded,
        reason: 'component',
        message: 'is all zeros',
      };
    }
    return { status: 'valid', normalized: padded };
  }
  const prefixed = /^([A-Z][A-Z0-9])([0-9]{1,6})$/.exec(value);
  if (prefixed) {
    const [, prefix = '', number = ''] = prefixed;
    const normalized = `${prefix}${number.padStart(6, '0')}`;
    if (!CRN_PREFIXES[prefix]) {
      return {
        status: 'invalid',
        normalized,
        reason: 'component',
        message: `${prefix} is not a Companies House number prefix`,
      };
    }
    return { status: 'valid', normalized };
  }
  if (/^[0-9]{9,}$|^[A-Z][A-Z0-9][0-9]{7,}$/.test(value)) {
    return {
      status: 'invalid',
      normalized: value,
      reason: 'length',
      message: 'is longer than 8 characters',
    };
  }
  return {
    status: 'invalid',
    normalized: value,
    reason: 'characters',
    message: 'must be 8 digits, or a 2-letter prefix and 6 digits',
  };
}

export const gbCompanyNumberRule: FormatRule = {
  countryCode: 'GB',
  identifierType: 'registration_number',
  name: 'Companies House company number',
  description:
    '8 characters: 8 digits (England and Wales; leading zeros may be omitted) or a 2-character prefix such as SC, NI, OC, FC or OE (overseas entities) and 6 digits. There is no check digit.',
  examples: ['00445790', '00102498', 'SC005336', 'NI000001', 'OC300001', 'OE000001'],
  pattern: `^([0-9]{8}|(${Object.keys(CRN_PREFIXES).join('|')})[0-9]{6})$`,
  checks: ['length', 'characters', 'component'],
  coverage: 'supported',
  source:
    'Companies House: URI Customer Guide, list of company numbers and prefixes; OE for the Register of Overseas Entities',
  check: checkCompanyNumber,
};
