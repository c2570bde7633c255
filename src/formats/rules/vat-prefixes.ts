/**
 * VAT number prefixes and the countries they belong to (EU member states as in VIES, where
 * Greece is EL; Northern Ireland XI is part of GB; Switzerland CHE; Norway NO).
 */
const VAT_PREFIXES: Record<string, { countryCode: string; country: string } | undefined> = {
  AT: { countryCode: 'AT', country: 'Austria' },
  BE: { countryCode: 'BE', country: 'Belgium' },
  BG: { countryCode: 'BG', country: 'Bulgaria' },
  CY: { countryCode: 'CY', country: 'Cyprus' },
  CZ: { countryCode: 'CZ', country: 'Czechia' },
  DE: { countryCode: 'DE', country: 'Germany' },
  DK: { countryCode: 'DK', country: 'Denmark' },
  EE: { countryCode: 'EE', country: 'Estonia' },
  EL: { countryCode: 'GR', country: 'Greece' },
  GR: { countryCode: 'GR', country: 'Greece' },
  ES: { countryCode: 'ES', country: 'Spain' },
  FI: { countryCode: 'FI', country: 'Finland' },
  FR: { countryCode: 'FR', country: 'France' },
  HR: { countryCode: 'HR', country: 'Croatia' },
  HU: { countryCode: 'HU', country: 'Hungary' },
  IE: { countryCode: 'IE', country: 'Ireland' },
  IT: { countryCode: 'IT', country: 'Italy' },
  LT: { countryCode: 'LT', country: 'Lithuania' },
  LU: { countryCode: 'LU', country: 'Luxembourg' },
  LV: { countryCode: 'LV', country: 'Latvia' },
  MT: { countryCode: 'MT', country: 'Malta' },
  NL: { countryCode: 'NL', country: 'the Netherlands' },
  PL: { countryCode: 'PL', country: 'Poland' },
  PT: { countryCode: 'PT', country: 'Portugal' },
  RO: { countryCode: 'RO', country: 'Romania' },
  SE: { countryCode: 'SE', country: 'Sweden' },
  SI: { countryCode: 'SI', country: 'Slovenia' },
  SK: { countryCode: 'SK', country: 'Slovakia' },
  GB: { countryCode: 'GB', country: 'the United Kingdom' },
  XI: { countryCode: 'GB', country: 'the United Kingdom (Northern Ireland)' },
  CHE: { countryCode: 'CH', country: 'Switzerland' },
  NO: { countryCode: 'NO', country: 'Norway' },
};

// Prefix lengths, longest first (CHE before CH...): a number is matched against the longest.
const LENGTHS = [...new Set(Object.keys(VAT_PREFIXES).map((p) => p.length))].sort((a, b) => b - a);

const isDigitAt = (value: string, index: number) => {
  const c = value.charCodeAt(index);
  return c >= 48 && c <= 57;
};

/**
 * The prefix a number starts with when that prefix belongs to another country: `FR...` checked as
 * a German number is a wrong-country mistake, worth saying so rather than "wrong characters".
 * A prefix counts only when a digit follows it (`NL...` is a prefix, `NLB...` is not).
 */
export function foreignVatPrefix(
  value: string,
  countryCode: string,
): { prefix: string; country: string } | undefined {
  for (const length of LENGTHS) {
    if (!isDigitAt(value, length)) continue;
    const prefix = value.slice(0, length);
    const owner = VAT_PREFIXES[prefix];
    if (!owner) continue;
    return owner.countryCode === countryCode ? undefined : { prefix, country: owner.country };
  }
  return undefined;
}
