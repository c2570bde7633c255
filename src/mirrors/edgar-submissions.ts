import { opendir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { foldText } from '../sources/source-text.js';
import type { MirrorFormat, ParseOutcome } from './mirror-format.js';
import { zipEntries } from './zip-entries.js';

/**
 * One filer of the SEC's bulk submissions file (`submissions.zip`, rebuilt nightly: one
 * `CIK##########.json` per filer, the same document data.sec.gov/submissions/ serves), read into
 * a mirror row. Documented at https://www.sec.gov/search-filings/edgar-application-programming-interfaces
 * ("Submissions by company", "Bulk data"); docs/decisions.md ("Register mirrors") says what is read and how.
 *
 * EDGAR records no legal status (no active, dissolved or insolvent): every filer's status is
 * `unknown` and no raw status is claimed (docs/decisions.md, "SEC EDGAR has no legal status").
 */
interface EdgarAddress {
  street1?: unknown;
  street2?: unknown;
  city?: unknown;
  stateOrCountry?: unknown;
  zipCode?: unknown;
  isForeignLocation?: unknown;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** EDGAR writes an EIN as 9 digits; a filer without one has "" or "000000000". */
function einOf(value: unknown): string | null {
  const digits = text(value)?.replace(/-/g, '');
  if (!digits || !/^[0-9]{9}$/.test(digits) || digits === '000000000') return null;
  return digits;
}

function formatAddress(address: EdgarAddress): string | undefined {
  const state = text(address.stateOrCountry);
  const cityLine = [text(address.city), [state, text(address.zipCode)].filter(Boolean).join(' ')]
    .filter((part) => part !== undefined && part !== '')
    .join(', ');
  const parts = [text(address.street1), text(address.street2), cityLine].filter(
    (part) => part !== undefined && part !== '',
  );
  return parts.length > 0 ? parts.join(', ') : undefined;
}

export function parseEdgarSubmission(json: string): ParseOutcome {
  let document: unknown;
  try {
    document = JSON.parse(json);
  } catch (error) {
    return { ok: false, reason: `not JSON (${(error as Error).message})` };
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return { ok: false, reason: 'not a JSON object' };
  }
  const filer = document as Record<string, unknown>;
  const cikText = typeof filer.cik === 'number' ? String(filer.cik) : text(filer.cik);
  if (!cikText || !/^[0-9]{1,10}$/.test(cikText)) return { ok: false, reason: 'no CIK' };
  const name = text(filer.name);
  if (!name) return { ok: false, reason: `CIK ${cikText}: no name` };
  const addresses = (filer.addresses ?? {}) as Record<string, EdgarAddress | undefined>;
  // The business address is where the filer is; the mailing address only where it gets post, used
  // when EDGAR has no business address (its fields all null, as for many individuals).
  const business = addresses.business;
  const address =
    (business && (text(business.city) ?? text(business.street1)) ? business : undefined) ??
    addresses.mailing ??
    {};
  const foreign = address.isForeignLocation === 1 || address.isForeignLocation === true;
  return {
    ok: true,
    row: {
      register_key: cikText.padStart(10, '0'),
      country_code: 'US',
      tax_identifier: einOf(filer.ein),
      registration_number: null,
      vat_number: null,
      legal_name: name,
      folded_name: foldText(name),
      company_legal_status: 'unknown',
      raw_status: null,
      legal_form: null,
      incorporation_date: null,
      address: formatAddress(address) ?? null,
      city_or_state: foreign ? null : (text(address.stateOrCountry) ?? null),
    },
  };
}

/** A filer's document, wherever it sits in the archive (not the `-submissions-001` pages of its older filings). */
const FILER_FILE = /(?:^|\/)(CIK[0-9]{10}\.json)$/;

/**
 * Far larger than a filer's document should be (its `filings.recent` holds a year or 1,000 filings,
 * whichever is more; older ones are in separate `-submissions-` files): a bigger entry is skipped
 * unread, as a malformed filer, rather than held in memory whole.
 */
const MAX_FILER_BYTES = 64 * 1024 * 1024;

async function* readDirectory(path: string) {
  const directory = await opendir(path);
  for await (const entry of directory) {
    if (!entry.isFile() || !FILER_FILE.test(entry.name)) continue;
    yield {
      label: entry.name,
      ...parseEdgarSubmission(await readFile(join(path, entry.name), 'utf8')),
    };
  }
}

async function* readZip(path: string) {
  for await (const entry of zipEntries(path)) {
    const label = FILER_FILE.exec(entry.name)?.[1];
    if (!label) continue;
    if (entry.size > MAX_FILER_BYTES) {
      yield { label, ok: false as const, reason: `larger than ${MAX_FILER_BYTES} bytes` };
      continue;
    }
    // A damaged entry throws ZipArchiveError: the import fails, and the previous version serves.
    yield { label, ...parseEdgarSubmission(await entry.text()) };
  }
}

/**
 * The SEC's submissions file: `submissions.zip` itself, read entry by entry (src/mirrors/zip-entries.ts),
 * or the directory of `CIK##########.json` files it unpacks to, listed lazily. Either way memory
 * holds one filer at a time. A malformed filer is a skipped row; an archive that is not a zip or
 * is damaged fails the import (docs/decisions.md, "Register mirrors").
 */
export const EDGAR_SUBMISSIONS: MirrorFormat = {
  countryCode: 'US',
  // The EIN, the one number EDGAR publishes that firmwatch checks.
  numberColumns: { tax_identifier: 'tax_identifier' },
  async *read(path) {
    yield* (await stat(path)).isDirectory() ? readDirectory(path) : readZip(path);
  },
};
