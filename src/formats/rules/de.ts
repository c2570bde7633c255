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
const COURT = /^[\p{L} ().,-]*$/u;

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
  const [, , register = '', number = '', suffix = ''] = match;
  const normalized = `${register}${number}${suffix}`;
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
 * The court is accepted but not part of the normalized number, and not checked against the list
 * of register courts: the rule is `partial` (a valid shape is not proof the entry exists).
 */
export const deRegisterNumberRule: FormatRule = {
  countryCode: 'DE',
  identifierType: 'registration_number',
  name: 'Handelsregisternummer',
  description:
    'A register type (HRA, HRB, GnR, GsR, PR or VR) and a number of up to 6 digits, optionally with a court suffix letter (HRB 86891 B), with or without the court before or after it (Amtsgericht München HRB 123456, HRA 350654, Mannheim). The court is not part of the normalized number.',
  examples: ['HRB86891B', 'HRB123456', 'HRA12345', 'VR1234'],
  pattern: `^(${REGISTERS.join('|')})[0-9]{1,6}[A-Z]{0,2}$`,
  checks: ['characters', 'length', 'component'],
  coverage: 'partial',
  source: 'Handelsregisterverordnung (HRV) § 27; register types of the German registers',
  check: checkRegisterNumber,
};
