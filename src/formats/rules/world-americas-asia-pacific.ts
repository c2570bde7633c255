import type { FormatCheck, FormatRule, IdentifierType } from '../format-rule.js';
import {
  chinaUscc,
  dominicanRnc,
  ecuadorRuc,
  indonesiaNpwp,
  mexicoRfc,
  paraguayRuc,
  salvadorNit,
  taiwanUbn,
  uruguayRut,
} from './corrected-americas-asia-pacific.js';
import { type StdnumValidator, stdnumRule, validatorOf } from './stdnum-rule.js';

/*
 * Rules for the Americas, Asia and the Pacific beyond the core set (issue 17). Country names are
 * published beside them (COUNTRY_NAMES in countries.ts takes them from here). Which national
 * number is which identifier type: docs/decisions.md, "Identifier types outside the core set".
 */

const source = (authority: string) => `${authority}; check-digit algorithm via stdnum`;
const corrected = (authority: string) =>
  `${authority}; check-digit algorithm as python-stdnum (stdnum-js corrected)`;

const FULL: readonly FormatCheck[] = ['length', 'characters', 'checksum'];
const WITH_COMPONENT: readonly FormatCheck[] = ['length', 'characters', 'component', 'checksum'];

interface Row {
  countryCode: string;
  identifierType: IdentifierType;
  name: string;
  description: string;
  validator: StdnumValidator;
  examples: readonly string[];
  pattern: string;
  checks?: readonly FormatCheck[];
  coverage?: 'supported' | 'partial';
  source: string;
}

const rule = (row: Row) => stdnumRule({ checks: FULL, ...row });

/**
 * A VAT rule whose numbers start with letters (the Mexican RFC): the shared foreign-VAT-prefix
 * test would take an RFC such as CHE800101AB1 for a Swiss number, so the rule is built without it
 * (as a tax identifier) and then published as the VAT number it is.
 */
const vatRuleWithoutForeignPrefixes = (row: Row): FormatRule => ({
  ...rule({ ...row, identifierType: 'tax_identifier' }),
  identifierType: 'vat_number',
});

const cnUscc = {
  name: 'Unified social credit code (统一社会信用代码)',
  description:
    '18 characters: registering authority and entity type, 6-digit region code, 9-character organisation code and a modulus 31 check character (GB 32100-2015). The same code is the business licence number and the taxpayer identification number on VAT invoices (fapiao).',
  validator: chinaUscc,
  examples: ['91110000600037341L', '91340600MA2PBP2120', '911522010783762860'],
  pattern: '^[0-9]{8}[0-9A-HJ-NPQRTUWXY]{10}$',
  source: corrected('State Administration for Market Regulation, GB 32100-2015'),
};

const crCpj = {
  name: 'Cédula de persona jurídica',
  description:
    '10 digits: a class digit (2 to 5), a 3-digit type and a 6-digit serial. Assigned by the Registro Nacional and used by the Ministerio de Hacienda as the taxpayer number (IVA). No check digit: the class and type are checked against the published list.',
  validator: validatorOf('CR', 'cpj'),
  examples: ['3101999999', '3010179406', '2100042002'],
  pattern: '^[2-5][0-9]{9}$',
  checks: ['length', 'characters', 'component'] as const,
  coverage: 'partial' as const,
  source: 'Registro Nacional de Costa Rica, classes and types of cédulas jurídicas; via stdnum',
};

