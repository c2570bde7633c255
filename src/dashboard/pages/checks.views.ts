import type { Static } from 'typebox';
import type { EnvironmentName } from '../../db/schema.js';
import { IDENTIFIER_TYPES } from '../../formats/format-rule.js';
import type { Problem } from '../../http/problems.js';
import type {
  Check as CheckRecord,
  Evidence,
  IdentifierSchema,
  Warning,
} from '../../modules/checks/checks.schemas.js';
import { SANDBOX_FIXTURES } from '../../sources/sandbox/sandbox-source.js';
import { type Html, html } from '../html.js';
import { layout, type PageContext, type Viewer } from '../layout.js';
import type { ApiResult } from './api.js';
import { type Company, companyFacts } from './companies.views.js';
import { fieldError, fieldErrors, invalidAttributes, problemSummary } from './form-parts.js';
import { checkFilterForm, type Filters } from './list-filters.js';
import { environmentSwitch, pageAssets, pageUrl, tableWrap, when } from './page-parts.js';

type Page = PageContext & { viewer: Viewer };

/** A check as the API answers it (the schema's references resolved). */
export type Check = Omit<CheckRecord, 'identifier' | 'company' | 'evidence' | 'warnings'> & {
  identifier: Static<typeof IdentifierSchema>;
  company?: Company;
  evidence: Evidence[];
  warnings: Warning[];
};

const TYPE_LABELS: Record<string, string> = {
  vat_number: 'VAT number',
  tax_identifier: 'Tax identifier (US EIN)',
  registration_number: 'Company registration number',
};

function subNav(viewer: Viewer, environment: EnvironmentName): Html {
  return html`<p><a href="${pageUrl('/dashboard/checks', viewer, environment)}">Run a check</a> ·
    <a href="${pageUrl('/dashboard/checks/history', viewer, environment)}">Check history</a></p>`;
}

/** The sandbox fixture numbers, read from the fixtures themselves, each a link that fills the form. */
function sandboxExamples(viewer: Viewer): Html {
  return html`<details id="examples">
    <summary>Sandbox example numbers (test data, not real companies)</summary>
    ${SANDBOX_FIXTURES.map((country) =>
      tableWrap(
        `Sandbox numbers, ${country.country_code}`,
        html`<table>
        <caption>${country.country_code}</caption>
        <thead><tr><th scope="col">Type</th><th scope="col">Number</th><th scope="col">Sandbox answer</th></tr></thead>
        <tbody>${country.identifiers.map(
          (item) => html`<tr>
            <td>${TYPE_LABELS[item.identifier_type] ?? item.identifier_type}</td>
            <td><a href="${pageUrl('/dashboard/checks', viewer, 'sandbox', {
              identifier_type: item.identifier_type,
              identifier: item.value,
              country: country.country_code,
            })}"><code>${item.value}</code><span class="skip"> (fill the form)</span></a></td>
            <td>${item.outcome.replace('_', ' ')}</td>
          </tr>`,
        )}</tbody>
      </table>`,
      ),
    )}
  </details>`;
}

export function playgroundPage(
  page: Page,
  input: {
    environment: EnvironmentName;
    values: { identifier_type: string; identifier: string; country: string };
    problem?: Problem;
    idempotencyKey: string;
  },
): Html {
  const { viewer } = page;
  const { values, environment } = input;
  const errors = fieldErrors(input.problem);
  const typeError = errors.get('/identifier_type');
  const identifierError = errors.get('/identifier');
  const countryError = errors.get('/country_code');
  return layout(
    page,
    html`${pageAssets(['playground.css'])}
    <h1>Checks playground</h1>
    ${subNav(viewer, environment)}
    ${problemSummary(input.problem)}
    <p>Runs <code>POST /v1/checks</code> as you, in this workspace. A sandbox check is free and answers from fixtures; a live check is billed (1 credit) and needs paid access.</p>
    <form class="stack" method="post" action="/dashboard/checks" novalidate>
      <input type="hidden" name="_csrf" value="${page.csrfToken}">
      <input type="hidden" name="workspace" value="${viewer.current.workspace_id}">
      <input type="hidden" name="idempotency_key" value="${input.idempotencyKey}">
      <div>
        <label for="identifier_type">Identifier type</label>
        ${fieldError('identifier_type', typeError)}
        <select id="identifier_type" name="identifier_type" ${invalidAttributes('identifier_type', typeError)}>
          ${IDENTIFIER_TYPES.map(
            (type) =>
              html`<option value="${type}" ${type === values.identifier_type ? html`selected` : ''}>${TYPE_LABELS[type] ?? type}</option>`,
          )}
        </select>
      </div>
      <div>
        <label for="identifier">Identifier</label>
        ${fieldError('identifier', identifierError)}
        <input type="text" id="identifier" name="identifier" value="${values.identifier}" autocomplete="off" spellcheck="false" ${invalidAttributes('identifier', identifierError)}>
      </div>
      <div>
        <label for="country">Country (two letters, such as GB)</label>
        ${fieldError('country', countryError)}
        <input type="text" id="country" name="country" value="${values.country}" maxlength="2" autocomplete="off" ${invalidAttributes('country', countryError)}>
      </div>
      <fieldset>
        <legend>Environment</legend>
        <div><input type="radio" id="check-env-sandbox" name="environment" value="sandbox" ${environment === 'sandbox' ? html`checked` : ''}><label for="check-env-sandbox">Sandbox (fixtures, free)</label></div>
        <div><input type="radio" id="check-env-live" name="environment" value="live" ${environment === 'live' ? html`checked` : ''}><label for="check-env-live">Live (billed, needs paid access)</label></div>
      </fieldset>
      <button type="submit">Run the check</button>
    </form>
    ${sandboxExamples(viewer)}`,
  );
}

