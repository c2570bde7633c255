import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import yazl from 'yazl';

/**
 * A generated `submissions.zip` in the SEC's format: one `CIK##########.json` per filer, each
 * document shaped like those data.sec.gov/submissions/ serves (test/fixtures/sources/edgar/README.md
 * cites the SEC's documentation of the fields), with varied names, states, EINs and a `filings.recent`
 * of up to 12 filings. A few filers are malformed, as an import must expect: one in 10,000 is cut
 * off mid-document, and as many have no name.
 */

const WORDS = [
  'ATLANTIC',
  'PACIFIC',
  'SUMMIT',
  'RIVER',
  'GRANITE',
  'CEDAR',
  'HARBOR',
  'PIONEER',
  'LIBERTY',
  'MERIDIAN',
  'NORTHSTAR',
  'SILVER',
  'EAGLE',
  'PRAIRIE',
  'CANYON',
  'BEACON',
  'FRONTIER',
  'UNION',
  'HERITAGE',
  'VANTAGE',
  'KEYSTONE',
  'CRESCENT',
  'EVERGREEN',
  'MAPLE',
  'ORION',
  'APEX',
  'BLUE',
  'GOLDEN',
  'DELTA',
  'SIERRA',
  'COASTAL',
  'MIDWEST',
  'CAPITAL',
  'FIRST',
  'NATIONAL',
  'AMERICAN',
];
const TRADES = [
  'BANCORP',
  'ENERGY',
  'THERAPEUTICS',
  'HOLDINGS',
  'REALTY',
  'CAPITAL PARTNERS',
  'SYSTEMS',
  'PHARMACEUTICALS',
  'MINING',
  'FOODS',
  'TECHNOLOGIES',
  'INSURANCE',
  'MEDIA',
  'LOGISTICS',
];
const SUFFIXES = ['INC', 'CORP', 'LLC', 'LP', 'TRUST', 'CO', 'INC.', 'L.P.', 'FUND', 'LTD'];
const STATES = [
  'AL',
  'AK',
  'AZ',
  'AR',
  'CA',
  'CO',
  'CT',
  'DE',
  'FL',
  'GA',
  'HI',
  'ID',
  'IL',
  'IN',
  'IA',
  'KS',
  'KY',
  'LA',
  'ME',
  'MD',
  'MA',
  'MI',
  'MN',
  'MS',
  'MO',
  'MT',
  'NE',
  'NV',
  'NH',
  'NJ',
  'NM',
  'NY',
  'NC',
  'ND',
  'OH',
  'OK',
  'OR',
  'PA',
  'RI',
  'SC',
  'SD',
  'TN',
  'TX',
  'UT',
  'VT',
  'VA',
  'WA',
  'WV',
  'WI',
  'WY',
  'DC',
];
/** EDGAR's codes for foreign locations (a sample): Ontario, United Kingdom, Israel, Cayman Islands. */
const FOREIGN = ['A6', 'X0', 'L3', 'E9'];
const CITIES = [
  'SPRINGFIELD',
  'RIVERSIDE',
  'FRANKLIN',
  'GREENVILLE',
  'BRISTOL',
  'CLINTON',
  'SALEM',
];
const STREETS = ['MAIN ST', 'OAK AVE', 'PARK AVENUE', 'MARKET STREET', 'BROADWAY', 'ELM ST'];
const FORMS = ['10-K', '10-Q', '8-K', '4', 'SC 13G', 'D', 'S-1', 'DEF 14A', '3', '424B2'];

/** The EIN the generator gives filer `i`, or null (about one in five has none, as individuals). */
export function einOf(i: number): string | null {
  if (i % 5 === 4) return null;
  return `${10 + (i % 89)}${String((i * 7_654_321) % 10_000_000).padStart(7, '0')}`;
}

export const cikOf = (i: number) => String(1_000_000 + i).padStart(10, '0');

export const isMalformed = (i: number) => i % 10_000 === 9_998 || i % 10_000 === 9_999;

function address(i: number, salt: number) {
  const foreign = i % 23 === 0;
  const pick = <T>(list: readonly T[], n: number) => list[(i * 31 + salt * 7 + n) % list.length];
  return {
    street1: `${(i % 9000) + 100} ${pick(STREETS, 1)}`,
    street2: i % 3 === 0 ? `SUITE ${(i % 900) + 100}` : null,
    city: pick(CITIES, 2),
    stateOrCountry: foreign ? pick(FOREIGN, 3) : pick(STATES, 3),
    zipCode: foreign ? null : String(10_000 + (i % 89_999)),
    stateOrCountryDescription: foreign ? 'ONTARIO, CANADA' : pick(STATES, 3),
    isForeignLocation: foreign ? 1 : 0,
    foreignStateTerritory: null,
    country: foreign ? 'CANADA' : null,
    countryCode: foreign ? 'CA' : null,
  };
}

