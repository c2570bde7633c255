import { cleanIdentifier, type FormatOutcome, type FormatRule } from '../format-rule.js';
import { type StdnumValidator, stdnumRule, validatorOf } from './stdnum-rule.js';

// The Swiss UID validator expects its CHE prefix; the rule strips it first.
const stdnumSwissUid = validatorOf('CH', 'uid');
const swissUid: StdnumValidator = {
  stdnum: 'CH.uid',
  validate: (body) => stdnumSwissUid.validate(`CHE${body}`),
};

const source = (authority: string) => `${authority}; check-digit algorithm via stdnum`;

export const switzerlandRules: FormatRule[] = [
  stdnumRule({
    countryCode: 'CH',
    identifierType: 'vat_number',
    name: 'MWST/TVA/IVA-Nummer',
    description:
      'CHE followed by 9 digits (the UID with a modulus 11 check digit); a trailing MWST, TVA, IVA or TPV is accepted and not part of the normalized number.',
    validator: swissUid,
    examples: ['CHE107787577', 'CHE100155212', 'CHE109910570'],
    pattern: '^CHE[0-9]{9}$',
    checks: ['prefix', 'length', 'characters', 'checksum'],
    source: source('Swiss Federal Statistical Office, UID register'),
    prefixes: ['CHE'],
    suffixes: ['MWST', 'TVA', 'IVA', 'TPV'],
  }),
  stdnumRule({
    countryCode: 'CH',
    identifierType: 'registration_number',
    name: 'Unternehmens-Identifikationsnummer (UID)',
    description: 'CHE followed by 9 digits with a modulus 11 check digit.',
    validator: swissUid,
    examples: ['CHE107787577', 'CHE100155212', 'CHE109910570'],
    pattern: '^CHE[0-9]{9}$',
    checks: ['prefix', 'length', 'characters', 'checksum'],
    source: source('Swiss Federal Statistical Office, UID register'),
    prefixes: ['CHE'],
  }),
];

export const norwayRules: FormatRule[] = [
  stdnumRule({
    countryCode: 'NO',
    identifierType: 'vat_number',
    name: 'Merverdiavgiftsnummer (MVA)',
    description:
      'NO, the 9-digit organisasjonsnummer (modulus 11 check digit) and MVA; prefix and suffix may be omitted.',
    validator: validatorOf('NO', 'orgnr'),
    examples: ['NO995525828MVA', 'NO988077917MVA'],
    pattern: '^NO[0-9]{9}MVA$',
    checks: ['prefix', 'length', 'characters', 'checksum'],
    source: source('Brønnøysund Register Centre'),
    prefixes: ['NO'],
    suffixes: ['MVA'],
    outputSuffix: 'MVA',
  }),
  stdnumRule({
    countryCode: 'NO',
    identifierType: 'registration_number',
    name: 'Organisasjonsnummer',
    description: '9 digits with a modulus 11 check digit.',
    validator: validatorOf('NO', 'orgnr'),
    examples: ['995525828', '988077917'],
    pattern: '^[0-9]{9}$',
    checks: ['length', 'characters', 'checksum'],
    source: source('Brønnøysund Register Centre'),
  }),
];

const einRule = stdnumRule({
  countryCode: 'US',
  identifierType: 'tax_identifier',
  name: 'Employer Identification Number (EIN)',
  description:
    "9 digits, usually written XX-XXXXXXX; the first two must be a prefix the IRS assigns (its campus and internet prefixes). There is no check digit. A number written in the social security layout XXX-XX-XXXX is refused: that layout is an SSN or ITIN, an individual's number, not an EIN.",
  validator: validatorOf('US', 'ein'),
  examples: ['042103594', '536904399', '133898270'],
  pattern:
    '^(0[1-6]|1[0-6]|2[0-7]|3[0-9]|4[0-8]|5[0-9]|6[0-8]|7[1-7]|8[0-8]|9[0-5]|9[89])[0-9]{7}$',
  checks: ['length', 'characters', 'component'],
  source: 'IRS, "How EINs are assigned and valid EIN prefixes"; SSA and IRS number layouts',
});

// Three, two and four digits, split by dashes or spaces: how SSNs and ITINs are written (an EIN
// is two and seven). The digits alone cannot tell the numbers apart; the layout can.
const SSN_LAYOUT = /^\s*[0-9]{3}(\s*[-\u2010-\u2015\u2212]\s*|\s+)[0-9]{2}\1[0-9]{4}\s*$/;

/** docs/decisions.md, "US EINs in the social security layout": refused, not warned about. */
function checkEin(input: string): FormatOutcome {
  if (SSN_LAYOUT.test(input)) {
    return {
      status: 'invalid',
      normalized: cleanIdentifier(input),
      reason: 'characters',
      message:
        "is written as a social security number (XXX-XX-XXXX), an individual's SSN or ITIN; an EIN is written XX-XXXXXXX",
    };
  }
  return einRule.check(input);
}

export const unitedStatesRules: FormatRule[] = [{ ...einRule, check: checkEin }];

