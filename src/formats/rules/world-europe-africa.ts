import type { FormatRule } from '../format-rule.js';

/**
 * Rules for the rest of Europe, the Middle East and Africa beyond the core set (issue 17), with
 * the registration numbers of EU countries that had none. Country names are published beside them
 * (COUNTRY_NAMES in countries.ts takes them from here).
 */
export const europeAfricaRules: FormatRule[] = [];

export const europeAfricaNames: Record<string, string> = {};
