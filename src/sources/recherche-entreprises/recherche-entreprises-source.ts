import { cleanIdentifier, type IdentifierType } from '../../formats/format-rule.js';
import { checkFormat } from '../../formats/registry.js';
import type { BucketPolicy } from '../../lib/token-bucket.js';
import { isObject, type Json, optionalString, UnexpectedShape } from '../body-shape.js';
import type {
  CompanyLegalStatus,
  CompanyRecord,
  LookupQuery,
  LookupResult,
  RegistrySource,
  SearchQuery,
  SearchResult,
  SourceInfo,
} from '../registry-source.js';
import { answeredWithoutAsking } from '../registry-source.js';
import type { SourceCoverage } from '../source-coverage.js';
import { foldText, unavailableFrom } from '../source-text.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';

/**
 * The French public company directory API (API Recherche d'entreprises, behind the Annuaire des
 * Entreprises): `GET /search?q=...`. Free, no key. It answers from the SIRENE base (INSEE) with
 * other public data. docs/sources/recherche-entreprises.md records the terms, coverage and table.
 */
export const RECHERCHE_ENTREPRISES_DEFAULT_BASE_URL = 'https://recherche-entreprises.api.gouv.fr';

/**
 * Its documented limit: at most 7 requests per second per IP address (429 with Retry-After; the
 * API's OpenAPI document, "Limite des requêtes"). A token bucket admits, in any 1-second window,
 * its capacity plus what it refills in that second: 7 + 7 let 14 through. 2 + 5 never admit more
 * than 7 in any second, keeping a burst of two and a sustained 5 a second.
 */
export const RECHERCHE_ENTREPRISES_BUDGET: BucketPolicy = { capacity: 2, refillPerSecond: 5 };

/**
 * `etat_administratif` of the legal unit (unité légale) as SIRENE publishes it: `A` active, `C`
 * cessée. A ceased legal unit has ended: for a company, after its dissolution and removal from
 * the trade register; for a sole trader, when the business stopped. It is `dissolved`, not
 * `inactive` (the word here for a unit that exists but is dormant, which SIRENE does not say).
 * Any other value is `unknown`, with the raw value kept.
 */
export const RECHERCHE_ENTREPRISES_LEGAL_STATUS = {
  A: 'active',
  C: 'dissolved',
} as const satisfies Record<string, CompanyLegalStatus>;

/**
 * What a check should say beside a VAT number matched here: the directory is searched by the
 * SIREN the number embeds; no VAT register is asked.
 */
export const RECHERCHE_ENTREPRISES_VAT_MATCH_NOTE =
  'Matched through the SIREN this VAT number embeds (FR + 2-character key + SIREN), in the company directory; this is not a VAT-register lookup.';

const DIRECTORY_URL = 'https://annuaire-entreprises.data.gouv.fr/entreprise';

export const RECHERCHE_ENTREPRISES_INFO: SourceInfo = {
  source_type: 'official_public_record',
  source_name: 'Annuaire des Entreprises (recherche-entreprises)',
  source_url: 'https://annuaire-entreprises.data.gouv.fr',
};

export function rechercheEntreprisesRecordUrl(siren: string): string {
  return `${DIRECTORY_URL}/${siren}`;
}

export const RECHERCHE_ENTREPRISES_COVERAGE: readonly SourceCoverage[] = [
  {
    countryCode: 'FR',
    companySearch: 'supported',
    identifiers: [
      // `partial` legal status: SIRENE says active or ceased; insolvency proceedings and
      // liquidation are not read.
      {
        identifierType: 'registration_number',
        registryMatch: 'supported',
        companyLegalStatus: 'partial',
      },
      { identifierType: 'vat_number', registryMatch: 'supported', companyLegalStatus: 'partial' },
    ],
  },
];

/**
 * Labels of the most common catégories juridiques (INSEE nomenclature, as the directory labels
 * them); other codes are shown as the code.
 */
