import type { FormatOutcome, FormatRule } from '../format-rule.js';
import {
  andorraNrt,
  azerbaijanVoen,
  belarusUnp,
  omanVat,
  romaniaOnrc,
  romaniaOnrcFromOldForm,
  russiaOgrn,
  senegalNinea,
  sloveniaMaticna,
} from './corrected-europe-africa.js';
import { belgianVat } from './corrected-validators.js';
import { type StdnumValidator, stdnumRule, validatorOf } from './stdnum-rule.js';

/**
 * Rules for the rest of Europe, the Middle East and Africa beyond the core set (issue 17), with
 * the registration numbers of EU countries that had none. Country names are published beside them
 * (COUNTRY_NAMES in countries.ts takes them from here). docs/decisions.md says why each number is
 * the type it is: the number VAT is registered under is `vat_number`, a register's number is
 * `registration_number`, and a tax number VAT is not registered under is `tax_identifier`.
 */

const source = (authority: string) => `${authority}; check-digit algorithm via stdnum`;
const ported = (authority: string, module: string) =>
  `${authority}; algorithm as python-stdnum ${module}`;
const noPrefix = () => '';

const CHECKSUM = ['length', 'characters', 'checksum'] as const;
const COMPONENT_CHECKSUM = ['length', 'characters', 'component', 'checksum'] as const;