const FINDINGS: Array<{ key: keyof Check; label: string }> = [
  { key: 'format_status', label: 'Format' },
  { key: 'registry_match_status', label: 'Registry match' },
  { key: 'tax_authority_status', label: 'Tax authority' },
  { key: 'company_legal_status', label: 'Company legal status' },
];

/**
 * Finding values that call for a look before paying or onboarding, said in words (colour alone is
 * lost on many readers): a warning says something adverse about the company or the identifier;
 * attention says the source could not answer, so nothing is known yet.
 */
const SEVERITIES: Record<string, { word: 'Warning' | 'Attention'; tone: string }> = {
  liquidation: { word: 'Warning', tone: 'warning' },
  insolvency: { word: 'Warning', tone: 'warning' },
  dissolved: { word: 'Warning', tone: 'warning' },
  invalid: { word: 'Warning', tone: 'warning' },
  not_matched: { word: 'Warning', tone: 'warning' },
  unavailable: { word: 'Attention', tone: 'attention' },
};

/** A finding's value, with its severity in words when it has one. */
function findingValue(value: string): Html {
  const severity = SEVERITIES[value];
  if (!severity) return html`<code>${value}</code>`;
  return html`<strong class="severity severity-${severity.tone}">${severity.word}:</strong> <code>${value}</code>`;
}

/** The four findings, each in its own labelled box: they are never merged into one verdict. */
function findings(check: Check): Html {
  return html`<ul class="findings" aria-label="Findings">
    ${FINDINGS.map((f) => {
      const value = String(check[f.key]);
      return html`<li aria-labelledby="finding-${f.key}" class="${SEVERITIES[value] ? `finding-${SEVERITIES[value].tone}` : ''}">
        <h3 id="finding-${f.key}">${f.label}</h3>
        <p class="value">${findingValue(value)}</p>
      </li>`;
    })}
  </ul>`;
}

/** Why a check has no company: what happened at the register, in the words of its finding. */
function noCompany(check: Check): string {
  switch (check.registry_match_status) {
    case 'not_supported':
      return 'No company: no register was asked, since none covers this country and identifier type in this environment.';
    case 'not_checked':
      return 'No company: no register was asked.';
    case 'unavailable':
      return 'No company: the register could not be reached, so no record was matched.';
    case 'ambiguous':
      return 'No company: the register has more than one record for this identifier.';
    default:
      return 'No company: the registry matched no single record.';
  }
}

function evidenceTable(check: Check): Html {
  if (check.evidence.length === 0) return html`<p>No evidence: no source was consulted.</p>`;
  return tableWrap(
    'Evidence',
    html`<table>
    <caption class="skip">Evidence</caption>
    <thead><tr><th scope="col">Finding</th><th scope="col">Source</th><th scope="col">Raw status</th><th scope="col">Retrieved</th></tr></thead>
    <tbody>${check.evidence.map(
      (e) => html`<tr>
        <td>${e.dimension}</td>
        <td>${e.source_name ?? e.source_type}${e.source_url ? html` (<a href="${e.source_url}">${e.source_type}</a>)` : html` (${e.source_type})`}</td>
        <td>${e.raw_status ?? '—'}</td>
        <td>${when(e.retrieved_at)}</td>
      </tr>`,
    )}</tbody>
  </table>`,
  );
}

