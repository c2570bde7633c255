#!/usr/bin/env node
// The compiled CLI. `npm ci` builds dist/ (the `prepare` script); `npm run build` rebuilds it.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'firmwatch: the compiled code (dist/) is missing; run `npm run build` in the firmwatch directory, then try again.\n',
  );
  process.exit(1);
}
await import(entry.href);