export const otherRules: FormatRule[] = [
  stdnumRule({
    countryCode: 'AU',
    identifierType: 'vat_number',
    name: 'Australian Business Number (ABN)',
    description: '11 digits with a modulus 89 check (the number GST registration is attached to).',
    validator: validatorOf('AU', 'abn'),
    examples: ['83914571673', '51824753556'],
    pattern: '^[0-9]{11}$',
    checks: ['length', 'characters', 'checksum'],
    source: source('Australian Business Register'),
  }),
  stdnumRule({
    countryCode: 'AU',
    identifierType: 'registration_number',
    name: 'Australian Company Number (ACN)',
    description: '9 digits with a weighted check digit.',
    validator: validatorOf('AU', 'acn'),
    examples: ['004085616', '010499966'],
    pattern: '^[0-9]{9}$',
    checks: ['length', 'characters', 'checksum'],
    source: source('Australian Securities and Investments Commission'),
  }),
  stdnumRule({
    countryCode: 'CA',
    identifierType: 'vat_number',
    name: 'Business Number (BN) / GST/HST registration',
    description:
      '9 digits with a Luhn check, optionally followed by a 2-letter program identifier and 4-digit reference (RT0001 for GST/HST).',
    validator: validatorOf('CA', 'bn'),
    examples: ['123026635', '123026635RC0001'],
    pattern: '^[0-9]{9}([A-Z]{2}[0-9]{4})?$',
    checks: ['length', 'characters', 'checksum', 'component'],
    source: source('Canada Revenue Agency'),
  }),
  stdnumRule({
    countryCode: 'BR',
    identifierType: 'registration_number',
    name: 'Cadastro Nacional da Pessoa Jurídica (CNPJ)',
    description:
      '14 characters: 12 digits (letters too, from July 2026) and 2 check digits, usually written 00.000.000/0000-00.',
    validator: validatorOf('BR', 'cnpj'),
    examples: ['16727230000197', '12ABC34501DE35'],
    pattern: '^[0-9A-Z]{12}[0-9]{2}$',
    checks: ['length', 'characters', 'checksum'],
    source: source('Receita Federal do Brasil'),
  }),
  stdnumRule({
    countryCode: 'IN',
    identifierType: 'vat_number',
    name: 'Goods and Services Tax Identification Number (GSTIN)',
    description: '15 characters: state code, PAN, entity number, Z and a check character.',
    validator: validatorOf('IN', 'gstin'),
    examples: ['27AAPFU0939F1ZV', '29AAGCB7383J1Z4'],
    pattern: '^[0-9]{2}[0-9A-Z]{10}[0-9A-Z]Z[0-9A-Z]$',
    checks: ['length', 'characters', 'checksum', 'component'],
    source: source('Goods and Services Tax Network'),
  }),
];

// Company registration numbers of EU countries whose register numbers carry a check digit.
export const euRegistrationRules: FormatRule[] = [
  [
    'FR',
    'Numéro SIREN',
    validatorOf('FR', 'siren'),
    ['552008443', '732829320'],
    '^[0-9]{9}$',
    '9 digits with a Luhn check',
    'INSEE, SIRENE register',
  ],
  [
    'SE',
    'Organisationsnummer',
    validatorOf('SE', 'orgnr'),
    ['1234567897', '5560360793'],
    '^[0-9]{10}$',
    '10 digits with a Luhn check',
    'Bolagsverket',
  ],
  [
    'FI',
    'Y-tunnus (Business ID)',
    validatorOf('FI', 'ytunnus'),
    ['20774740', '07375462'],
    '^[0-9]{8}$',
    '7 digits, a dash and a check digit',
    'Finnish Patent and Registration Office',
  ],
  [
    'DK',
    'CVR-nummer',
    validatorOf('DK', 'cvr'),
    ['13585628', '19319970'],
    '^[0-9]{8}$',
    '8 digits with a modulus 11 check',
    'Danish Business Authority (CVR)',
  ],
  [
    'CZ',
    'Identifikační číslo osoby (IČO)',
    validatorOf('CZ', 'ico'),
    ['25596641', '27082440', '00023205'],
    '^[0-9]{8}$',
    '8 digits with a modulus 11 check',
    'Czech Statistical Office, ARES',
  ],
  [
    'EE',
    'Registrikood',
    validatorOf('EE', 'registrikood'),
    ['12345678', '10137319'],
    '^[0-9]{8}$',
    '8 digits with a check digit',
    'Estonian e-Business Register',
  ],
  [
    'PL',
    'REGON',
    validatorOf('PL', 'regon'),
    ['123456785', '192598184'],
    '^[0-9]{9}([0-9]{5})?$',
    '9 or 14 digits with check digits',
    'Statistics Poland',
  ],
]
  .map(([countryCode, name, validator, examples, pattern, text, authority]) =>
    stdnumRule({
      countryCode: countryCode as string,
      identifierType: 'registration_number',
      name: name as string,
      description: `${text}.`,
      validator: validator as StdnumValidator,
      examples: examples as string[],
      pattern: pattern as string,
      checks: ['length', 'characters', 'checksum'],
      source: source(authority as string),
    }),
  )
  .map((rule) =>
    rule.countryCode === 'FR'
      ? frenchRegistration(rule)
      : rule.countryCode === 'PL'
        ? polishRegistration(rule)
        : rule,
  );