const europe: FormatRule[] = [
  stdnumRule({
    countryCode: 'AD',
    identifierType: 'vat_number',
    name: 'Número de Registre Tributari (NRT)',
    description:
      'A letter for the kind of taxpayer (A C D E F G L O P U), 6 digits in the range of that kind, and a letter, often written U-132950-X. The last letter is a check letter whose algorithm is not published, so it is not verified.',
    validator: andorraNrt,
    examples: ['U132950X', 'A700555R', 'F245998L'],
    pattern: '^[ACDEFGLOPU][0-9]{6}[A-Z]$',
    checks: ['length', 'characters', 'component'],
    coverage: 'partial',
    source: ported("Govern d'Andorra, Departament de Tributs i de Fronteres", 'ad/nrt.py'),
  }),
  stdnumRule({
    countryCode: 'AL',
    identifierType: 'vat_number',
    name: 'Numri i Identifikimit për Personin e Tatueshëm (NIPT/NUIS)',
    description:
      'A letter A to M (the decade of registration), 8 digits and a letter; an AL prefix is accepted and dropped. The last letter is a check letter whose algorithm is not published, so it is not verified.',
    validator: validatorOf('AL', 'nipt'),
    examples: ['J91402501L', 'J98624806P', 'K82418002C'],
    pattern: '^[A-M][0-9]{8}[A-Z]$',
    checks: ['length', 'characters'],
    coverage: 'partial',
    source:
      'Albanian National Business Center (QKB) and General Directorate of Taxes; format via stdnum',
    prefixes: ['AL'],
    outputPrefix: noPrefix,
  }),
  stdnumRule({
    countryCode: 'AZ',
    identifierType: 'vat_number',
    name: 'Vergi ödəyicisinin eyniləşdirmə nömrəsi (VÖEN)',
    description:
      '10 digits: region, serial, a modulus 11 check digit and 1 (legal persons) or 2 (natural persons); a 9-digit number is read with its leading 0.',
    validator: azerbaijanVoen,
    examples: ['1401555071', '0200432771', '2903227542'],
    pattern: '^[0-9]{8}[0-9][12]$',
    checks: COMPONENT_CHECKSUM,
    source: ported('State Tax Service of Azerbaijan', 'az/voen.py'),
  }),
  stdnumRule({
    countryCode: 'BY',
    identifierType: 'vat_number',
    name: 'Учетный номер плательщика (УНП, UNP)',
    description:
      '9 characters: 9 digits (legal entities), or 2 letters and 7 digits (individual entrepreneurs; Cyrillic letters are read as the Latin letters they look like), with a modulus 11 check digit; a UNP or УНП prefix is dropped.',
    validator: belarusUnp,
    examples: ['200988541', '100217336', '192035780'],
    pattern: '^([1-7][0-9]|[ABCEHKM][ABCEHKMOPT])[0-9]{7}$',
    checks: COMPONENT_CHECKSUM,
    source: source('Ministry of Taxes and Duties of the Republic of Belarus'),
    prefixes: ['UNP', 'УНП'],
    outputPrefix: noPrefix,
  }),
  stdnumRule({
    countryCode: 'IS',
    identifierType: 'registration_number',
    name: 'Kennitala',
    description:
      '10 digits, often written DDMMYY-NNNN: a date (organisations add 40 to the day), a serial, a modulus 11 check digit and the century (9 or 0). People carry one too (sole traders trade under theirs).',
    validator: validatorOf('IS', 'kennitala'),
    examples: ['4504013150', '0208842749', '5609091440'],
    pattern: '^[0-9]{9}[09]$',
    checks: COMPONENT_CHECKSUM,
    source: source('Skatturinn, Fyrirtækjaskrá (Iceland Revenue and Customs, company register)'),
  }),
  stdnumRule({
    countryCode: 'MC',
    identifierType: 'vat_number',
    name: 'Numéro de TVA intracommunautaire (Monaco)',
    description:
      'FR, a 2-digit key and 9 digits starting 000: Monaco is French territory for VAT, and its numbers are French VAT numbers that are not based on a SIREN.',
    validator: validatorOf('MC', 'tva'),
    examples: ['FR53000004605', 'FR23000047372', 'FR16000063601'],
    pattern: '^FR[0-9]{2}000[0-9]{6}$',
    checks: COMPONENT_CHECKSUM,
    source: source('Direction des Services Fiscaux, Principauté de Monaco'),
    prefixes: ['FR'],
  }),
  stdnumRule({
    countryCode: 'MD',
    identifierType: 'registration_number',
    name: 'Numărul de identificare de stat (IDNO)',
    description:
      '13 digits with a weighted check digit (the state identification number of legal entities, also their fiscal code).',
    validator: validatorOf('MD', 'idno'),
    examples: ['1008600038413', '1002600000283', '1007601004342'],
    pattern: '^[0-9]{13}$',
    checks: CHECKSUM,
    source: source(
      'Public Services Agency of the Republic of Moldova, State Register of Legal Entities',
    ),
  }),
  stdnumRule({
    countryCode: 'ME',
    identifierType: 'vat_number',
    name: 'Poreski identifikacioni broj (PIB)',
    description: '8 digits with a modulus 11 check digit.',
    validator: validatorOf('ME', 'pib'),
    examples: ['02655284', '02000989', '02467593'],
    pattern: '^[0-9]{8}$',
    checks: CHECKSUM,
    source: source('Tax Administration of Montenegro'),
  }),
  stdnumRule({
    countryCode: 'MK',
    identifierType: 'vat_number',
    name: 'Единствен даночен број (ЕДБ, EDB)',
    description:
      '13 digits with a modulus 11 check digit; the MK prefix of VAT registrations is accepted and dropped.',
    validator: validatorOf('MK', 'edb'),
    examples: ['4030000375897', '4030005534810', '4001015504286'],
    pattern: '^[0-9]{13}$',
    checks: CHECKSUM,
    source: source('Public Revenue Office of North Macedonia'),
    prefixes: ['MK'],
    outputPrefix: noPrefix,
  }),
  stdnumRule({
    countryCode: 'RS',
    identifierType: 'vat_number',
    name: 'Poreski identifikacioni broj (PIB)',
    description: '9 digits with an ISO 7064 mod 11,10 check digit.',
    validator: validatorOf('RS', 'pib'),
    examples: ['101134702', '100000303', '100187392'],
    pattern: '^[0-9]{9}$',
    checks: CHECKSUM,
    source: source('Tax Administration of Serbia'),
  }),
  stdnumRule({
    countryCode: 'RU',
    identifierType: 'vat_number',
    name: 'Идентификационный номер налогоплательщика (ИНН, INN)',
    description:
      '10 digits (organisations) or 12 digits (individuals and individual entrepreneurs) with check digits.',
    validator: validatorOf('RU', 'inn'),
    examples: ['123456789047', '005826107187', '7609000881'],
    pattern: '^[0-9]{10}([0-9]{2})?$',
    checks: CHECKSUM,
    source: source('Federal Tax Service of Russia'),
  }),
  stdnumRule({
    countryCode: 'RU',
    identifierType: 'registration_number',
    name: 'Основной государственный регистрационный номер (ОГРН, OGRN)',
    description:
      '13 digits (OGRN of legal entities) or 15 digits starting 3 or 4 (OGRNIP of individual entrepreneurs); the last digit is the last digit of the rest of the number modulo 11 or 13.',
    validator: russiaOgrn,
    examples: ['1022200525819', '1022300000502', '1022500000566'],
    pattern: '^[1-9][0-9]{12}$|^[34][0-9]{14}$',
    checks: COMPONENT_CHECKSUM,
    source: ported(
      'Federal Tax Service of Russia, Unified State Register of Legal Entities',
      'ru/ogrn.py',
    ),
  }),
  stdnumRule({
    countryCode: 'TR',
    identifierType: 'vat_number',
    name: 'Vergi Kimlik Numarası (VKN)',
    description: '10 digits with a check digit (the tax number VAT is registered under).',
    validator: validatorOf('TR', 'vkn'),
    examples: ['4540536920', '0010213576', '3770335008'],
    pattern: '^[0-9]{10}$',
    checks: CHECKSUM,
    source: source('Gelir İdaresi Başkanlığı (Turkish Revenue Administration)'),
  }),
  stdnumRule({
    countryCode: 'UA',
    identifierType: 'registration_number',
    name: 'Код ЄДРПОУ (EDRPOU code)',
    description: '8 digits with a weighted check digit.',
    validator: validatorOf('UA', 'edrpou'),
    examples: ['32855961', '00022438', '20022334'],
    pattern: '^[0-9]{8}$',
    checks: CHECKSUM,
    source: source('Unified State Register of Legal Entities, Ministry of Justice of Ukraine'),
  }),
];

