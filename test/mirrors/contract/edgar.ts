import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EDGAR_MIRROR } from '../../../src/sources/edgar/edgar-mirror.js';
import type { MirrorContract } from './mirror-contract.js';

// Samples in the SEC's submissions format; test/fixtures/sources/edgar/README.md cites the documents.
const SAMPLES = join(import.meta.dirname, '../../fixtures/sources/edgar/submissions');

const APPLE = 'CIK0000320193.json';

function writeSample(dir: string): string {
  const path = join(dir, 'submissions');
  cpSync(SAMPLES, path, { recursive: true });
  writeFileSync(join(path, 'CIK0000000002.json'), '{"cik":"0000000002","name":"TRUNCATED');
  return path;
}

export const edgarContract: MirrorContract = {
  name: 'edgar',
  definition: EDGAR_MIRROR,
  writeSample,
  found: {
    identifierType: 'tax_identifier',
    normalized: '942404110',
    legalName: 'Apple Inc.',
    url: 'https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=0000320193',
  },
  notFound: { identifierType: 'tax_identifier', normalized: '123456789' },
  // EDGAR records no legal status: every filer is unknown, with no raw status claimed.
  statuses: [{ identifierType: 'tax_identifier', normalized: '942404110', status: 'unknown' }],
  skipped: { count: 1, firstReason: 'CIK0000000002.json: not JSON' },
  search: { name: 'micro', legalNames: ['MICROSOFT CORP'] },
  // Apple's business address moves back to Infinite Loop; Microsoft stays as it was.
  monitored: {
    changed: { identifierType: 'tax_identifier', identifier: '94-2404110' },
    unchanged: { identifierType: 'tax_identifier', identifier: '91-1144442' },
    writeChanged(dir) {
      const path = writeSample(dir);
      const apple = JSON.parse(readFileSync(join(path, APPLE), 'utf8'));
      apple.addresses.business.street1 = '1 INFINITE LOOP';
      writeFileSync(join(path, APPLE), JSON.stringify(apple));
      return path;
    },
    change: {
      field: 'registered_address',
      previous: 'ONE APPLE PARK WAY, CUPERTINO, CA 95014',
      current: '1 INFINITE LOOP, CUPERTINO, CA 95014',
    },
  },
};
