import type { CompanyLegalStatus } from '../registry-source.js';

/**
 * Every `company_status` value the Companies House public data API documents (the companyProfile
 * and search specifications, and the `company_status` section of Companies House's
 * api-enumerations `constants.yml`), with its published description and what it means here.
 * docs/sources/companies-house.md and the adapter's tests are built from this one table.
 */
export const COMPANIES_HOUSE_STATUSES: Readonly<
  Record<string, { status: CompanyLegalStatus; description: string }>
> = {
  active: { status: 'active', description: 'Active' },
  dissolved: { status: 'dissolved', description: 'Dissolved' },
  liquidation: { status: 'liquidation', description: 'Liquidation' },
  // A receiver, an administrator or a company voluntary arrangement are insolvency procedures of
  // the Insolvency Act 1986: the company still exists, but is insolvent or being rescued from it.
  receivership: { status: 'insolvency', description: 'Receiver Action' },
  administration: { status: 'insolvency', description: 'In Administration' },
  'voluntary-arrangement': { status: 'insolvency', description: 'Voluntary Arrangement' },
  'insolvency-proceedings': { status: 'insolvency', description: 'Insolvency Proceedings' },
  // Converted to another form under another number (a PLC, an SE, a UK Societas) or closed: this
  // record no longer trades, but it was not dissolved.
  'converted-closed': { status: 'inactive', description: 'Converted / Closed' },
  // Overseas entities (register of overseas entities) and UK establishments of overseas companies
  // use their own words: registered and open are on the register, removed and closed are not.
  registered: { status: 'active', description: 'Registered' },
  removed: { status: 'inactive', description: 'Removed' },
  open: { status: 'active', description: 'Open' },
  closed: { status: 'inactive', description: 'Closed' },
};

/**
 * `company_status_detail` values (same sources). They do not change the status (a company with an
 * active proposal to strike off is still active until it is struck off), so they are kept in the
 * raw wording only: `active (active-proposal-to-strike-off)`.
 */
export const COMPANIES_HOUSE_STATUS_DETAILS: Readonly<Record<string, string>> = {
  'transferred-from-uk': 'Transfer from UK',
  'active-proposal-to-strike-off': 'Active proposal to strike off',
  'petition-to-restore-dissolved': 'Petition to restore dissolved',
  'transformed-to-se': 'Transformed to SE',
  'converted-to-plc': 'Converted to PLC',
  'converted-to-uk-societas': 'Converted to UK Societas',
  'converted-to-ukeig': 'Converted to UKEIG',
};

/**
 * `type` (company profile) and `company_type` (search) values with Companies House's published
 * descriptions (`company_type` in api-enumerations): the legal form shown to people. A type not in
 * the list is shown as the register sends it.
 */
export const COMPANIES_HOUSE_COMPANY_TYPES: Readonly<Record<string, string>> = {
  'private-unlimited': 'Private unlimited company',
  ltd: 'Private limited company',
  plc: 'Public limited company',
  'old-public-company': 'Old public company',
  'private-limited-guarant-nsc-limited-exemption':
    "Private Limited Company by guarantee without share capital, use of 'Limited' exemption",
  'limited-partnership': 'Limited partnership',
  'private-limited-guarant-nsc': 'Private limited by guarantee without share capital',
  'converted-or-closed': 'Converted / closed',
  'private-unlimited-nsc': 'Private unlimited company without share capital',
  'private-limited-shares-section-30-exemption':
    "Private Limited Company, use of 'Limited' exemption",
  'protected-cell-company': 'Protected cell company',
  'assurance-company': 'Assurance company',
  'oversea-company': 'Overseas company',
  'eeig-establishment': 'European Economic Interest Grouping Establishment (EEIG)',
  'icvc-securities': 'Investment company with variable capital',
  'icvc-warrant': 'Investment company with variable capital',
  'icvc-umbrella': 'Investment company with variable capital',
  'registered-society-non-jurisdictional': 'Registered society',
  'industrial-and-provident-society': 'Industrial and Provident society',
  'northern-ireland': 'Northern Ireland company',
  'northern-ireland-other': 'Credit union (Northern Ireland)',
  llp: 'Limited liability partnership',
  'royal-charter': 'Royal charter company',
  'investment-company-with-variable-capital': 'Investment company with variable capital',
  'unregistered-company': 'Unregistered company',
  other: 'Other company type',
  'european-public-limited-liability-company-se': 'European public limited liability company (SE)',
  'united-kingdom-societas': 'United Kingdom Societas',
  'uk-establishment': 'UK establishment company',
  'scottish-partnership': 'Scottish qualifying partnership',
  'charitable-incorporated-organisation': 'Charitable incorporated organisation',
  'scottish-charitable-incorporated-organisation': 'Scottish charitable incorporated organisation',
  'further-education-or-sixth-form-college-corporation':
    'Further education or sixth form college corporation',
  eeig: 'European Economic Interest Grouping (EEIG)',
  ukeig: 'United Kingdom Economic Interest Grouping',
  'registered-overseas-entity': 'Overseas entity',
};

/** The status a company record gets, and the register's own words for it. */
export function companiesHouseLegalStatus(
  status: string | undefined,
  detail: string | undefined,
): { company_legal_status: CompanyLegalStatus; raw_company_legal_status?: string } {
  if (status === undefined) return { company_legal_status: 'unknown' };
  // An undocumented value is reported as unknown, never guessed, with the register's wording kept.
  const known = Object.hasOwn(COMPANIES_HOUSE_STATUSES, status)
    ? COMPANIES_HOUSE_STATUSES[status]
    : undefined;
  return {
    company_legal_status: known?.status ?? 'unknown',
    raw_company_legal_status: detail ? `${status} (${detail})` : status,
  };
}
