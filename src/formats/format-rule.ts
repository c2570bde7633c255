/** The identifier types of the contract (section 2). */
export const IDENTIFIER_TYPES = ['vat_number', 'tax_identifier', 'registration_number'] as const;
export type IdentifierType = (typeof IDENTIFIER_TYPES)[number];

/** Why a number is invalid; a check names what it verifies with the same words. */
export type FormatCheck = 'length' | 'characters' | 'checksum' | 'prefix' | 'component';

export type FormatOutcome =
  | {
      status: 'valid';
      normalized: string;
      /**
       * Set when the input was another number that carries this one (a French SIRET or RCS
       * registration read as its SIREN): a check says so in a warning.
       */
      notice?: string;
    }
  | { status: 'invalid'; normalized: string; reason: FormatCheck; message: string }
  | { status: 'not_supported'; normalized: string };

/**
 * How one (country, identifier type) is recognised. Pure: no I/O, no HTTP. The same object feeds
 * checks, the countries endpoint and docs/formats.md, so they cannot drift apart.
 */
export interface FormatRule {
  countryCode: string;
  identifierType: IdentifierType;
  /** What the number is called, for people. */
  name: string;
  /** What is accepted and checked, for the countries endpoint. */
  description: string;
  /** Valid normalized numbers; each passes `check` and matches `pattern`. */
  examples: readonly string[];
  /** A regular expression every valid normalized number matches. */
  pattern?: string;
  /** What `check` verifies. */
  checks: readonly FormatCheck[];
  /** `partial` when a valid answer cannot rule out every invalid number (no checksum, open lists). */
  coverage: 'supported' | 'partial';
  /** Where the rule comes from. */
  source: string;
  /**
   * The `stdnum` validator the rule stands in for (`CZ.dic`), even where the rule corrects it:
   * the benchmark's raw baseline. Absent for rules of our own (GB company numbers).
   */
  stdnum?: string;
  check(input: string): FormatOutcome;
}

/** What `cleanIdentifier` removes, in words: docs/formats.md is generated with this sentence. */
export const REMOVED_SEPARATORS =
  'spaces of any kind, dots, commas, colons, dashes of any kind (hyphen, en and em dashes, minus sign) and slashes';

/**
 * Normalisation shared by every rule: what people paste from invoices. Unicode is folded (NFKC, so
 * full-width digits become digits), case is folded, and the separators of REMOVED_SEPARATORS are
 * removed ("DK: 21599336", "DE 136,695 976").
 *
 * Every check starts here, so plain ASCII (nearly every input) takes a loop over its characters:
 * NFKC leaves ASCII alone, and an input that is already clean is returned as it is.
 */
export function cleanIdentifier(input: string): string {
  const length = input.length;
  let i = 0;
  // Fast path: nothing to change while the characters are digits and capital letters.
  for (; i < length; i++) {
    const c = input.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90))) break;
  }
  if (i === length) return input;
  let out = input.slice(0, i);
  for (; i < length; i++) {
    const c = input.charCodeAt(i);
    if (c >= 0x80) return cleanUnicode(input);
    if (c >= 97 && c <= 122) out += String.fromCharCode(c - 32);
    else if (!isAsciiSeparator(c)) out += input.charAt(i);
  }
  return out;
}

// The ASCII members of the separator set below: tab to carriage return, space, comma, hyphen,
// dot, slash, colon.
const isAsciiSeparator = (c: number) =>
  (c >= 9 && c <= 13) || c === 32 || c === 44 || c === 45 || c === 46 || c === 47 || c === 58;

function cleanUnicode(input: string): string {
  return input
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[\s.,:\u002D\u2010-\u2015\u2212/]/g, '');
}
