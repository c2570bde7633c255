import type { RuleVectors } from './vectors.js';

/** Vectors of the rules in src/formats/rules/world-europe-africa.ts (see vectors.ts). */
export const EUROPE_AFRICA_VECTORS: Record<string, RuleVectors> = {};
