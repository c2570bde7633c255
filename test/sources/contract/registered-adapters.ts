import type { AdapterContract } from './adapter-contract.js';
import { aresContract } from './ares.js';
import { bolagsverketContract } from './bolagsverket.js';
import { brregContract } from './brreg.js';
import { companiesHouseContract } from './companies-house.js';
import { cvrContract } from './cvr.js';
import { gleifContract } from './gleif.js';
import { krsContract } from './krs.js';
import { prhContract } from './prh.js';
import { rechercheEntreprisesContract } from './recherche-entreprises.js';
import { regonContract } from './regon.js';
import { uidContract } from './uid.js';

/**
 * Every adapter the contract suite runs against. A new adapter registers its fake here (one file
 * beside these); the suite fails while a `LIVE_SOURCES` name has no registration.
 */
export const REGISTERED_ADAPTERS: readonly AdapterContract[] = [
  companiesHouseContract,
  brregContract,
  rechercheEntreprisesContract,
  aresContract,
  cvrContract,
  gleifContract,
  prhContract,
  krsContract,
  uidContract,
  bolagsverketContract,
  regonContract,
];
