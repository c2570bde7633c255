import { DE_REGISTER_COURT_ALIASES, DE_REGISTER_COURTS } from '../de-register-courts.js';
import type { FormatOutcome, FormatRule } from '../format-rule.js';

// Register types of the German commercial, cooperative, partnership, association and company
// registers (Handelsregister A/B, Genossenschafts-, Partnerschafts-, Vereins-, Gesellschaftsregister).
const REGISTERS = ['HRA', 'HRB', 'GNR', 'GSR', 'PR', 'VR'] as const;

// The register type and number, with an optional suffix letter (Berlin numbers end in "B") that
// ends the text or is followed by a comma. Around it, an optional court in the common forms:
// "Amtsgericht München HRB 1", "München HRB 1", "AG Köln, HRB 21508", "HRA 350654, Mannheim".
const SHAPE = new RegExp(
  `^([^0-9]*?)\\b(${REGISTERS.join('|')})\\s*([0-9]+)(?:\\s*([A-Z]{1,2})(?=$|\\s*,))?([^0-9]*)$`,
);
// A court is words (letters, including umlauts, spaces and light punctuation), never digits.
const COURT = /^[\p{L} ().,/-]*$/u;

/** A court name reduced to its letters a to z: accents dropped (Köln, Koln), ß as ss. */
function courtKey(name: string): string {
  return name
    .normalize('NFD')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^a-z]/g, '');
}
// The same with umlauts written out (Koeln, Muenchen), as people without the keys type them.
const spelledOut = (name: string) =>
  courtKey(name.replace(/[äÄ]/g, 'ae').replace(/[öÖ]/g, 'oe').replace(/[üÜ]/g, 'ue'));

const COURTS = new Map<string, string>();
for (const court of DE_REGISTER_COURTS) {
  COURTS.set(courtKey(court), court);
  COURTS.set(spelledOut(court), court);
}
for (const [alias, court] of Object.entries(DE_REGISTER_COURT_ALIASES)) {
  COURTS.set(courtKey(alias), court);
  COURTS.set(spelledOut(alias), court);
}

// Words around the court's name: "Registergericht: Amtsgericht München", "AG Köln",
// "eingetragen im Handelsregister des Amtsgerichts Mannheim".
const COURT_WORDS = new Set([
  'AG',
  'AMTSGERICHT',
  'AMTSGERICHTS',
  'REGISTERGERICHT',
  'REGISTERGERICHTS',
  'HANDELSREGISTER',
  'GENOSSENSCHAFTSREGISTER',
  'PARTNERSCHAFTSREGISTER',
  'VEREINSREGISTER',
  'EINGETRAGEN',
  'IM',
  'BEIM',
  'DES',
]);

/** The register court a text names, '' when it names none, undefined when it is no court. */
function registerCourt(text: string): string | undefined {
  const words = text.replace(/^[\s,]+|[\s,]+$/g, '').split(/\s+/);
  while (words.length > 0 && COURT_WORDS.has(words[0] ?? '')) words.shift();
  const name = words.join(' ');
  if (courtKey(name) === '') return '';
  return COURTS.get(courtKey(name));
}

function checkRegisterNumber(input: string): FormatOutcome {
  const text = input
    .normalize('NFKC')
    .toUpperCase()
    .replace(/(?<=[0-9])[.\s](?=[0-9])/g, '') // "HRB 123.456", "HRB 123 456"
    .replace(/[.:]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const match = SHAPE.exec(text);
  const compact = text.replace(/[\s/,-]/g, '');
  // A court after the number must follow a comma ("HRA 350654, Mannheim"); otherwise trailing
  // letters are a malformed suffix ("HRB 178881 XYZ"), not a court.
  const trailing = match?.[5]?.trim() ?? '';
  if (
    !match ||
    !COURT.test(`${match[1] ?? ''}${trailing}`) ||
    (trailing !== '' && !trailing.startsWith(','))
  ) {
    return {
      status: 'invalid',
      normalized: compact,
      reason: /\b(HRA|HRB|GNR|GSR|PR|VR)/.test(text) ? 'characters' : 'component',
      message: `must be a register type (${REGISTERS.join(', ')}) and a number, such as HRB 86891 B`,
    };
  }
  const [, before = '', register = '', number = '', suffix = ''] = match;
  const normalized = `${register}${number}${suffix}`;
  const court = `${before} ${trailing}`;
  if (registerCourt(court) === undefined) {
    return {
      status: 'invalid',
      normalized,
      reason: 'component',
      message: `names a court that keeps no German register (${court.replace(/[\s,]+/g, ' ').trim()}); see the list of Registergerichte`,
    };
  }
  if (number.length > 6 || /^0+$/.test(number)) {
    return {
      status: 'invalid',
      normalized,
      reason: 'length',
      message: 'the register number has 1 to 6 digits and is not zero',
    };
  }
  return { status: 'valid', normalized };
}

/**
 * The court, when given, must be a register court (src/formats/de-register-courts.ts); it is
 * not part of the normalized number. The rule is `partial`: a valid shape and court are not proof
 * that the entry exists.
 */
export const deRegisterNumberRule: FormatRule = {
  countryCode: 'DE',
  identifierType: 'registration_number',
  name: 'Handelsregisternummer',
  description:
    'A register type (HRA, HRB, GnR, GsR, PR or VR) and a number of up to 6 digits, optionally with a court suffix letter (HRB 86891 B), with or without the court before or after it (Amtsgericht München HRB 123456, HRA 350654, Mannheim). A court, when given, must be one of the register courts (Registergerichte); it is not part of the normalized number.',
  examples: ['HRB86891B', 'HRB123456', 'HRA12345', 'VR1234'],
  pattern: `^(${REGISTERS.join('|')})[0-9]{1,6}[A-Z]{0,2}$`,
  checks: ['characters', 'length', 'component'],
  coverage: 'partial',
  source:
    'Handelsregisterverordnung (HRV) § 27; register types of the German registers; register courts of handelsregister.de',
  check: checkRegisterNumber,
};
