import { writeFileSync } from 'node:fs';
import { renderFormatsDoc } from './formats-doc.js';

writeFileSync(new URL('../docs/formats.md', import.meta.url), renderFormatsDoc());
console.log('wrote docs/formats.md');
