import Type from 'typebox';
import { Compile } from 'typebox/compile';
import type { Clock } from '../lib/clock.js';
import type { UpstreamClient } from '../sources/upstream/upstream-client.js';
import { type ChangeFeed, type FeedChange, FeedUnavailable } from './change-feed.js';

/** Updates asked for per page; pages are walked by update id, never by deep page numbers. */
export const BRREG_UPDATES_PAGE_SIZE = 100;

/** How often the update list is asked for new updates once it has been read to its end. */
export const BRREG_UPDATES_INTERVAL_MS = 60_000;

// `GET /oppdateringer/enheter` (data.brreg.no, Enhetsregisteret API documentation, "Oppdateringer"):
// a HAL page whose `_embedded.oppdaterteEnheter` lists `oppdateringsid`, `dato`,
// `organisasjonsnummer` and `endringstype` (Ukjent, Ny, Endring, Sletting, Fjernet), oldest first;
// `_embedded` is left out of an empty page. An update names the unit, never its record.
const UpdatesPageSchema = Type.Object({
  _embedded: Type.Optional(
    Type.Object({
      oppdaterteEnheter: Type.Array(
        Type.Object({
          oppdateringsid: Type.Integer({ minimum: 1 }),
          dato: Type.Optional(Type.String()),
          organisasjonsnummer: Type.String({ pattern: '^[0-9]{9}$' }),
          endringstype: Type.Optional(Type.String()),
        }),
      ),
    }),
  ),
});
const updatesPage = Compile(UpdatesPageSchema);

/**
 * Where the list is read from: the last update id read (`oppdateringsid` is "Minste
 * oppdateringsid", so the next page starts one after it), or before any update was read, the
 * time the consumer started (`dato`, the earliest update time), so it starts from the present.
 */
function queryOf(position: string | null, startedAt: Date): string {
  if (position !== null && /^[0-9]+$/.test(position))
    return `oppdateringsid=${BigInt(position) + 1n}`;
  const since = position?.startsWith('dato:') ? position.slice(5) : startedAt.toISOString();
  return `dato=${encodeURIComponent(since)}`;
}

/**
 * Brønnøysund's update list of the Central Coordinating Register for Legal Entities: polled every
 * BRREG_UPDATES_INTERVAL_MS and read page by page (BRREG_UPDATES_PAGE_SIZE updates, by update id)
 * to its end. An update says only which unit changed and how, so the unit's cached record is
 * dropped and its monitors' recheck asks the register (`GET /enheter/{orgnr}`). Calls go through
 * the register's upstream client, under the same budget as its lookups.
 */
export function brregUpdates(options: {
  client: UpstreamClient;
  baseUrl: string;
  clock: Clock;
  intervalMs?: number;
}): ChangeFeed {
  const base = options.baseUrl.replace(/\/+$/, '');
  const startedAt = options.clock.now();
  return {
    name: 'brreg',
    source: 'brreg',
    cacheTtlMs: 0,
    nextReadAfterMs: options.intervalMs ?? BRREG_UPDATES_INTERVAL_MS,
    gapScope: [
      { countryCode: 'NO', identifierType: 'registration_number' },
      { countryCode: 'NO', identifierType: 'vat_number' },
    ],

    async read(position, onBatch, signal) {
      let from = position;
      while (!signal.aborted) {
        const url = `${base}/oppdateringer/enheter?${queryOf(from, startedAt)}&size=${BRREG_UPDATES_PAGE_SIZE}`;
        const result = await options.client.getJson(url);
        if (result.kind === 'unavailable')
          throw new FeedUnavailable(`brreg update list: ${result.reason}: ${result.detail}`);
        if (result.kind === 'not_found' || !updatesPage.Check(result.body))
          throw new FeedUnavailable('brreg update list: an answer not in the documented shape');
        const updates = result.body._embedded?.oppdaterteEnheter ?? [];
        const last = updates.at(-1);
        if (!last) {
          // Nothing since: remember the time asked about, so the next poll starts there.
          if (from === null)
            await onBatch({
              position: `dato:${startedAt.toISOString()}`,
              publishedAt: null,
              changes: [],
            });
          return;
        }
        const changes: FeedChange[] = updates.map((update) => ({
          countryCode: 'NO',
          numbers: [
            { identifierType: 'registration_number', normalized: update.organisasjonsnummer },
            { identifierType: 'vat_number', normalized: `NO${update.organisasjonsnummer}MVA` },
          ],
        }));
        const published = last.dato ? new Date(last.dato) : null;
        from = String(last.oppdateringsid);
        await onBatch({
          position: from,
          publishedAt: published && !Number.isNaN(published.getTime()) ? published : null,
          changes,
        });
        if (updates.length < BRREG_UPDATES_PAGE_SIZE) return;
      }
    },
  };
}
