import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KBO_MIRROR } from '../../../src/sources/kbo/kbo-mirror.js';
import type { MirrorContract } from './mirror-contract.js';

// A KBO Open Data full dump in the cookbook's format, with its malformed rows;
// test/fixtures/sources/kbo/README.md cites the documents.
const SAMPLE = join(import.meta.dirname, '../../fixtures/sources/kbo/full');

const situation = (
  digits: string,
  status: MirrorContract['statuses'][number]['status'],
  raw: string,
) => ({
  identifierType: 'registration_number' as const,
  normalized: digits,
  status,
  raw,
});

function writeSample(dir: string): string {
  const path = join(dir, 'full');
  cpSync(SAMPLE, path, { recursive: true });
  return path;
}

// Veneco's registered seat (REGO) in address.csv, house number 1.
const VENECO_SEAT =
  '"0200.065.765","REGO",,,"9070","Destelbergen","Destelbergen","Panhuisstraat","Panhuisstraat","1","","",';

export const kboContract: MirrorContract = {
  name: 'kbo',
  definition: KBO_MIRROR,
  writeSample,
  found: {
    identifierType: 'registration_number',
    normalized: '0200065765',
    legalName: 'Intergemeentelijke Vereniging Veneco',
    url: 'https://kbopub.economie.fgov.be/kbopub/toonondernemingps.html?ondernemingsnummer=0200065765',
  },
  notFound: { identifierType: 'registration_number', normalized: '0403170701' },
  // Each juridical situation class mapped, one the register describes but firmwatch does not map,
  // one code.csv does not describe, and a VAT number looked up as the enterprise number it is.
  statuses: [
    situation('0200065765', 'active', '000 Normale toestand / Situation normale'),
    {
      identifierType: 'vat_number',
      normalized: 'BE0200065765',
      status: 'active',
      raw: '000 Normale toestand / Situation normale',
    },
    situation(
      '0800000174',
      'liquidation',
      '010 Ontbinding van rechtswege / Dissolution de plein droit',
    ),
    situation(
      '0200245711',
      'liquidation',
      '012 Vervroegde ontbinding - vereffening / Dissolution anticipée - liquidation',
    ),
    situation(
      '0800000273',
      'liquidation',
      '013 Gerechtelijke ontbinding of nietigheid / Dissolution judiciaire ou nullité',
    ),
    situation('0800000372', 'dissolved', '014 Sluiting van vereffening / Clôture de liquidation'),
    situation('0800000471', 'insolvency', '050 Opening faillissement / Ouverture de faillite'),
    situation('0800000570', 'unknown', '001 Juridische oprichting / Création juridique'),
    situation('1000000120', 'unknown', '099'),
  ],
  skipped: {
    count: 6,
    firstReason: 'enterprise.csv line 7: enterprise 0800.000.174 is listed again',
  },
  search: { name: 'exemple', legalNames: ['Exemple Bruxelles', 'Exemple Société Étrangère'] },
  // Veneco, watched by its VAT number (BE and the enterprise number), moves its seat to number 3
  // of the same street, on the same line of address.csv (the order by number is kept); Farys
  // stays as it was.
  monitored: {
    changed: { identifierType: 'vat_number', identifier: 'BE 0200.065.765' },
    unchanged: { identifierType: 'registration_number', identifier: '0200.068.636' },
    writeChanged(dir) {
      const path = writeSample(dir);
      const addresses = join(path, 'address.csv');
      const csv = readFileSync(addresses, 'utf8');
      if (!csv.includes(VENECO_SEAT)) throw new Error("the sample no longer has Veneco's seat");
      writeFileSync(addresses, csv.replace(VENECO_SEAT, VENECO_SEAT.replace('"1",', '"3",')));
      return path;
    },
    change: {
      field: 'registered_address',
      previous: 'Panhuisstraat 1, 9070 Destelbergen',
      current: 'Panhuisstraat 3, 9070 Destelbergen',
    },
  },
};
