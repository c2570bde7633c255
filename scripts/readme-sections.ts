import type { Command } from 'commander';
import { buildCli, CLI_INVOCATION } from '../src/cli/program.js';
import { CONFIG_VARIABLES } from '../src/config.js';

/**
 * The README sections generated from the code that defines them: the configuration table from
 * `CONFIG_VARIABLES`, the command table from the CLI definition. Each sits between
 * `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`; test/docs/readme.test.ts fails on drift.
 */
const cell = (text: string) => text.replace(/\|/g, '\\|');

function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ].join('\n');
}

export function renderConfigTable(): string {
  return table(
    ['Variable', 'Default', 'Meaning'],
    CONFIG_VARIABLES.map((v) => [`\`${v.name}\``, `\`${v.default}\``, v.meaning]),
  );
}

/** Every runnable command (leaves of the command tree), with its arguments and required options. */
function leafCommands(command: Command, prefix: string[] = []): Array<[string, Command]> {
  return command.commands.flatMap((child) => {
    const path = [...prefix, child.name()];
    if (child.commands.length > 0) return leafCommands(child, path);
    // Positional arguments as commander shows them (<required>, [optional]), then required options.
    const positional = child.registeredArguments.map((argument) =>
      argument.required ? `<${argument.name()}>` : `[${argument.name()}]`,
    );
    const required = child.options
      .filter((option) => option.mandatory)
      .map((option) => option.flags);
    return [[[...path, ...positional, ...required].join(' '), child] as [string, Command]];
  });
}

export function renderCliTable(): string {
  return table(
    ['Command', 'What it does'],
    leafCommands(buildCli(false)).map(([usage, command]) => [
      `\`${CLI_INVOCATION} ${usage}\``,
      command.description(),
    ]),
  );
}

const SECTIONS: Record<string, () => string> = {
  configuration: renderConfigTable,
  commands: renderCliTable,
};

/** The README with every generated section rewritten; throws if a section's markers are missing. */
export function renderReadme(readme: string): string {
  let text = readme;
  for (const [name, render] of Object.entries(SECTIONS)) {
    const start = `<!-- generated:${name} -->`;
    const end = `<!-- /generated:${name} -->`;
    const from = text.indexOf(start);
    const to = text.indexOf(end);
    if (from < 0 || to < from) throw new Error(`README.md lacks the markers of section ${name}`);
    text = `${text.slice(0, from + start.length)}\n${render()}\n${text.slice(to)}`;
  }
  return text;
}
