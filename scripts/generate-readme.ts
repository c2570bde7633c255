import { readFileSync, writeFileSync } from 'node:fs';
import { renderReadme } from './readme-sections.js';

const path = new URL('../README.md', import.meta.url);
writeFileSync(path, renderReadme(readFileSync(path, 'utf8')));
console.log('wrote the generated sections of README.md');