// Latvian registration numbers of legal entities are their VAT numbers without LV: 11 digits
// starting 4 to 9 with a check digit (personal codes, starting 0 to 3, are not register numbers).
const stdnumLatvianPvn = validatorOf('LV', 'pvn');
const latvianRegistration: StdnumValidator = {
  stdnum: 'LV.pvn',
  validate(value) {
    if (/^[0-3]/.test(value)) {
      const error = new Error('InvalidComponent');
      error.name = 'InvalidComponent';
      return { isValid: false, error };
    }
    return stdnumLatvianPvn.validate(value);
  },
};

const romanianOnrcRule = stdnumRule({
  countryCode: 'RO',
  identifierType: 'registration_number',
  name: 'Număr de ordine în Registrul Comerțului (ONRC)',
  description:
    'J, F or C, the year of registration, a 6-digit serial, the county code (00 since 2025) and a check digit: the form used since 26 July 2024. Numbers in the older form (J40/1234/2009, also with the full date) are converted to it.',
  validator: romaniaOnrc,
  examples: ['J2012000750528', 'C2005000007045', 'C2005000011220'],
  pattern: '^[JFC][0-9]{13}$',
  checks: COMPONENT_CHECKSUM,
  source: source('Oficiul Național al Registrului Comerțului (ONRC)'),
});

/** The older ONRC form is read from the text as typed: cleaning would drop the slashes. */
function checkRomanianOnrc(input: string): FormatOutcome {
  const converted = romaniaOnrcFromOldForm(input.normalize('NFKC'));
  return romanianOnrcRule.check(converted ?? input);
}