/** `KRS` and up to 10 digits once cleaned ("KRS 0000019193", "KRS 19193"). */
const KRS_PREFIXED = /^KRS([0-9]{1,10})$/;

/**
 * The PL registration number is the REGON (Statistics Poland), which every entity has, or the KRS
 * number (the National Court Register's, Krajowy Rejestr Sądowy), which companies, associations
 * and foundations have and print on their documents. The two cannot be confused: a REGON has 9 or
 * 14 digits, a KRS number 10, written with its leading zeros ("0000019193"; numbers are given in
 * sequence and are still far below 0010000000). A KRS number carries no check digit, so only its
 * length and characters are checked, and the rule is `partial`. Written with "KRS" before it, a
 * number may drop its leading zeros; bare, a 10-digit number must start with 0, since one that
 * does not is likely a NIP (a tax number, asked for as a PL vat_number).
 */
function polishRegistration(regon: FormatRule): FormatRule {
  function check(input: string): FormatOutcome {
    const value = cleanIdentifier(input);
    const prefixed = KRS_PREFIXED.exec(value)?.[1];
    if (prefixed) return { status: 'valid', normalized: prefixed.padStart(10, '0') };
    if (/^0[0-9]{9}$/.test(value)) return { status: 'valid', normalized: value };
    if (/^[1-9][0-9]{9}$/.test(value))
      return {
        status: 'invalid',
        normalized: value,
        reason: 'length',
        message:
          'has 10 digits, which is neither a REGON (9 or 14 digits) nor a KRS number (10 digits written with their leading zeros, such as 0000019193); a NIP is checked as a PL vat_number',
      };
    return regon.check(input);
  }
  return {
    ...regon,
    name: 'REGON or KRS number',
    description:
      'The REGON: 9 or 14 digits with check digits. Or the KRS number (National Court Register): 10 digits with their leading zeros ("0000019193"), or "KRS" followed by the number; it has no check digit, so only its length is checked.',
    examples: [...regon.examples, '0000019193'],
    pattern: '^([0-9]{9}|[0-9]{14}|0[0-9]{9})$',
    checks: ['length', 'characters', 'checksum'],
    coverage: 'partial',
    source: `${regon.source}; KRS numbers: Ministry of Justice, National Court Register`,
    check,
  };
}

const stdnumSiret = validatorOf('FR', 'siret');
/** `RCS <city> [A|B] <SIREN>` once cleaned: the registry's city, A (trader) or B (company). */
const RCS = /^RCS(\p{L}+?)([AB])?([0-9]{9})$/u;

/**
 * The FR registration number is the SIREN (the legal unit). People also paste the two numbers
 * that carry it: a SIRET (the SIREN and a 5-digit establishment number, NIC) from an invoice, and
 * the trade-register mention "RCS Paris B 552 008 443". Both are read as their SIREN, and the
 * check says so. A SIRET is checked as python-stdnum's stdnum/fr/siret.py does (via stdnum's
 * FR.siret): Luhn over the 14 digits, except La Poste's establishments (SIREN 356000000 but its
 * head office 35600000000048), whose digits add up to a multiple of 5; then its SIREN's own Luhn.
 */
function frenchRegistration(siren: FormatRule): FormatRule {
  function check(input: string): FormatOutcome {
    const value = cleanIdentifier(input);
    if (/^[0-9]{14}$/.test(value)) {
      if (!stdnumSiret.validate(value).isValid)
        return {
          status: 'invalid',
          normalized: value,
          reason: 'checksum',
          message: 'fails its check digit (as a SIRET: a SIREN and a 5-digit establishment number)',
        };
      const outcome = siren.check(value.slice(0, 9));
      if (outcome.status !== 'valid') return outcome;
      return {
        ...outcome,
        notice: `A SIRET (an establishment's number) was given; the company's SIREN ${outcome.normalized}, its first 9 digits, was checked.`,
      };
    }
    const rcs = RCS.exec(value);
    if (rcs?.[3]) {
      const outcome = siren.check(rcs[3]);
      if (outcome.status !== 'valid') return outcome;
      return {
        ...outcome,
        notice: `An RCS registration was given; the SIREN ${outcome.normalized} it carries was checked.`,
      };
    }
    return siren.check(input);
  }
  return {
    ...siren,
    description:
      '9 digits with a Luhn check (the SIREN). A 14-digit SIRET (the SIREN and a 5-digit establishment number, with a Luhn check over all 14 except for La Poste, whose digits add up to a multiple of 5) and an RCS registration ("RCS Paris B 552 008 443") are accepted and read as the SIREN they carry.',
    checks: ['length', 'characters', 'checksum'],
    check,
  };
}