function warningsList(check: Check): Html {
  if (check.warnings.length === 0) return html`<p>No warnings.</p>`;
  return html`<ul class="warnings">${check.warnings.map(
    (w) =>
      html`<li><strong>${w.dimension}</strong> <code>${w.code}</code>: ${w.message}${w.retryable ? ' (retryable)' : ''}</li>`,
  )}</ul>`;
}

export function checkDetailPage(
  page: Page,
  input: { environment: EnvironmentName; result: ApiResult<Check> },
): Html {
  const { viewer } = page;
  const { environment, result } = input;
  if (!result.ok) {
    return layout(
      page,
      html`<h1>Check not found</h1>${problemSummary(result.problem)}${subNav(viewer, environment)}`,
    );
  }
  const check = result.body;
  return layout(
    page,
    html`${pageAssets(['playground.css'])}
    <h1>Check <code>${check.id}</code></h1>
    ${subNav(viewer, environment)}
    <dl class="facts">
      <dt>Identifier</dt><dd><code>${check.identifier.normalized}</code> (as entered: <code>${check.identifier.input}</code>)</dd>
      <dt>Type</dt><dd>${TYPE_LABELS[check.identifier.type] ?? check.identifier.type}</dd>
      <dt>Country</dt><dd>${check.identifier.country_code}</dd>
      <dt>Environment</dt><dd>${environment}</dd>
      <dt>Source</dt><dd>${check.source}</dd>
      <dt>Credits used</dt><dd>${check.credits_used}</dd>
      <dt>Created</dt><dd>${when(check.created_at)}</dd>
    </dl>
    <h2>Findings</h2>
    ${findings(check)}
    <h2>Company</h2>
    ${
      check.company
        ? html`${companyFacts(check.company)}
          <p><a href="${pageUrl(`/dashboard/companies/${check.company.id}`, viewer, environment)}">The company snapshot</a></p>`
        : html`<p>${noCompany(check)}</p>`
    }
    <h2>Evidence</h2>
    ${evidenceTable(check)}
    <h2>Warnings</h2>
    ${warningsList(check)}`,
  );
}

export function checkHistoryPage(
  page: Page,
  input: {
    environment: EnvironmentName;
    filters: Filters;
    result: ApiResult<{ data: Check[]; pagination: { has_more: boolean; next_cursor?: string } }>;
  },
): Html {
  const { viewer } = page;
  const { environment, filters, result } = input;
  const filtered = Object.keys(filters).length > 0;
  const body = !result.ok
    ? problemSummary(result.problem)
    : result.body.data.length === 0
      ? html`<p>${filtered ? `No checks in ${environment} match the filters.` : `No checks in ${environment} yet.`}</p>`
      : html`${tableWrap(
          'Checks',
          html`<table>
      <caption class="skip">Checks, newest first</caption>
      <thead><tr><th scope="col">Check</th><th scope="col">Identifier</th><th scope="col">Country</th><th scope="col">Format</th><th scope="col">Registry</th><th scope="col">Tax authority</th><th scope="col">Legal status</th><th scope="col">Source</th><th scope="col">Created</th></tr></thead>
      <tbody>${result.body.data.map(
        (c) => html`<tr>
          <td><a href="${pageUrl(`/dashboard/checks/${c.id}`, viewer, environment)}"><code>${c.id}</code></a></td>
          <td><code>${c.identifier.normalized}</code></td>
          <td>${c.identifier.country_code}</td>
          <td>${findingValue(c.format_status)}</td>
          <td>${findingValue(c.registry_match_status)}</td>
          <td>${findingValue(c.tax_authority_status)}</td>
          <td>${findingValue(c.company_legal_status)}</td>
          <td>${c.source}</td>
          <td>${when(c.created_at)}</td>
        </tr>`,
      )}</tbody>
    </table>`,
        )}
    ${
      result.body.pagination.has_more && result.body.pagination.next_cursor
        ? html`<p><a rel="next" href="${pageUrl('/dashboard/checks/history', viewer, environment, { ...filters, cursor: result.body.pagination.next_cursor })}">Older checks</a></p>`
        : ''
    }`;
  return layout(
    page,
    html`${pageAssets(['playground.css'])}
    <h1>Check history</h1>
    ${environmentSwitch('/dashboard/checks/history', viewer, environment)}
    ${subNav(viewer, environment)}
    ${checkFilterForm(viewer, environment, filters)}
    ${body}`,
  );
}
