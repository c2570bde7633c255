import { FIELD_ERROR_CODES } from '../lib/problem.js';
import type { OpenApiDocument } from './openapi.js';
import type { ProblemTypeDefinition } from './problems.js';

/*
 * The human-readable API reference, rendered on the server from the same OpenAPI document that
 * /openapi.json serves: no script, no CDN (deployments are often offline), nothing to drift.
 */

type Schema = Record<string, unknown>;

const escapeHtml = (text: unknown): string =>
  String(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/** Escapes text and renders `backticked` spans as code, the only markup descriptions use. */
const inline = (text: unknown): string => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

const paragraphs = (text: unknown): string =>
  typeof text === 'string'
    ? text
        .split(/\n{2,}/)
        .map((p) => `<p>${inline(p)}</p>`)
        .join('')
    : '';

const refName = (ref: string): string => ref.split('/').pop() ?? ref;

function typeLabel(schema: Schema | undefined): string {
  if (!schema) return 'any';
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref);
    return `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
  }
  if ('const' in schema) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
  if (Array.isArray(schema.enum) && schema.enum.length === 1) {
    return `<code>${escapeHtml(JSON.stringify(schema.enum[0]))}</code>`;
  }
  if (Array.isArray(schema.enum)) {
    return `one of ${schema.enum.map((v) => `<code>${escapeHtml(JSON.stringify(v))}</code>`).join(', ')}`;
  }
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(variants)) return variants.map(typeLabel).join(' or ');
  if (schema.type === 'array') return `array of ${typeLabel(schema.items as Schema)}`;
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : String(schema.type ?? 'any');
  return escapeHtml(schema.format ? `${type} (${schema.format})` : type);
}

const CONSTRAINTS: Array<[string, (v: unknown) => string]> = [
  ['minLength', (v) => `at least ${v} characters`],
  ['maxLength', (v) => `at most ${v} characters`],
  ['minimum', (v) => `minimum ${v}`],
  ['maximum', (v) => `maximum ${v}`],
  ['minItems', (v) => `at least ${v} items`],
  ['maxItems', (v) => `at most ${v} items`],
  ['uniqueItems', (v) => (v ? 'unique items' : '')],
  ['maxProperties', (v) => `at most ${v} properties`],
  ['pattern', (v) => `pattern <code>${escapeHtml(v)}</code>`],
  ['default', (v) => `default <code>${escapeHtml(JSON.stringify(v))}</code>`],
  [
    'example',
    (v) => `example <code>${escapeHtml(typeof v === 'string' ? v : JSON.stringify(v))}</code>`,
  ],
];

function notes(schema: Schema): string {
  const parts = CONSTRAINTS.filter(([key]) => key in schema)
    .map(([key, render]) => render(schema[key]))
    .filter(Boolean);
  const text = [schema.description ? inline(schema.description) : '', parts.join('; ')];
  return text.filter(Boolean).join('<br>');
}

function renderSchema(schema: Schema | undefined, depth = 0): string {
  if (!schema) return '';
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (schema.type !== 'object' || !properties || depth > 4) {
    return `<p>${typeLabel(schema)}${schema.description ? ` — ${inline(schema.description)}` : ''}</p>`;
  }
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const rows = Object.entries(properties).map(([name, property]) => {
    // Inline objects, and arrays of inline objects, are expanded in place; $refs link instead.
    const items = property.items as Schema | undefined;
    const inner = property.type === 'array' && items?.type === 'object' ? items : property;
    const nested =
      inner.type === 'object' && inner.properties ? renderSchema(inner, depth + 1) : '';
    return `<tr><td><code>${escapeHtml(name)}</code></td><td>${typeLabel(property)}</td><td>${required.has(name) ? 'yes' : 'no'}</td><td>${notes(property)}${nested}</td></tr>`;
  });
  const extra =
    schema.additionalProperties === false
      ? '<p class="note">No other fields are accepted.</p>'
      : '';
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr></thead><tbody>${rows.join('')}</tbody></table>${extra}`;
}

/** A block a reader can select with one click and paste (the page runs no script to copy). */
const codeBlock = (text: string, label: string): string =>
  `<pre class="code" aria-label="${escapeHtml(label)}"><code>${escapeHtml(text)}</code></pre>`;

