import type { RuleVectors } from './vectors.js';

/** Vectors of the rules in src/formats/rules/world-americas-asia-pacific.ts (see vectors.ts). */
export const AMERICAS_ASIA_PACIFIC_VECTORS: Record<string, RuleVectors> = {};
