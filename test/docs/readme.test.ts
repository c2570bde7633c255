import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderCliTable, renderConfigTable, renderReadme } from '../../scripts/readme-sections.js';
import { CONFIG_VARIABLES } from '../../src/config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('README.md', () => {
  it('has the generated configuration and command tables as the code defines them (npm run docs:readme)', () => {
    const readme = read('README.md');
    expect(readme).toBe(renderReadme(readme));
  });

  it('lists every configuration variable', () => {
    for (const variable of CONFIG_VARIABLES)
      expect(renderConfigTable()).toContain(`\`${variable.name}\``);
  });

  it('lists every command, each in the one form that works from a clone', () => {
    const table = renderCliTable();
    for (const command of [
      'serve',
      'worker',
      'migrate',
      'workspace create',
      'workspace list',
      'key create',
      'key list',
      'key revoke',
      'access',
      'credits grant',
      'credits balance',
    ]) {
      expect(table).toContain(`\`npx firmwatch ${command}`);
    }
  });

  it.each([
    'README.md',
    'ARCHITECTURE.md',
    'docs/decisions.md',
    'docs/formats.md',
    'docs/sandbox.md',
  ])('%s links only to files inside the repository, and they exist', (path) => {
    const text = read(path);
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
    for (const link of links.filter((l) => !/^(https?:|#|mailto:)/.test(l))) {
      const target = join(ROOT, dirname(path), link.split('#')[0] as string);
      expect(target.startsWith(ROOT), `${link} leaves the repository`).toBe(true);
      expect(existsSync(target), `${link} does not exist`).toBe(true);
    }
    expect(text).not.toMatch(/\.\.\/shared\//);
    // The bare command is not on a clone's PATH: commands are shown as `npx firmwatch ...`.
    expect(text).not.toMatch(/(?<!npx )\bfirmwatch (serve|migrate|workspace|key|access|credits)\b/);
  });
});
