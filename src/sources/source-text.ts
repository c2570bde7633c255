import type { UpstreamResult } from './upstream/upstream-client.js';

/** Text compared the way people mean it: no accents, case or runs of spaces (names, cities). */
export function foldText(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** An upstream failure as a source's `unavailable` answer, keeping the client's reason. */
export function unavailableFrom(result: Extract<UpstreamResult, { kind: 'unavailable' }>) {
  return { outcome: 'unavailable' as const, reason: `${result.reason}: ${result.detail}` };
}