function renderExamples(examples: unknown): string {
  if (!examples || typeof examples !== 'object') return '';
  return Object.entries(examples as Record<string, { summary?: string; value?: unknown }>)
    .map(
      ([name, example]) =>
        `<p class="media">Example: ${inline(example.summary ?? name)}</p>${codeBlock(JSON.stringify(example.value, null, 2), `Example ${name}`)}`,
    )
    .join('');
}

function renderContent(content: unknown): string {
  if (!content || typeof content !== 'object') return '';
  return Object.entries(content as Record<string, { schema?: Schema; examples?: unknown }>)
    .map(
      ([type, media]) =>
        `<p class="media">${escapeHtml(type)}</p>${renderSchema(media.schema as Schema)}${renderExamples(media.examples)}`,
    )
    .join('');
}

function renderCodeSamples(samples: unknown): string {
  if (!Array.isArray(samples) || samples.length === 0) return '';
  return `<h4>Example request</h4>${samples
    .map((sample: { label?: string; lang?: string; source?: string }) =>
      codeBlock(String(sample.source ?? ''), String(sample.label ?? sample.lang ?? 'code')),
    )
    .join('')}`;
}

const WEBHOOK_AUTH =
  'Sent by firmwatch to the monitor’s <code>webhook_url</code>, signed with the monitor’s signing secret: verify <code>Service-Signature</code> as described above.';

