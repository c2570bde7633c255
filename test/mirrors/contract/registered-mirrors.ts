import { ariregisterContract } from './ariregister.js';
import { edgarContract } from './edgar.js';
import { kboContract } from './kbo.js';
import type { MirrorContract } from './mirror-contract.js';

/** Every mirror the shared mirror contract suite runs (a new mirror registers here). */
export const MIRROR_CONTRACTS: MirrorContract[] = [edgarContract, ariregisterContract, kboContract];
