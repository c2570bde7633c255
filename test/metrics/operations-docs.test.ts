import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/lib/metrics.js';

// docs/operations.md's alert rules and table, and the Grafana dashboard beside it, name only
// metrics the service exports: a renamed metric must take its alert and panel along.

const root = new URL('../../', import.meta.url);
const operations = readFileSync(new URL('docs/operations.md', root), 'utf8');
const dashboard = JSON.parse(
  readFileSync(new URL('docs/grafana/firmwatch-dashboard.json', root), 'utf8'),
) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };

async function exported(): Promise<Set<string>> {
  const metrics = createMetrics();
  metrics.collectProcessMetrics();
  const names = new Set<string>();
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${metric.name}${suffix}`);
  }
  return names;
}

/** Metric names in a PromQL expression (ours and Node's), not its functions or labels. */
const namesIn = (expr: string) =>
  [...expr.matchAll(/\b((?:firmwatch|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1] as string);

describe('the operations guide and the Grafana dashboard', () => {
  it('the dashboard queries only exported metrics, in every panel', async () => {
    const names = await exported();
    expect(dashboard.panels.length).toBeGreaterThan(10);
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const { expr } of panel.targets) {
        const used = namesIn(expr);
        expect(used.length, `${panel.title}: ${expr}`).toBeGreaterThan(0);
        for (const name of used) expect(names, `${panel.title}: ${name}`).toContain(name);
      }
    }
  });

  it('the alert rules and the metrics table name only exported metrics, and the table all of ours', async () => {
    const names = await exported();
    const rules = /```yaml\n(groups:[\s\S]*?)```/.exec(operations)?.[1] ?? '';
    expect(rules).toContain('FirmwatchMonitorsOverdue');
    for (const name of namesIn(rules)) expect(names).toContain(name);
    const table = [...operations.matchAll(/^\| `(firmwatch_[a-z0-9_]+)` \|/gm)].map((m) => m[1]);
    const ours = [...names].filter(
      (name) => name.startsWith('firmwatch_') && !/_(bucket|sum|count)$/.test(name),
    );
    expect(new Set(table)).toEqual(new Set(ours));
  });
});