function recentFilings(i: number) {
  const count = (i * 7 + 3) % 13;
  const recent: Record<string, Array<string | number>> = {
    accessionNumber: [],
    filingDate: [],
    reportDate: [],
    acceptanceDateTime: [],
    act: [],
    form: [],
    fileNumber: [],
    filmNumber: [],
    items: [],
    core_type: [],
    size: [],
    isXBRL: [],
    isInlineXBRL: [],
    primaryDocument: [],
    primaryDocDescription: [],
  };
  for (let n = 0; n < count; n++) {
    const form = FORMS[(i + n) % FORMS.length] ?? '8-K';
    const day = `2024-${String((n % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`;
    const push = (field: string, value: string | number) => recent[field]?.push(value);
    push('accessionNumber', `${cikOf(i)}-24-${String(n + 1).padStart(6, '0')}`);
    push('filingDate', day);
    push('reportDate', day);
    push('acceptanceDateTime', `${day}T16:05:${String(n % 60).padStart(2, '0')}.000Z`);
    push('act', '34');
    push('form', form);
    push('fileNumber', `001-${30_000 + (i % 9999)}`);
    push('filmNumber', String(24_000_000 + i + n));
    push('items', form === '8-K' ? '2.02,9.01' : '');
    push('core_type', form);
    push('size', 10_000 + ((i * n) % 900_000));
    push('isXBRL', form.startsWith('10-') ? 1 : 0);
    push('isInlineXBRL', form.startsWith('10-') ? 1 : 0);
    push('primaryDocument', `doc${i}-${n}.htm`);
    push('primaryDocDescription', form);
  }
  return recent;
}

/** Filer `i`'s document, as the text of its `CIK##########.json`. */
export function filerDocument(i: number): string {
  const cik = cikOf(i);
  const individual = i % 5 === 4;
  const word = (n: number) => WORDS[(i * 7 + n * 13) % WORDS.length] ?? 'ACME';
  const name = individual
    ? `${word(1)} ${word(2)} ${String.fromCharCode(65 + (i % 26))}`
    : `${word(1)} ${word(2)} ${TRADES[i % TRADES.length]} ${SUFFIXES[i % SUFFIXES.length]} ${i}`;
  if (i % 10_000 === 9_999) return `{"cik":"${cik}","name":"${name}`;
  const business = address(i, 1);
  const document = {
    cik,
    entityType: individual ? 'other' : 'operating',
    sic: individual ? '' : String(1000 + (i % 8000)),
    sicDescription: individual ? '' : 'State Commercial Banks',
    ownerOrg: individual ? '' : '02 Finance',
    insiderTransactionForOwnerExists: individual ? 1 : 0,
    insiderTransactionForIssuerExists: individual ? 0 : 1,
    name: i % 10_000 === 9_998 ? '' : name,
    tickers: i % 7 === 0 ? [`${word(3).slice(0, 3)}${i % 10}`] : [],
    exchanges: i % 7 === 0 ? ['Nasdaq'] : [],
    ein: einOf(i) ?? (i % 2 === 0 ? null : '000000000'),
    lei: null,
    description: '',
    website: '',
    investorWebsite: '',
    category: individual ? '' : 'Non-accelerated filer',
    fiscalYearEnd: individual ? null : '1231',
    stateOfIncorporation: individual ? '' : STATES[i % STATES.length],
    stateOfIncorporationDescription: individual ? '' : STATES[i % STATES.length],
    addresses: {
      mailing: address(i, 2),
      business: individual ? { ...business, street1: null, city: null } : business,
    },
    phone: `(${200 + (i % 800)}) 555-${String(i % 10_000).padStart(4, '0')}`,
    flags: '',
    formerNames:
      i % 4 === 0
        ? [
            {
              name: `${word(4)} ${SUFFIXES[i % 3]}`,
              from: '2001-01-10T00:00:00.000Z',
              to: '2019-08-05T00:00:00.000Z',
            },
          ]
        : [],
    filings: { recent: recentFilings(i), files: [] },
  };
  return JSON.stringify(document);
}

/** Filers deflated at once (yazl gives each its own zlib context: larger chunks only use memory). */
const CHUNK = 64;

/**
 * Streams `count` filers into a zip at `path`; at most one chunk of documents is in memory.
 * yazl rescans every entry it was given on each step (quadratic in the number of entries: about
 * 14 minutes for a million; yazl pull request #91 fixes it upstream), so each chunk, once written,
 * is moved out of its list (and its compressed bytes, which it keeps, let go) and put back only
 * for the central directory at the end.
 */
export async function writeSubmissionsZip(path: string, count: number): Promise<void> {
  const zip = new yazl.ZipFile();
  type Entry = { state: number; doFileDataPump?: unknown };
  const internals = zip as unknown as { entries: Entry[] };
  const file = createWriteStream(path);
  const closed = once(zip.outputStream.pipe(file), 'close');
  const written: Entry[] = [];
  const mtime = new Date('2026-11-20T03:00:00Z');
  const DONE = 3; // yazl's Entry.FILE_DATA_DONE
  for (let start = 0; start < count; start += CHUNK) {
    for (let i = start; i < Math.min(start + CHUNK, count); i++) {
      zip.addBuffer(Buffer.from(filerDocument(i)), `CIK${cikOf(i)}.json`, { mtime });
    }
    const chunk = internals.entries;
    while ((chunk[chunk.length - 1]?.state ?? DONE) !== DONE) await delay(1);
    for (const entry of chunk.splice(0)) {
      // Its pump function holds its compressed bytes, which are written: let them go.
      entry.doFileDataPump = undefined;
      written.push(entry);
    }
    while (file.writableLength + (zip.outputStream as Readable).readableLength > 16 * 1024 * 1024)
      await delay(5);
  }
  internals.entries = written;
  zip.end();
  await closed;
}