const euRegistration: FormatRule[] = [
  stdnumRule({
    countryCode: 'BE',
    identifierType: 'registration_number',
    name: 'Ondernemingsnummer / numéro d’entreprise (KBO/BCE)',
    description:
      '10 digits starting 0 or 1, with a modulus 97 check (the enterprise number, which is also the VAT number without BE); establishment unit numbers (2 to 8) are not enterprise numbers.',
    validator: belgianVat,
    examples: ['0428759497', '0468561072', '0462423150'],
    pattern: '^[01][0-9]{9}$',
    checks: COMPONENT_CHECKSUM,
    source: source('FOD Economie, Kruispuntbank van Ondernemingen (KBO)'),
    prefixes: ['BE'],
    outputPrefix: noPrefix,
  }),
  stdnumRule({
    countryCode: 'LV',
    identifierType: 'registration_number',
    name: 'Reģistrācijas numurs',
    description:
      '11 digits starting 4 to 9 with a check digit (the VAT number of a legal entity is LV and this number).',
    validator: latvianRegistration,
    examples: ['40003521600', '40103157009', '42103048183'],
    pattern: '^[4-9][0-9]{10}$',
    checks: COMPONENT_CHECKSUM,
    source: source('Register of Enterprises of the Republic of Latvia (Uzņēmumu reģistrs)'),
    prefixes: ['LV'],
    outputPrefix: noPrefix,
  }),
  stdnumRule({
    countryCode: 'PT',
    identifierType: 'registration_number',
    name: 'Número de Identificação de Pessoa Coletiva (NIPC)',
    description:
      '9 digits with a modulus 11 check digit; the commercial register has used it as the registration (matrícula) number since 2006.',
    validator: validatorOf('PT', 'nipc'),
    examples: ['501964843', '500019720', '506835669'],
    pattern: '^[0-9]{9}$',
    checks: CHECKSUM,
    source: source('Registo Nacional de Pessoas Coletivas (RNPC)'),
  }),
  { ...romanianOnrcRule, check: checkRomanianOnrc },
  stdnumRule({
    countryCode: 'SI',
    identifierType: 'registration_number',
    name: 'Matična številka',
    description:
      '7 digits (6 and a modulus 11 check digit), optionally followed by a 3-character business unit; unit 000, the main address, is dropped.',
    validator: sloveniaMaticna,
    examples: ['9331310', '1876031010', '5491711'],
    pattern: '^[0-9]{7}([A-Z0-9][0-9]{2})?$',
    checks: CHECKSUM,
    source: ported('AJPES, Poslovni register Slovenije', 'si/maticna.py'),
  }),
  stdnumRule({
    countryCode: 'SK',
    identifierType: 'registration_number',
    name: 'Identifikačné číslo organizácie (IČO)',
    description:
      '8 digits with a modulus 11 check digit (the same number and check as a Czech IČO).',
    validator: validatorOf('CZ', 'ico'),
    examples: ['31322832', '00151653', '35757442'],
    pattern: '^[0-9]{8}$',
    checks: CHECKSUM,
    source: source('Statistical Office of the Slovak Republic, Register of Legal Entities (RPO)'),
  }),
];

