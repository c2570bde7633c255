import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARIREGISTER_MIRROR } from '../../../src/sources/ariregister/ariregister-mirror.js';
import type { MirrorContract } from './mirror-contract.js';

// The register's simple-data CSV (with its malformed lines); test/fixtures/sources/ariregister/README.md
// cites the download page it follows.
const SAMPLE = join(
  import.meta.dirname,
  '../../fixtures/sources/ariregister/ettevotja_rekvisiidid__lihtandmed.csv',
);

function writeSample(dir: string): string {
  const path = join(dir, 'ettevotja_rekvisiidid__lihtandmed.csv');
  copyFileSync(SAMPLE, path);
  return path;
}

// Line 2 of the sample, Näidis Ehitus OÜ, entered in the register (R).
const NAIDIS = ';10000018;Osaühing;;EE100000007;R;Registrisse kantud;';

export const ariregisterContract: MirrorContract = {
  name: 'ariregister',
  definition: ARIREGISTER_MIRROR,
  writeSample,
  found: {
    identifierType: 'registration_number',
    normalized: '10000018',
    legalName: 'Näidis Ehitus OÜ',
    url: 'https://ariregister.rik.ee/eng/company/10000018',
  },
  notFound: { identifierType: 'registration_number', normalized: '10137319' },
  // R, L, N and K (K marked in the fixture's README: the register leaves deleted companies out), and
  // a code the vocabulary does not define.
  statuses: [
    {
      identifierType: 'registration_number',
      normalized: '10000018',
      status: 'active',
      raw: 'R (Registrisse kantud)',
    },
    {
      identifierType: 'registration_number',
      normalized: '11000015',
      status: 'liquidation',
      raw: 'L (Likvideerimisel)',
    },
    {
      identifierType: 'vat_number',
      normalized: 'EE100100004',
      status: 'liquidation',
      raw: 'L (Likvideerimisel)',
    },
    {
      identifierType: 'registration_number',
      normalized: '12000011',
      status: 'insolvency',
      raw: 'N (Pankrotis)',
    },
    {
      identifierType: 'registration_number',
      normalized: '16000019',
      status: 'dissolved',
      raw: 'K (Kustutatud)',
    },
    {
      identifierType: 'registration_number',
      normalized: '13000013',
      status: 'unknown',
      raw: 'X (Tundmatu staatus)',
    },
  ],
  skipped: { count: 4, firstReason: 'line 8: no registry code' },
  search: { name: 'proov', legalNames: ['Proov Kaubandus AS'] },
  // Näidis Ehitus OÜ goes into liquidation (status L, the register's words beside it); Proov
  // Kaubandus AS, watched by its KMKR number, stays as it was.
  monitored: {
    changed: { identifierType: 'registration_number', identifier: '10000018' },
    unchanged: { identifierType: 'vat_number', identifier: 'EE100100004' },
    writeChanged(dir) {
      const path = writeSample(dir);
      const csv = readFileSync(path, 'utf8');
      if (!csv.includes(NAIDIS)) throw new Error('the sample no longer has Näidis Ehitus OÜ as R');
      writeFileSync(
        path,
        csv.replace(NAIDIS, ';10000018;Osaühing;;EE100000007;L;Likvideerimisel;'),
      );
      return path;
    },
    change: { field: 'company_legal_status', previous: 'active', current: 'liquidation' },
  },
};