function renderOperation(
  method: string,
  path: string,
  op: Record<string, unknown>,
  webhook = false,
): string {
  const id = escapeHtml(op.operationId ?? `${method}-${path}`);
  const security = op.security as unknown[] | undefined;
  const auth = webhook
    ? WEBHOOK_AUTH
    : Array.isArray(security) && security.length === 0
      ? 'Public: no key needed.'
      : 'Bearer API key in the Authorization header.';
  const parameters = (op.parameters as Schema[] | undefined) ?? [];
  const paramRows = parameters
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${typeLabel(p.schema as Schema)}</td><td>${p.required ? 'yes' : 'no'}</td><td>${notes({ ...(p.schema as Schema), description: p.description ?? (p.schema as Schema)?.description, ...('example' in p ? { example: p.example } : {}) })}</td></tr>`,
    )
    .join('');
  const body = op.requestBody as { content?: unknown } | undefined;
  const responses = Object.entries((op.responses as Record<string, Schema>) ?? {})
    .map(
      ([status, response]) =>
        `<details${status.startsWith('2') ? ' open' : ''}><summary><span class="status s${status[0]}">${escapeHtml(status)}</span> ${inline(response.description ?? '')}</summary>${renderContent(response.content)}</details>`,
    )
    .join('');
  return `<section class="operation" id="op-${id}">
<h3><span class="method ${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code></h3>
<p class="summary">${inline(op.summary ?? '')} <span class="opid">${id}</span></p>
${paragraphs(op.description)}
<p class="auth">${auth}</p>
${renderCodeSamples(op['x-codeSamples'])}
${paramRows ? `<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Required</th><th>Notes</th></tr></thead><tbody>${paramRows}</tbody></table>` : ''}
${body ? `<h4>Request body</h4>${renderContent(body.content)}` : ''}
<h4>Responses</h4>${responses}
</section>`;
}

export interface ProblemTypeEntry extends ProblemTypeDefinition {
  code: string;
  type: string;
}

export function renderReferencePage(doc: OpenApiDocument, problems: ProblemTypeEntry[]): string {
  const info = doc.info as { title: string; version: string; description?: string };
  const servers = (doc.servers as Array<{ url: string }> | undefined) ?? [];
  const operations: Array<{ tag: string; html: string; link: string }> = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = ((op.tags as string[] | undefined) ?? ['Other'])[0] ?? 'Other';
      const id = escapeHtml(op.operationId ?? `${method}-${path}`);
      operations.push({
        tag,
        html: renderOperation(method, path, op),
        link: `<li><a href="#op-${id}"><span class="method ${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span> ${escapeHtml(path)}</a></li>`,
      });
    }
  }
  // The requests firmwatch sends (OpenAPI `webhooks`): the receiver's side of the contract.
  const webhooks = Object.entries(
    (doc.webhooks as OpenApiDocument['paths'] | undefined) ?? {},
  ).flatMap(([name, item]) =>
    Object.entries(item).map(([method, op]) => {
      const id = escapeHtml(op.operationId ?? name);
      return {
        html: renderOperation(method, `{webhook_url}`, op, true),
        link: `<li><a href="#op-${id}"><span class="method ${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span> ${escapeHtml(name)}</a></li>`,
      };
    }),
  );
  const tags = [...new Set(operations.map((o) => o.tag))];
  const schemas = Object.entries(
    ((doc.components as Schema | undefined)?.schemas as Record<string, Schema>) ?? {},
  );

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)} reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;display:flex;color:#1d2430}
nav{width:260px;flex:none;height:100vh;position:sticky;top:0;overflow:auto;background:#f4f6f8;padding:1rem;box-sizing:border-box;font-size:13px}
nav ul{list-style:none;padding:0;margin:.25rem 0 1rem}nav a{color:inherit;text-decoration:none}
main{padding:1rem 2rem;max-width:960px}
table{border-collapse:collapse;width:100%;margin:.5rem 0}td,th{border:1px solid #d6dbe1;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f4f6f8}code{font-size:90%}
.method{display:inline-block;min-width:4.5em;font-weight:600;font-size:12px}
.get{color:#0a6b3d}.head{color:#5a6b7b}.options{color:#5a6b7b}.post{color:#0b5cad}.patch{color:#8a5a00}.delete{color:#b42318}
.operation{border-top:1px solid #d6dbe1;padding-top:.5rem;margin-top:1.5rem}.opid{color:#5a6b7b;font-size:12px}
pre.code{background:#f4f6f8;border:1px solid #d6dbe1;padding:.5rem;overflow:auto;user-select:all;font-size:13px}
.status{font-weight:600}.s2{color:#0a6b3d}.s4{color:#8a5a00}.s5{color:#b42318}.media,.note{color:#5a6b7b;font-size:13px}
</style></head>
<body>
<nav><strong>${escapeHtml(info.title)}</strong> <small>${escapeHtml(info.version)}</small>
${tags
  .map(
    (t) =>
      `<p>${escapeHtml(t)}</p><ul>${operations
        .filter((o) => o.tag === t)
        .map((o) => o.link)
        .join('')}</ul>`,
  )
  .join('')}
${webhooks.length ? `<p><a href="#webhooks">Webhooks</a></p><ul>${webhooks.map((w) => w.link).join('')}</ul>` : ''}
<p><a href="#schemas">Schemas</a></p><p><a href="#problems">Problem types</a></p></nav>
<main>
<h1>${escapeHtml(info.title)} <small>${escapeHtml(info.version)}</small></h1>
${paragraphs(info.description)}
<p>Base URL: ${servers.map((s) => `<code>${escapeHtml(s.url)}</code>`).join(', ')} · Machine-readable: <a href="openapi.json">openapi.json</a> (OpenAPI 3.1)</p>
${tags
  .map(
    (t) =>
      `<h2>${escapeHtml(t)}</h2>${operations
        .filter((o) => o.tag === t)
        .map((o) => o.html)
        .join('')}`,
  )
  .join('')}
${webhooks.length ? `<h2 id="webhooks">Webhooks</h2><p>What firmwatch sends to a monitor’s <code>webhook_url</code>: one <code>POST</code> per event and attempt, with the headers, body, signature and retry schedule below.</p>${webhooks.map((w) => w.html).join('')}` : ''}
<h2 id="schemas">Schemas</h2>
${schemas.map(([name, schema]) => `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${renderSchema(schema)}</section>`).join('')}
<h2 id="problems">Problem types</h2>
<p>Every error is an <code>application/problem+json</code> Problem. Branch on <code>code</code>; <code>type</code> links here. A retryable problem carries <code>Retry-After</code> (seconds).</p>
${problems.map((p) => `<section id="problem-${escapeHtml(p.code)}"><h3><code>${escapeHtml(p.code)}</code> <small>${p.status} ${escapeHtml(p.title)}</small></h3><p>${inline(p.description)}</p><p class="note">type <code>${escapeHtml(p.type)}</code> · retryable: ${p.retryable}</p></section>`).join('')}
<h3 id="field-errors">Validation error codes</h3>
<table><thead><tr><th><code>errors[].code</code></th><th>Meaning</th></tr></thead><tbody>
${Object.entries(FIELD_ERROR_CODES)
  .map(([code, meaning]) => `<tr><td><code>${code}</code></td><td>${escapeHtml(meaning)}</td></tr>`)
  .join('')}
</tbody></table>
</main></body></html>`;
}