const middleEastAfrica: FormatRule[] = [
  stdnumRule({
    countryCode: 'GH',
    identifierType: 'vat_number',
    name: 'Taxpayer Identification Number (TIN)',
    description:
      '11 characters: P, C, G, Q or V (the kind of taxpayer), 9 digits and a check character (a digit or X); VAT registrations carry it. The Ghana Card PIN of individuals is a different number.',
    validator: validatorOf('GH', 'tin'),
    examples: ['C0000803561', 'C0004656830', 'V0022862404'],
    pattern: '^[PCGQV][0-9]{9}[0-9X]$',
    checks: CHECKSUM,
    source: source('Ghana Revenue Authority'),
  }),
  stdnumRule({
    countryCode: 'GN',
    identifierType: 'vat_number',
    name: 'Numéro d’Identification Fiscale Permanent (NIFp)',
    description: '9 digits with a Luhn check digit, often written 693-770-885.',
    validator: validatorOf('GN', 'nifp'),
    examples: ['693770885', '102193364', '634628101'],
    pattern: '^[0-9]{9}$',
    checks: CHECKSUM,
    source: source('Direction Nationale des Impôts de Guinée'),
  }),
  stdnumRule({
    countryCode: 'IL',
    identifierType: 'registration_number',
    name: 'Mispar chevra (ח.פ., company number)',
    description: '9 digits starting 5 (companies) with a Luhn check digit.',
    validator: validatorOf('IL', 'hp'),
    examples: ['516179157', '500107420', '515487668'],
    pattern: '^5[0-9]{8}$',
    checks: COMPONENT_CHECKSUM,
    source: source('Israeli Corporations Authority, Registrar of Companies'),
  }),
  stdnumRule({
    countryCode: 'KE',
    identifierType: 'vat_number',
    name: 'KRA Personal Identification Number (PIN)',
    description:
      '11 characters: A (individuals) or P (companies and other entities), 9 digits and a letter. The last letter is not a published check, so it is not verified.',
    validator: validatorOf('KE', 'pin'),
    examples: ['P051365947M', 'A005171423W', 'A001906275H'],
    pattern: '^[AP][0-9]{9}[A-Z]$',
    checks: ['length', 'characters'],
    coverage: 'partial',
    source: 'Kenya Revenue Authority; format via stdnum',
  }),
  stdnumRule({
    countryCode: 'MA',
    identifierType: 'registration_number',
    name: 'Identifiant Commun de l’Entreprise (ICE)',
    description:
      '15 digits: 9 for the enterprise, 4 for the establishment and 2 check digits (modulus 97). Used by every administration beside the tax number (IF) and the trade register number (RC).',
    validator: validatorOf('MA', 'ice'),
    examples: ['001561191000066', '002136093000040', '000030205000041'],
    pattern: '^[0-9]{15}$',
    checks: CHECKSUM,
    source: source('Direction Générale des Impôts and OMPIC, ice.gov.ma'),
  }),
  stdnumRule({
    countryCode: 'MZ',
    identifierType: 'vat_number',
    name: 'Número Único de Identificação Tributária (NUIT)',
    description: '9 digits: the kind of taxpayer, a serial and a weighted check digit.',
    validator: validatorOf('MZ', 'nuit'),
    examples: ['400339910', '400005834', '400058172'],
    pattern: '^[0-9]{9}$',
    checks: CHECKSUM,
    source: source('Autoridade Tributária de Moçambique'),
  }),
  stdnumRule({
    countryCode: 'OM',
    identifierType: 'vat_number',
    name: 'VAT Identification Number (VATIN)',
    description:
      'OM and 10 characters: 9 digits and a check character (a digit or X); only the weights of the last five digits are published, so the check is partial.',
    validator: omanVat,
    examples: ['OM1100006083', 'OM1100002920', 'OM1100255952'],
    pattern: '^OM[0-9]{9}[0-9X]$',
    checks: CHECKSUM,
    coverage: 'partial',
    source: ported('Oman Tax Authority', 'om/vat.py'),
    prefixes: ['OM'],
  }),
  stdnumRule({
    countryCode: 'SN',
    identifierType: 'vat_number',
    name: 'Numéro d’Identification Nationale des Entreprises et Associations (NINEA)',
    description:
      '7 (or 9) digits with a check digit, optionally followed by the 3-character COFI (tax status 0 to 2, tax centre letter, legal form digit), as in 3067221 2G2.',
    validator: senegalNinea,
    examples: ['3067221', '00177662G3', '0073077481V1'],
    pattern: '^([0-9]{7}|[0-9]{9})([012][A-Z][0-9])?$',
    checks: COMPONENT_CHECKSUM,
    source: ported(
      'Agence Nationale de la Statistique et de la Démographie (ANSD), NINEA register',
      'sn/ninea.py',
    ),
  }),
  stdnumRule({
    countryCode: 'TN',
    identifierType: 'vat_number',
    name: 'Matricule fiscal (MF)',
    description:
      '7 digits and a control letter, then usually the VAT code (A P B D N), the category (M P C N E) and a 3-digit establishment number (000, or another with category E), as in 1234567/M/A/E/001; shorter numbers are zero-padded. The control letter has no published algorithm, so it is not verified.',
    validator: validatorOf('TN', 'mf'),
    examples: ['1234567MAE001', '1182431MAM000', '0510283Q'],
    pattern: '^[0-9]{7}[A-HJ-NP-TV-Z]([APBDN][MPCNE][0-9]{3})?$',
    checks: ['length', 'characters'],
    coverage: 'partial',
    source:
      'Direction Générale des Impôts de Tunisie, registre national des entreprises; format via stdnum',
  }),
];

export const europeAfricaRules: FormatRule[] = [...europe, ...euRegistration, ...middleEastAfrica];

export const europeAfricaNames: Record<string, string> = {
  AD: 'Andorra',
  AL: 'Albania',
  AZ: 'Azerbaijan',
  BY: 'Belarus',
  GH: 'Ghana',
  GN: 'Guinea',
  IL: 'Israel',
  IS: 'Iceland',
  KE: 'Kenya',
  MA: 'Morocco',
  MC: 'Monaco',
  MD: 'Moldova',
  ME: 'Montenegro',
  MK: 'North Macedonia',
  MZ: 'Mozambique',
  OM: 'Oman',
  RS: 'Serbia',
  RU: 'Russian Federation',
  SN: 'Senegal',
  TN: 'Tunisia',
  TR: 'Türkiye',
  UA: 'Ukraine',
};