const LEGAL_FORMS: Record<string, string> = {
  '1000': 'Entrepreneur individuel',
  '5202': 'Société en nom collectif',
  '5499': 'Société à responsabilité limitée (sans autre indication)',
  '5599': "SA à conseil d'administration (s.a.i.)",
  '5710': 'SAS, société par actions simplifiée',
  '6540': 'Société civile immobilière',
  '9220': 'Association déclarée',
};

/** What the directory shows instead of a field its owner asked to keep private. */
const MASKED = '[NON-DIFFUSIBLE]';

const visible = (value: string | undefined) =>
  value !== undefined && value.trim() !== '' && value !== MASKED ? value.trim() : undefined;

interface Parsed {
  record: CompanyRecord;
  /** Postcodes and communes of the seat and of the establishments the search matched. */
  places: { postcode?: string; city?: string; commune?: string }[];
}

function placeOf(etablissement: Json) {
  const postcode = visible(optionalString(etablissement, 'code_postal'));
  const city = visible(optionalString(etablissement, 'libelle_commune'));
  const commune = visible(optionalString(etablissement, 'commune'));
  return {
    ...(postcode ? { postcode } : {}),
    ...(city ? { city } : {}),
    ...(commune ? { commune } : {}),
  };
}

/** One `results[]` item as the OpenAPI document describes it, or an UnexpectedShape. */
function parseResult(item: unknown): Parsed {
  if (!isObject(item)) throw new UnexpectedShape('a result is not an object');
  const siren = item.siren;
  if (typeof siren !== 'string' || !/^\d{9}$/.test(siren))
    throw new UnexpectedShape('siren is not 9 digits');
  const raisonSociale = optionalString(item, 'nom_raison_sociale');
  const complet = optionalString(item, 'nom_complet');
  // A unit under partial diffusion (statut_diffusion P: it objected to the publication of its
  // data) has both names replaced by the marker: the register holds it, but says no name.
  const withheld =
    visible(raisonSociale) === undefined &&
    visible(complet) === undefined &&
    (raisonSociale?.trim() === MASKED || complet?.trim() === MASKED);
  const name = withheld
    ? `Name not published by the register (SIREN ${siren})`
    : (visible(raisonSociale) ?? visible(complet));
  if (!name) throw new UnexpectedShape(`no name for ${siren}`);
  const diffusion = optionalString(item, 'statut_diffusion');
  const etat = optionalString(item, 'etat_administratif');
  const nature = optionalString(item, 'nature_juridique');
  const created = optionalString(item, 'date_creation');
  if (created !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(created))
    throw new UnexpectedShape('date_creation is not a YYYY-MM-DD date');
  const siege = item.siege;
  if (siege !== undefined && siege !== null && !isObject(siege))
    throw new UnexpectedShape('siege is not an object');
  const matching = item.matching_etablissements ?? [];
  if (!Array.isArray(matching) || !matching.every(isObject))
    throw new UnexpectedShape('matching_etablissements is not a list of establishments');
  const tva = item.tva ?? [];
  if (!Array.isArray(tva) || !tva.every((t) => typeof t === 'string'))
    throw new UnexpectedShape('tva is not a list of numbers');
  const seat = isObject(siege) ? placeOf(siege) : {};
  const formatted = isObject(siege) ? visible(optionalString(siege, 'adresse')) : undefined;
  const status =
    etat !== undefined && Object.hasOwn(RECHERCHE_ENTREPRISES_LEGAL_STATUS, etat)
      ? RECHERCHE_ENTREPRISES_LEGAL_STATUS[etat as keyof typeof RECHERCHE_ENTREPRISES_LEGAL_STATUS]
      : 'unknown';
  const record: CompanyRecord = {
    key: `recherche_entreprises:${siren}`,
    legal_name: name,
    registration_number: siren,
    // The intra-EU VAT numbers the directory lists for the unit (it takes them from the DGFiP):
    // company-record evidence, as published; no tax authority is asked.
    vat_numbers: (tva as string[])
      .map((t) => cleanIdentifier(t))
      .filter((t) => /^FR[0-9A-Z]{2}\d{9}$/.test(t)),
    tax_identifiers: [],
    country_code: 'FR',
    company_legal_status: status,
    ...(etat !== undefined ? { raw_company_legal_status: etat } : {}),
    ...(nature ? { legal_form: LEGAL_FORMS[nature] ?? nature } : {}),
    ...(created ? { incorporation_date: created } : {}),
    ...(formatted ? { registered_address: { formatted } } : {}),
    ...(seat.city ? { city_or_state: seat.city } : {}),
    ...(withheld
      ? {
          legal_name_withheld: `the directory shows ${MASKED} for it, the unit being under partial diffusion in SIRENE${diffusion ? ` (statut_diffusion ${diffusion})` : ''}`,
        }
      : {}),
  };
  return { record, places: [seat, ...(matching as Json[]).map(placeOf)] };
}

