import { writeFileSync } from 'node:fs';
import { renderSandboxDoc } from './sandbox-doc.js';

writeFileSync(new URL('../docs/sandbox.md', import.meta.url), renderSandboxDoc());
console.log('wrote docs/sandbox.md');