export const americasAsiaPacificRules: FormatRule[] = [
  vatRuleWithoutForeignPrefixes({
    countryCode: 'MX',
    identifierType: 'vat_number',
    name: 'Registro Federal de Contribuyentes (RFC)',
    description:
      '12 characters for companies (3 letters) or 13 for persons (4 letters), a date YYMMDD and a 3-character homoclave. The date must exist; the homoclave check digit is not tested, because about 1.5 % of the RFCs in use fail it. The 10-character form without homoclave is refused.',
    validator: mexicoRfc,
    examples: ['MAB9307148T4', 'GODE561231GR8', 'ALC920108P18'],
    pattern: '^[A-ZÑ&]{3,4}[0-9]{6}[0-9A-Z]{3}$',
    checks: ['length', 'characters', 'component'],
    coverage: 'partial',
    source: 'Servicio de Administración Tributaria (SAT); layout as python-stdnum stdnum/mx/rfc.py',
  }),
  rule({
    countryCode: 'KR',
    identifierType: 'vat_number',
    name: 'Business registration number (사업자등록번호)',
    description:
      '10 digits, written XXX-XX-XXXXX: tax office, business type, serial and a weighted check digit. VAT (부가가치세) is registered under it.',
    validator: validatorOf('KR', 'brn'),
    examples: ['1168200276', '2118608983', '1018213065'],
    pattern: '^[1-9][0-9]{9}$',
    checks: WITH_COMPONENT,
    source: source('National Tax Service (국세청)'),
  }),
  rule({
    countryCode: 'SG',
    identifierType: 'registration_number',
    name: 'Unique Entity Number (UEN)',
    description:
      '9 or 10 characters: 8 digits and a check letter (businesses), the year, 5 digits and a check letter (local companies), or T/S/R, a 2-digit year, an entity type, 4 digits and a check letter (other entities).',
    validator: validatorOf('SG', 'uen'),
    examples: ['00192200M', '197401143C', 'S16FC0121D'],
    pattern: '^([0-9]{8}[A-Z]|[0-9]{9}[A-Z]|[RST][0-9]{2}[A-Z0-9]{2}[0-9]{4}[A-Z])$',
    checks: WITH_COMPONENT,
    source: source('Accounting and Corporate Regulatory Authority (ACRA), uen.gov.sg'),
  }),
  rule({ countryCode: 'CN', identifierType: 'vat_number', ...cnUscc }),
  rule({ countryCode: 'CN', identifierType: 'registration_number', ...cnUscc }),
  rule({
    countryCode: 'TW',
    identifierType: 'vat_number',
    name: 'Unified Business Number (統一編號)',
    description:
      '8 digits whose weighted digit sum is divisible by 5 (by 10 before April 2023); the number business tax (VAT) is registered under.',
    validator: taiwanUbn,
    examples: ['00501503', '00277104', '10000004'],
    pattern: '^[0-9]{8}$',
    source: corrected('Ministry of Finance, Fiscal Information Agency'),
  }),
  rule({
    countryCode: 'JP',
    identifierType: 'registration_number',
    name: 'Corporate Number (法人番号)',
    description: '13 digits: a check digit followed by the 12-digit number.',
    validator: validatorOf('JP', 'cn'),
    examples: ['5835678256246', '1020281079130', '9863806292730'],
    pattern: '^[1-9][0-9]{12}$',
    source: source('National Tax Agency, Corporate Number Publication Site'),
  }),
  rule({
    countryCode: 'TH',
    identifierType: 'vat_number',
    name: 'Tax identification number (เลขประจำตัวผู้เสียภาษีอากร)',
    description:
      '13 digits with a modulus 11 check digit: a juristic person’s registration number or a citizen’s personal number; VAT is registered under it.',
    validator: validatorOf('TH', 'tin'),
    examples: ['0135559012628', '3190700075741', '5490200019608'],
    pattern: '^[0-9]{13}$',
    checks: WITH_COMPONENT,
    source: source('Revenue Department of Thailand'),
  }),
  rule({
    countryCode: 'TH',
    identifierType: 'registration_number',
    name: 'Juristic person registration number (เลขทะเบียนนิติบุคคล)',
    description:
      '13 digits starting with 0 and a modulus 11 check digit, assigned by the Department of Business Development.',
    validator: validatorOf('TH', 'moa'),
    examples: ['0105544046602', '0105559136432', '0992001526719'],
    pattern: '^0[0-9]{12}$',
    checks: WITH_COMPONENT,
    source: source('Department of Business Development, Ministry of Commerce'),
  }),
  rule({
    countryCode: 'ID',
    identifierType: 'vat_number',
    name: 'Nomor Pokok Wajib Pajak (NPWP)',
    description:
      '15 digits (a Luhn check over the first 9), or 16 digits since 2024: the 15-digit number with a leading 0, or a citizen’s NIK (only its birth date is checked). VAT is registered (PKP) under it.',
    validator: indonesiaNpwp,
    examples: ['014518690054000', '023869720091000', '030267876805000'],
    pattern: '^[0-9]{15,16}$',
    checks: WITH_COMPONENT,
    coverage: 'partial',
    source: corrected('Direktorat Jenderal Pajak'),
  }),
  rule({
    countryCode: 'VN',
    identifierType: 'vat_number',
    name: 'Mã số thuế (MST)',
    description:
      '10 digits with a weighted check digit, or 13 for a branch (the 10 digits and a 3-digit branch number).',
    validator: validatorOf('VN', 'mst'),
    examples: ['0100233488', '0314409058002', '0312687878001'],
    pattern: '^[0-9]{10}([0-9]{3})?$',
    checks: WITH_COMPONENT,
    source: source('General Department of Taxation of Viet Nam'),
  }),
  rule({
    countryCode: 'AR',
    identifierType: 'vat_number',
    name: 'Clave Única de Identificación Tributaria (CUIT)',
    description:
      '11 digits, written XX-XXXXXXXX-X: a type prefix (20, 23, 24, 27 persons; 30, 33, 34 companies), 8 digits and a modulus 11 check digit. IVA is registered under it.',
    validator: validatorOf('AR', 'cuit'),
    examples: ['20055361682', '20040356437', '33712308589'],
    pattern: '^[0-9]{11}$',
    checks: WITH_COMPONENT,
    source: source('Agencia de Recaudación y Control Aduanero (ARCA, formerly AFIP)'),
  }),
  rule({
    countryCode: 'CL',
    identifierType: 'vat_number',
    name: 'Rol Único Tributario (RUT)',
    description:
      '8 or 9 characters, written XX.XXX.XXX-X: 7 or 8 digits and a modulus 11 check character (0-9 or K). IVA is registered under it.',
    validator: validatorOf('CL', 'rut'),
    examples: ['100753812', '995615304', '102191838'],
    pattern: '^[0-9]{7,8}[0-9K]$',
    source: source('Servicio de Impuestos Internos (SII)'),
  }),
  rule({
    countryCode: 'CO',
    identifierType: 'vat_number',
    name: 'Número de Identificación Tributaria (NIT)',
    description:
      '8 to 16 digits, written XXX.XXX.XXX-X: the number and a modulus 11 check digit (dígito de verificación). IVA is registered under it (RUT).',
    validator: validatorOf('CO', 'nit'),
    examples: ['2131234321', '9003568467', '152525250'],
    pattern: '^[0-9]{8,16}$',
    source: source('Dirección de Impuestos y Aduanas Nacionales (DIAN)'),
  }),
  rule({
    countryCode: 'EC',
    identifierType: 'vat_number',
    name: 'Registro Único de Contribuyentes (RUC)',
    description:
      '13 digits: a province code, a third digit for the kind of taxpayer (0-5 natural persons, 6 public bodies, 9 companies), a check digit and the establishment number (001). IVA is registered under it.',
    validator: ecuadorRuc,
    examples: ['0101016905001', '0160000510001', '1890001323001'],
    pattern: '^[0-9]{13}$',
    checks: WITH_COMPONENT,
    source: corrected('Servicio de Rentas Internas (SRI)'),
  }),
  rule({
    countryCode: 'PE',
    identifierType: 'vat_number',
    name: 'Registro Único de Contribuyentes (RUC)',
    description:
      '11 digits: a type (10, 15, 16, 17 persons; 20 companies), 8 digits and a modulus 11 check digit. IGV is registered under it.',
    validator: validatorOf('PE', 'ruc'),
    examples: ['20512333797', '10000655959', '20552756453'],
    pattern: '^(10|15|16|17|20)[0-9]{9}$',
    checks: WITH_COMPONENT,
    source: source('Superintendencia Nacional de Aduanas y de Administración Tributaria (SUNAT)'),
  }),
  rule({
    countryCode: 'UY',
    identifierType: 'vat_number',
    name: 'Registro Único Tributario (RUT)',
    description:
      '12 digits: a department code (01-22), 6 digits, 001 and a modulus 11 check digit. IVA is registered under it.',
    validator: uruguayRut,
    examples: ['211003420017', '211406340011', '220018800014'],
    pattern: '^(0[1-9]|1[0-9]|2[0-2])[0-9]{6}001[0-9]$',
    checks: WITH_COMPONENT,
    source: corrected('Dirección General Impositiva (DGI)'),
  }),
  rule({
    countryCode: 'PY',
    identifierType: 'vat_number',
    name: 'Registro Único de Contribuyentes (RUC)',
    description:
      'Up to 9 digits, written XXXXXXXX-X: the number (for persons, the cédula) and a modulus 11 check digit. IVA is registered under it.',
    validator: paraguayRuc,
    examples: ['800000200', '9991603', '12809500'],
    pattern: '^[0-9]{2,9}$',
    source: corrected('Dirección Nacional de Ingresos Tributarios (DNIT, formerly SET)'),
  }),
  rule({
    countryCode: 'VE',
    identifierType: 'vat_number',
    name: 'Registro de Información Fiscal (RIF)',
    description:
      'A letter for the kind of taxpayer (V, E persons; J companies; P passports; G government; C communes), 8 digits and a modulus 11 check digit. IVA is registered under it.',
    validator: validatorOf('VE', 'rif'),
    examples: ['V114702834', 'E810812535', 'V258279570'],
    pattern: '^[VEJPGC][0-9]{9}$',
    checks: WITH_COMPONENT,
    source: source('Servicio Nacional Integrado de Administración Aduanera y Tributaria (SENIAT)'),
  }),
  rule({ countryCode: 'CR', identifierType: 'vat_number', ...crCpj }),
  rule({ countryCode: 'CR', identifierType: 'registration_number', ...crCpj }),
  rule({
    countryCode: 'SV',
    identifierType: 'tax_identifier',
    name: 'Número de Identificación Tributaria (NIT)',
    description:
      '14 digits, written XXXX-XXXXXX-XXX-X: municipality, date, serial and a modulus 11 check digit. Not the VAT number: IVA is registered under the separate NRC.',
    validator: salvadorNit,
    examples: ['06140507071048', '02101911710016', '94832601101010'],
    pattern: '^[019][0-9]{13}$',
    checks: WITH_COMPONENT,
    source: corrected('Ministerio de Hacienda, Dirección General de Impuestos Internos'),
  }),
  rule({
    countryCode: 'GT',
    identifierType: 'vat_number',
    name: 'Número de Identificación Tributaria (NIT)',
    description:
      '2 to 12 characters, written XXXXXXX-X: the number and a modulus 11 check character (0-9 or K). IVA is registered under it.',
    validator: validatorOf('GT', 'nit'),
    examples: ['576937K', '69468745', '12455350'],
    pattern: '^[0-9]{1,11}[0-9K]$',
    source: source('Superintendencia de Administración Tributaria (SAT)'),
  }),
  rule({
    countryCode: 'DO',
    identifierType: 'vat_number',
    name: 'Registro Nacional del Contribuyente (RNC)',
    description:
      '9 digits, written X-XX-XXXXX-X, with a weighted check digit; a few numbers the DGII issued with a wrong check digit are accepted from a list. ITBIS is registered under it.',
    validator: dominicanRnc,
    examples: ['122011226', '101637587', '501676936'],
    pattern: '^[0-9]{8,9}$',
    source: corrected('Dirección General de Impuestos Internos (DGII)'),
  }),
  rule({
    countryCode: 'NZ',
    identifierType: 'vat_number',
    name: 'IRD number (GST number)',
    description:
      '8 or 9 digits with a modulus 11 check digit (a second set of weights when the first gives 10); the GST number is the IRD number.',
    validator: validatorOf('NZ', 'ird'),
    examples: ['49091850', '136410132', '047179025'],
    pattern: '^[0-9]{8,9}$',
    checks: WITH_COMPONENT,
    source: source('Inland Revenue (Te Tari Taake)'),
  }),
];

export const americasAsiaPacificNames: Record<string, string> = {
  AR: 'Argentina',
  CL: 'Chile',
  CN: 'China',
  CO: 'Colombia',
  CR: 'Costa Rica',
  DO: 'Dominican Republic',
  EC: 'Ecuador',
  GT: 'Guatemala',
  ID: 'Indonesia',
  JP: 'Japan',
  KR: 'Korea, Republic of',
  MX: 'Mexico',
  NZ: 'New Zealand',
  PE: 'Peru',
  PY: 'Paraguay',
  SG: 'Singapore',
  SV: 'El Salvador',
  TH: 'Thailand',
  TW: 'Taiwan, Province of China',
  UY: 'Uruguay',
  VE: 'Venezuela (Bolivarian Republic of)',
  VN: 'Viet Nam',
};
