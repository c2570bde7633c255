/**
 * The live company registers by name: what LIVE_SOURCES lists, and where each API lives unless
 * its `<NAME>_BASE_URL` says otherwise. Kept apart from the adapters so configuration can name
 * them without loading them.
 */
export const LIVE_SOURCE_NAMES = [
  'companies_house',
  'brreg',
  'recherche_entreprises',
  'ares',
  // National registers before GLEIF: routing asks the first source that covers a country, and
  // GLEIF covers some of theirs too (FI, DK, CH, SE).
  'prh',
  'krs',
  'regon',
  'cvr',
  'uid',
  'bolagsverket',
  // Mirrors (src/mirrors): read from the database, never called per lookup.
  'edgar',
  'ariregister',
  'kbo',
  'gleif',
] as const;
export type LiveSourceName = (typeof LIVE_SOURCE_NAMES)[number];

export const LIVE_SOURCE_TITLES: Record<LiveSourceName, string> = {
  companies_house: 'Companies House public data',
  brreg: 'Brønnøysund Enhetsregisteret',
  recherche_entreprises: 'French company directory (recherche-entreprises)',
  ares: 'Czech ARES',
  gleif: 'GLEIF LEI records',
  prh: 'Finnish PRH/YTJ open data',
  krs: 'Polish National Court Register (KRS)',
  cvr: 'Danish Central Business Register (CVR)',
  uid: 'Swiss UID register',
  bolagsverket: 'Bolagsverket high-value datasets (Sweden)',
  regon: 'Polish REGON register (GUS BIR1.1)',
  edgar: 'SEC EDGAR (mirror of the submissions file)',
  ariregister: 'Estonian e-Business Register (mirror of the simple-data file)',
  kbo: 'Belgian Crossroads Bank for Enterprises (mirror of the KBO Open Data file)',
};

export const LIVE_SOURCE_DEFAULT_BASE_URLS: Record<LiveSourceName, string> = {
  companies_house: 'https://api.company-information.service.gov.uk',
  brreg: 'https://data.brreg.no/enhetsregisteret/api',
  recherche_entreprises: 'https://recherche-entreprises.api.gouv.fr',
  ares: 'https://ares.gov.cz/ekonomicke-subjekty-v-be/rest',
  gleif: 'https://api.gleif.org/api/v1',
  prh: 'https://avoindata.prh.fi/opendata-ytj-api/v3',
  krs: 'https://api-krs.ms.gov.pl',
  cvr: 'http://distribution.virk.dk',
  uid: 'https://www.uid-wse.admin.ch',
  bolagsverket: 'https://gw.api.bolagsverket.se/vardefulla-datamangder/v1',
  regon: 'https://wyszukiwarkaregon.stat.gov.pl/wsBIR/UslugaBIRzewnPubl.svc',
  // Not called: the mirror answers from the database; a filer's evidence links its page here.
  edgar: 'https://www.sec.gov',
  // Not called either: a company's evidence links its page in the register here.
  ariregister: 'https://ariregister.rik.ee',
  // Not called either: an enterprise's evidence links its KBO Public Search page here.
  kbo: 'https://kbopub.economie.fgov.be',
};

export type BaseUrlVariable = `${Uppercase<LiveSourceName>}_BASE_URL`;

export function baseUrlVariable(source: LiveSourceName): BaseUrlVariable {
  return `${source.toUpperCase()}_BASE_URL` as BaseUrlVariable;
}
