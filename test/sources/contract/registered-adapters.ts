import type { AdapterContract } from './adapter-contract.js';
import { aresContract } from './ares.js';
import { brregContract } from './brreg.js';
import { companiesHouseContract } from './companies-house.js';
import { gleifContract } from './gleif.js';
import { rechercheEntreprisesContract } from './recherche-entreprises.js';
import { regonContract } from './regon.js';

/**
 * Every adapter the contract suite runs against. A new adapter registers its fake here (one file
 * beside these); the suite fails while a `LIVE_SOURCES` name has no registration.
 */
export const REGISTERED_ADAPTERS: readonly AdapterContract[] = [
  companiesHouseContract,
  brregContract,
  rechercheEntreprisesContract,
  aresContract,
  gleifContract,
  regonContract,
];
