import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * This package's directory, where package.json is: two levels up from src/lib (run from source
 * with tsx) and from dist/lib (compiled) alike, wherever the process was started.
 */
export const PACKAGE_ROOT: string = fileURLToPath(new URL('../..', import.meta.url));

/** This package's version, read once from package.json. */
export const PACKAGE_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;
