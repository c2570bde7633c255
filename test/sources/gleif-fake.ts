import { readFileSync } from 'node:fs';

/**
 * The fake GLEIF API's GET /lei-records: the given LEI records (bodies from
 * test/fixtures/sources/gleif/, whose shape gleif.test.ts sources), filtered as GLEIF filters.
 *
 * What each filter does, and what that rests on:
 * - The GLEIF API documentation (https://documenter.getpostman.com/view/7679680/SVYrrxuU,
 *   "Quick-Start Guide", "About the GLEIF API") offers "filters, full-text and single-field
 *   searches of Level 1 (LEI Record) Data" and "fuzzy" matching of names and addresses. Our stored
 *   copy of that page holds only its opening; the per-filter rules below are what GLEIF's API was
 *   seen to do by open-source clients that query it, not a quotation of GLEIF.
 * - `filter[entity.registeredAs]`: the exact text (numbers are stored as the register writes
 *   them: "HRB 7042", see src/sources/gleif/gleif-registered-as.ts).
 * - `filter[entity.legalName]`: the whole legal name, case ignored. Clients report it as
 *   "near-exact": "BNP Paribas SA" does not find the record named "BNP PARIBAS", and a part of a
 *   name finds nothing.
 * - `filter[entity.names]`: a word search over every name of the record (`entity.legalName`,
 *   `entity.otherNames` such as a previous legal name, `entity.transliteratedOtherNames`), case
 *   and accents ignored, ranked: clients report that it finds "トヨタ自動車株式会社" from
 *   "Toyota Motor Corporation" (an other name) and returns loosely related records after the
 *   best one ("Deutsche Bank" led by a subsidiary). Whether GLEIF requires every word is not
 *   documented; the fake takes the loosest reading, any word, ranked by how many words a name
 *   holds, so the adapter is tested against candidates it must sift.
 * - `filter[entity.legalAddress.country]`: the legal address's country code.
 * Any other filter is refused with a 400, as a guard of the fake (not a claim about GLEIF): a
 * request the fake does not understand must not be answered with everything.
 */
// biome-ignore lint/suspicious/noExplicitAny: fixtures are arbitrary JSON the tests edit.
export type Json = any;

const FIXTURES = new URL('../fixtures/sources/gleif/', import.meta.url);

export const gleifFixture = (name: string): Json =>
  JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));

/** Every LEI record in the given fixture files, parsed afresh. */
export const gleifRecords = (files: readonly string[]): Json[] =>
  files.flatMap((file) => gleifFixture(file).data);

/** Words as the fake's name search compares them: case, accents and punctuation ignored. */
export const fakeWords = (text: string): string[] =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

const namesOf = (record: Json): string[] => {
  const entity = record.attributes.entity;
  return [
    entity.legalName.name,
    ...(entity.otherNames ?? []).map((n: Json) => n.name),
    ...(entity.transliteratedOtherNames ?? []).map((n: Json) => n.name),
  ];
};

/** How many of the query's words the record's best name holds (0: no match). */
function nameScore(record: Json, query: string): number {
  const wanted = new Set(fakeWords(query));
  return Math.max(
    ...namesOf(record).map((name) => {
      const words = new Set(fakeWords(name));
      return [...wanted].filter((w) => words.has(w)).length;
    }),
  );
}

const FILTERS = new Set([
  'filter[entity.registeredAs]',
  'filter[entity.legalName]',
  'filter[entity.names]',
  'filter[entity.legalAddress.country]',
]);

/** The fake's answer to a request for `url` over `register`'s records. */
export function gleifAnswer(url: URL, register: readonly Json[]): { status: number; body: Json } {
  if (url.pathname !== '/lei-records')
    return { status: 404, body: { errors: [{ status: '404', title: 'Not Found' }] } };
  const unknown = [...url.searchParams.keys()].find(
    (key) => key.startsWith('filter[') && !FILTERS.has(key),
  );
  if (unknown)
    return {
      status: 400,
      body: { errors: [{ status: '400', title: `The fake GLEIF has no ${unknown}` }] },
    };
  const registeredAs = url.searchParams.get('filter[entity.registeredAs]');
  const legalName = url.searchParams.get('filter[entity.legalName]');
  const names = url.searchParams.get('filter[entity.names]');
  const country = url.searchParams.get('filter[entity.legalAddress.country]')?.toUpperCase();
  const size = Number(url.searchParams.get('page[size]') ?? 10);
  const found = register
    .filter((r) => registeredAs === null || r.attributes.entity.registeredAs === registeredAs)
    .filter(
      (r) =>
        legalName === null ||
        r.attributes.entity.legalName.name.toLowerCase() === legalName.toLowerCase(),
    )
    .filter((r) => country === undefined || r.attributes.entity.legalAddress.country === country)
    .map((record) => ({ record, score: names === null ? 1 : nameScore(record, names) }))
    .filter(({ score }) => score > 0)
    // Array.prototype.sort is stable: equal scores keep the register's order.
    .sort((a, b) => b.score - a.score)
    .map(({ record }) => record);
  const data = found.slice(0, size);
  const page = gleifFixture('lei-records-empty.json');
  page.data = data;
  page.meta.pagination = {
    ...page.meta.pagination,
    perPage: size,
    to: data.length,
    total: found.length,
  };
  return { status: 200, body: page };
}
