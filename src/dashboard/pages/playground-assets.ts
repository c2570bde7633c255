import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Asset, asset } from '../asset.js';

/**
 * Assets of the usage, checks and companies pages, served by the dashboard's asset route. uPlot
 * is read from its package in node_modules (a runtime dependency), never from a CDN.
 */
const require = createRequire(import.meta.url);
const fromPackage = (path: string) => readFileSync(require.resolve(path), 'utf8');

const CSS = `
.env-switch ul { list-style: none; display: flex; gap: 1rem; padding: 0; margin: 0 0 1rem; }
.field-error { color: var(--bad); margin: .25rem 0; }
[aria-invalid=true] { border-color: var(--bad) !important; }
.findings { list-style: none; padding: 0; margin: 0 0 1rem; display: grid; gap: .75rem;
  grid-template-columns: repeat(4, minmax(0, 1fr)); }
.findings > li { border: 2px solid var(--line); padding: .5rem .75rem; min-width: 0; }
.findings h3 { font-size: .95rem; margin: 0 0 .25rem; color: var(--muted); }
.findings .value { font-size: 1.15rem; font-weight: 700; overflow-wrap: anywhere; }
.findings > li.finding-warning { border-color: var(--bad); border-left-width: 6px; }
.findings > li.finding-attention { border-color: #b35c00; border-left-width: 6px; }
.severity { display: inline-block; font-size: .9rem; padding: 0 .35rem; color: #fff; }
.severity-warning { background: var(--bad); }
.severity-attention { background: #8a4700; }
@media (max-width: 48rem) { .findings { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
.totals { display: flex; flex-wrap: wrap; gap: .5rem 2rem; padding: 0; list-style: none; }
.chart { margin: 1rem 0; }
.chart .plot { min-height: 240px; }
.chart figcaption { color: var(--muted); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
details { margin: 1rem 0; }
summary { cursor: pointer; font-weight: 600; }
`;

/**
 * Draws each `[data-usage-chart]` from the JSON in the element its `data-source` names (a
 * `<script type="application/json">`, which the CSP lets the page hold since it never runs).
 */
const CHART_JS = `
(function () {
  function draw(el) {
    var data = JSON.parse(document.getElementById(el.getAttribute('data-source')).textContent);
    var x = data.days.map(function (d) { return Date.parse(d.date + 'T00:00:00Z') / 1000; });
    var width = function () { return Math.max(280, el.clientWidth); };
    var plot = new uPlot({
      width: width(), height: 240, tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'); },
      legend: { show: true },
      series: [
        {},
        { label: 'Requests', stroke: '#0b5cad', width: 2, points: { show: true } },
        { label: 'Billable units', stroke: '#a4161a', width: 2, dash: [6, 4], points: { show: true } }
      ],
      axes: [{}, { label: 'Per day' }],
      scales: { x: { time: true } }
    }, [x, data.days.map(function (d) { return d.requests; }),
        data.days.map(function (d) { return d.billable_units; })], el);
    window.addEventListener('resize', function () { plot.setSize({ width: width(), height: 240 }); });
  }
  function start() {
    if (typeof uPlot === 'undefined') return;
    document.querySelectorAll('[data-usage-chart]').forEach(draw);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
`;

const JS = 'text/javascript; charset=utf-8';
const STYLE = 'text/css; charset=utf-8';

export const PLAYGROUND_ASSETS: Record<string, Asset> = {
  'uplot.js': asset(fromPackage('uplot/dist/uPlot.iife.min.js'), JS),
  'uplot.css': asset(fromPackage('uplot/dist/uPlot.min.css'), STYLE),
  'usage-chart.js': asset(CHART_JS, JS),
  'playground.css': asset(CSS, STYLE),
};