function parsePage(body: unknown): Parsed[] {
  if (!isObject(body) || !Array.isArray(body.results))
    throw new UnexpectedShape('results is not a list');
  return body.results.map(parseResult);
}

/** The SIREN of a normalized FR registration number (SIREN, or the SIRET it starts) or VAT number. */
export function sirenOf(identifierType: IdentifierType, normalized: string): string | undefined {
  if (identifierType === 'vat_number') return /^FR[0-9A-Z]{2}(\d{9})$/.exec(normalized)?.[1];
  return /^(\d{9})(\d{5})?$/.exec(normalized)?.[1];
}

const POSTCODE = /^\d{5}$/;
/** An INSEE commune code that is not all digits (Corsica: 2A..., 2B...). */
const CORSICAN_COMMUNE = /^2[AB]\d{3}$/i;

/**
 * The directory as a registry source for France. A SIREN is looked up with the API's direct search
 * (a `q` of 9 digits); a SIRET by the SIREN it starts with, a VAT number by the SIREN it embeds.
 */
export function rechercheEntreprisesSource(options: {
  client: UpstreamClient;
  baseUrl: string;
  apiKey?: string;
}): RegistrySource {
  const { client } = options;
  const base = options.baseUrl.replace(/\/+$/, '');
  // The directory asks callers to send a descriptive User-Agent.
  const headers = { 'user-agent': 'firmwatch (registry check)' };

  async function fetchPage(params: URLSearchParams) {
    const result = await client.getJson(`${base}/search?${params}`, headers);
    if (result.kind !== 'ok') return result;
    try {
      return {
        kind: 'ok' as const,
        parsed: parsePage(result.body),
        retrievedAt: result.retrievedAt,
      };
    } catch (error) {
      if (error instanceof UnexpectedShape)
        return {
          kind: 'malformed' as const,
          reason: `malformed_response: recherche_entreprises: ${error.message}`,
        };
      throw error;
    }
  }

  async function lookup(query: LookupQuery): Promise<LookupResult> {
    if (query.countryCode !== 'FR') return { outcome: 'not_matched' };
    const siren = sirenOf(query.identifierType, query.normalized);
    if (!siren) return { outcome: 'not_matched' };
    // A direct search: with 9 digits the API ignores every other filter.
    const page = await fetchPage(new URLSearchParams({ q: siren, page: '1', per_page: '5' }));
    if (page.kind === 'unavailable') return unavailableFrom(page);
    if (page.kind === 'malformed') return { outcome: 'unavailable', reason: page.reason };
    if (page.kind === 'not_found')
      return { outcome: 'not_matched', source: RECHERCHE_ENTREPRISES_INFO };
    const found = page.parsed.filter((p) => p.record.registration_number === siren);
    const [only] = found;
    if (!only)
      return {
        outcome: 'not_matched',
        retrievedAt: page.retrievedAt,
        source: RECHERCHE_ENTREPRISES_INFO,
      };
    if (found.length > 1)
      return {
        outcome: 'ambiguous',
        companies: found.map((p) => p.record),
        retrievedAt: page.retrievedAt,
        source: RECHERCHE_ENTREPRISES_INFO,
      };
    return {
      outcome: 'matched',
      company: only.record,
      retrievedAt: page.retrievedAt,
      source: { ...RECHERCHE_ENTREPRISES_INFO, source_url: rechercheEntreprisesRecordUrl(siren) },
      ...(query.identifierType === 'vat_number'
        ? { matchNote: RECHERCHE_ENTREPRISES_VAT_MATCH_NOTE }
        : {}),
    };
  }

  async function search(query: SearchQuery): Promise<SearchResult> {
    if (query.countryCode !== 'FR') return { outcome: 'ok', companies: [] };
    const none = answeredWithoutAsking(RECHERCHE_ENTREPRISES_INFO);
    const sirens = new Set<string>();
    if (query.registrationNumber !== undefined) {
      // The FR rule reads a SIRET or an RCS registration as its SIREN, as a check does.
      const format = checkFormat('FR', 'registration_number', query.registrationNumber);
      const siren = sirenOf(
        'registration_number',
        format.status === 'valid' ? format.normalized : cleanIdentifier(query.registrationNumber),
      );
      if (!siren) return none;
      sirens.add(siren);
    }
    if (query.vatNumber !== undefined) {
      const cleaned = cleanIdentifier(query.vatNumber);
      const siren = sirenOf('vat_number', cleaned.startsWith('FR') ? cleaned : `FR${cleaned}`);
      if (!siren) return none;
      sirens.add(siren);
    }
    if (sirens.size > 1) return none;
    const [siren] = sirens;
    const q = siren ?? query.name;
    if (!q) return none;
    const params = new URLSearchParams({ q, page: '1', per_page: '25' });
    const cities = (query.cityOrState ?? []).map((c) => c.trim()).filter((c) => c !== '');
    const postcodes = cities.filter((c) => POSTCODE.test(c));
    const communes = cities.filter((c) => CORSICAN_COMMUNE.test(c)).map((c) => c.toUpperCase());
    const names = cities
      .filter((c) => !POSTCODE.test(c) && !CORSICAN_COMMUNE.test(c))
      .map(foldText);
    // The API filters establishments by postcode or by INSEE commune code, not by a commune's
    // name, and a direct SIREN search ignores filters: those are filtered here instead, on the
    // seat and the establishments the search matched.
    let filteredUpstream = false;
    if (!siren && names.length === 0 && (postcodes.length === 0) !== (communes.length === 0)) {
      if (postcodes.length > 0) params.set('code_postal', postcodes.join(','));
      else params.set('code_commune', communes.join(','));
      filteredUpstream = true;
    }
    const page = await fetchPage(params);
    if (page.kind === 'unavailable') return unavailableFrom(page);
    if (page.kind === 'malformed') return { outcome: 'unavailable', reason: page.reason };
    if (page.kind === 'not_found') return none;
    const companies = page.parsed
      .filter(({ record, places }) => {
        if (siren && record.registration_number !== siren) return false;
        if (siren && query.name && !foldText(record.legal_name).includes(foldText(query.name)))
          return false;
        if (cities.length === 0 || filteredUpstream) return true;
        return places.some(
          (p) =>
            (p.city !== undefined && names.includes(foldText(p.city))) ||
            (p.postcode !== undefined && postcodes.includes(p.postcode)) ||
            (p.commune !== undefined && communes.includes(p.commune.toUpperCase())),
        );
      })
      .map(({ record }) => record);
    return {
      outcome: 'ok',
      companies,
      retrievedAt: page.retrievedAt,
      source: RECHERCHE_ENTREPRISES_INFO,
    };
  }

  return {
    info: RECHERCHE_ENTREPRISES_INFO,
    coverage: RECHERCHE_ENTREPRISES_COVERAGE,
    supports: (country, type) =>
      country === 'FR' && (type === 'registration_number' || type === 'vat_number'),
    lookup,
    searches: (country) => country === 'FR',
    search,
  };
}
