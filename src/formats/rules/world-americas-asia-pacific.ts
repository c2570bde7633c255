import type { FormatRule } from '../format-rule.js';

/**
 * Rules for the Americas, Asia and the Pacific beyond the core set (issue 17). Country names are
 * published beside them (COUNTRY_NAMES in countries.ts takes them from here).
 */
export const americasAsiaPacificRules: FormatRule[] = [];

export const americasAsiaPacificNames: Record<string, string> = {};
