import { writeFileSync } from 'node:fs';
import { CLIENT_TYPES_FILE, renderClientTypes } from './client-types.js';

writeFileSync(CLIENT_TYPES_FILE, await renderClientTypes());
console.log('wrote src/kit/api-types.ts');
