import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type DocumentedTool,
  documentedTools,
  MCP_DOC,
  renderToolList,
  replaceToolList,
} from '../../scripts/generate-mcp-doc.js';
import { TOOLS } from '../../src/mcp/tools.js';

describe('docs/mcp.md', () => {
  let tools: DocumentedTool[];
  let page: string;
  beforeAll(async () => {
    tools = await documentedTools();
    page = readFileSync(MCP_DOC, 'utf8');
  });

  it('has the generated tool list as the code defines it (npm run docs:mcp)', () => {
    expect(page).toBe(replaceToolList(page, renderToolList(tools)));
  });

  it('lists every tool, with the scope and billing of the operation it runs', () => {
    expect(tools.map((t) => t.tool.name)).toEqual(TOOLS.map((spec) => spec.name));
    const byName = new Map(tools.map((t) => [t.tool.name, t]));
    // Read from the route config through the served OpenAPI document, not restated in the tools.
    expect(byName.get('check_identifier')?.operation).toEqual({
      method: 'POST',
      path: '/checks',
      scope: 'checks:write',
      billable: true,
    });
    expect(byName.get('list_countries')?.operation.scope).toBeUndefined();
    const billed = tools.filter((t) => t.operation.billable).map((t) => t.tool.name);
    expect(billed.sort()).toEqual([
      'check_identifier',
      'create_monitor',
      'run_monitor',
      'search_companies',
    ]);
    const block = renderToolList(tools);
    for (const { tool } of tools) expect(block).toContain(`### \`${tool.name}\``);
  });

  it('a stale list is caught and rewritten; the hand-written text around it is kept', () => {
    const block = renderToolList(tools);
    const stale = page.replace('### `get_usage`', '### `get_usage_renamed`');
    expect(stale).not.toBe(page);
    expect(replaceToolList(stale, block)).toBe(page);
    const prose = page.replace('# MCP server', '# MCP server (edited)');
    expect(replaceToolList(prose, block)).toBe(prose);
    expect(() => replaceToolList('# no markers', block)).toThrow(/markers/);
  });

  it('links only to files that exist, and to headings that exist on the page', () => {
    const links = [...page.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
    const slug = (heading: string) =>
      heading
        .toLowerCase()
        .replace(/[^a-z0-9 _-]/g, '')
        .replace(/ /g, '-');
    const anchors = new Set([...page.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1] as string)));
    for (const link of links.filter((l) => !/^(https?:|mailto:)/.test(l))) {
      const [file, anchor] = link.split('#');
      if (file) expect(existsSync(new URL(file, MCP_DOC)), `${link} does not exist`).toBe(true);
      else expect(anchors.has(anchor as string), `no heading for ${link}`).toBe(true);
    }
  });
});
