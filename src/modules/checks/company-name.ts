// Legal-form words dropped before comparing names: "ACME LIMITED" and "Acme Ltd." are one name.
const LEGAL_FORMS = new Set([
  'ltd',
  'limited',
  'plc',
  'llp',
  'lp',
  'cic',
  'gmbh',
  'mbh',
  'ag',
  'kg',
  'kgaa',
  'ohg',
  'ug',
  'haftungsbeschrankt',
  'ev',
  'eg',
  'se',
  'co',
  'company',
  'inc',
  'incorporated',
  'llc',
  'corp',
  'corporation',
  'pllc',
  'ltda',
  'sa',
  'sas',
  'sarl',
  'srl',
  'spa',
  'bv',
  'nv',
  'ab',
  'as',
  'asa',
  'oy',
  'oyj',
  'aps',
  'il',
  'the',
]);

/**
 * A company name reduced to what identifies it: case, accents, punctuation and legal-form words
 * (Ltd, Limited, GmbH, Inc, ...) removed, "&" read as "and".
 */
export function comparableCompanyName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}\s]/gu, '')
    .split(/\s+/)
    .filter((word) => word !== '' && !LEGAL_FORMS.has(word))
    .join(' ');
}

export function sameCompanyName(given: string, registered: string): boolean {
  return comparableCompanyName(given) === comparableCompanyName(registered);
}
