import { ARIREGISTER_SIMPLE_DATA } from './ariregister-simple-data.js';
import { EDGAR_SUBMISSIONS } from './edgar-submissions.js';
import { KBO_OPEN_DATA } from './kbo-open-data.js';
import type { MirrorFormat } from './mirror-format.js';

/** Every register mirror, by the name `firmwatch mirror refresh NAME` and LIVE_SOURCES give it. */
export const MIRROR_NAMES = ['edgar', 'ariregister', 'kbo'] as const;
export type MirrorName = (typeof MIRROR_NAMES)[number];

export const MIRROR_FORMATS: Record<MirrorName, MirrorFormat> = {
  edgar: EDGAR_SUBMISSIONS,
  ariregister: ARIREGISTER_SIMPLE_DATA,
  kbo: KBO_OPEN_DATA,
};

export function isMirrorName(name: string): name is MirrorName {
  return (MIRROR_NAMES as readonly string[]).includes(name);
}
