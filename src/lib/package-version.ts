import { readFileSync } from 'node:fs';

/** This package's version, read once from package.json (two levels up from src/lib and dist/lib). */
export const PACKAGE_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;
