import { rechercheEntreprisesSource } from '../../../src/sources/recherche-entreprises/recherche-entreprises-source.js';
import { fixture } from '../fake-register.js';
import type { AdapterContract } from './adapter-contract.js';

/**
 * API Recherche d'entreprises. Documents: its published OpenAPI document
 * (github.com/annuaire-entreprises-data-gouv-fr/search-api, app/doc/open-api.yml): `GET /search`
 * answers a `payload` (results, total_results, page, per_page, total_pages) of `result` objects,
 * a 400 with `{"erreur": ...}`; its description, "Limite des requêtes", documents the 429 and its
 * Retry-After. The sample bodies are test/fixtures/sources/recherche-entreprises/
 * (recherche-entreprises.test.ts says where each comes from).
 */
const PAYLOAD = 'the payload of GET /search (open-api.yml)';
const lookupOf = (normalized: string) =>
  ({ countryCode: 'FR', identifierType: 'registration_number', normalized }) as const;
const SIREN_SEARCH = '/search?q=812345676&page=1&per_page=5';

export const rechercheEntreprisesContract: AdapterContract = {
  name: 'recherche_entreprises',
  build: ({ client, baseUrl }) => rechercheEntreprisesSource({ client, baseUrl }),
  contentType: 'application/json',
  errorBody: {
    value: { erreur: 'Veuillez indiquer au moins un paramètre de recherche.' },
    documented: "open-api.yml, GET /search, response '400': an object with `erreur`",
  },
  lookup: {
    query: lookupOf('812345676'),
    found: {
      body: {
        value: fixture('recherche-entreprises', 'search-siren.json'),
        documented: `search-siren.json: ${PAYLOAD}, a direct search by SIREN`,
      },
      company: {
        key: 'recherche_entreprises:812345676',
        legal_name: 'ATELIERS DU CANAL',
        registration_number: '812345676',
        vat_numbers: ['FR19812345676'],
        tax_identifiers: [],
        country_code: 'FR',
        company_legal_status: 'active',
        raw_company_legal_status: 'A',
        legal_form: 'SAS, société par actions simplifiée',
        incorporation_date: '2015-06-01',
        registered_address: { formatted: '12 QUAI DE LA LOIRE 75019 PARIS' },
        city_or_state: 'PARIS',
      },
      sourceUrl: 'https://annuaire-entreprises.data.gouv.fr/entreprise/812345676',
      requests: [SIREN_SEARCH],
      // open-api.yml asks every caller for an explicit, descriptive User-Agent.
      headers: { 'user-agent': 'firmwatch (registry check)' },
    },
    notFound: {
      style: 'empty_results',
      status: 200,
      body: {
        value: fixture('recherche-entreprises', 'search-empty.json'),
        documented: `search-empty.json: ${PAYLOAD} with no results (a search, never a 404)`,
      },
      requests: [SIREN_SEARCH],
    },
    statuses: [
      {
        value: 'etat_administratif A',
        body: {
          value: fixture('recherche-entreprises', 'search-siren.json'),
          documented: `search-siren.json: ${PAYLOAD}, etat_administratif "A" (Active)`,
        },
        company_legal_status: 'active',
        raw_company_legal_status: 'A',
      },
      {
        value: 'etat_administratif C',
        body: {
          value: fixture('recherche-entreprises', 'search-siren-cessee.json'),
          documented: `search-siren-cessee.json: ${PAYLOAD}, etat_administratif "C" (Cessée)`,
        },
        query: lookupOf('900000126'),
        company_legal_status: 'dissolved',
        raw_company_legal_status: 'C',
      },
    ],
  },
  rateLimited: {
    documented:
      'open-api.yml, "Limite des requêtes": at most 7 requests per second per IP address; over it "HTTP 429 – Too Many Requests", whose Retry-After header gives the wait. The 429\'s body is not documented; none is sent.',
    headers: (waitSeconds) => ({ 'retry-after': String(waitSeconds) }),
  },
  search: {
    query: { countryCode: 'FR', name: 'canal' },
    found: {
      value: fixture('recherche-entreprises', 'search-name.json'),
      documented: `search-name.json: ${PAYLOAD}, a text search`,
    },
    keys: ['recherche_entreprises:812345676', 'recherche_entreprises:841230006'],
    empty: {
      value: fixture('recherche-entreprises', 'search-empty.json'),
      documented: `search-empty.json: ${PAYLOAD} with no results`,
    },
    requests: ['/search?q=canal&page=1&per_page=25'],
  },
};
