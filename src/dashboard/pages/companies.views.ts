import type { Static } from 'typebox';
import type { EnvironmentName } from '../../db/schema.js';
import type { Problem } from '../../http/problems.js';
import type {
  Company as CompanyRecord,
  SourceSchema,
} from '../../modules/companies/companies.schemas.js';
import { type Html, html } from '../html.js';
import { layout, type PageContext, type Viewer } from '../layout.js';
import type { ApiResult } from './api.js';
import { fieldError, fieldErrors, invalidAttributes, problemSummary } from './form-parts.js';
import { pageAssets, pageUrl, tableWrap, when } from './page-parts.js';

type Page = PageContext & { viewer: Viewer };

/** A company as the API answers it (the schema's references resolved). */
export type Company = Omit<CompanyRecord, 'sources'> & {
  sources: Array<Static<typeof SourceSchema>>;
};

export const SEARCH_FIELDS = [
  { name: 'name', label: 'Name (or part of it)' },
  { name: 'registration_number', label: 'Registration number' },
  { name: 'vat_number', label: 'VAT number' },
  { name: 'tax_identifier', label: 'Tax identifier (US EIN)' },
] as const;

export type SearchValues = Record<'country_code' | (typeof SEARCH_FIELDS)[number]['name'], string>;

/** A company's facts, as a snapshot page and a check's page show them. */
export function companyFacts(company: Company): Html {
  return html`<dl class="facts">
    <dt>Legal name</dt><dd>${company.legal_name}</dd>
    <dt>Country</dt><dd>${company.country_code}</dd>
    <dt>Legal status</dt><dd><code>${company.company_legal_status}</code>${company.raw_company_legal_status ? ` (register says: ${company.raw_company_legal_status})` : ''}</dd>
    <dt>Registration number</dt><dd>${company.registration_number ?? '—'}</dd>
    <dt>VAT numbers</dt><dd>${company.vat_numbers.join(', ') || '—'}</dd>
    <dt>Tax identifiers</dt><dd>${company.tax_identifiers.join(', ') || '—'}</dd>
    ${company.legal_form && html`<dt>Legal form</dt><dd>${company.legal_form}</dd>`}
    ${company.incorporation_date && html`<dt>Incorporated</dt><dd>${company.incorporation_date}</dd>`}
    ${company.registered_address && html`<dt>Registered address</dt><dd>${company.registered_address.formatted}</dd>`}
    <dt>Sources</dt><dd>${company.sources.map((s) => s.source_name ?? s.source_type).join('; ')}</dd>
    <dt>Retrieved</dt><dd>${when(company.retrieved_at)}</dd>
  </dl>`;
}

export function companySearchPage(
  page: Page,
  input: {
    environment: EnvironmentName;
    values: SearchValues;
    idempotencyKey: string;
    problem?: Problem;
    results?: { data: Company[]; credits_used: number };
  },
): Html {
  const { viewer } = page;
  const { environment, values, results } = input;
  const errors = fieldErrors(input.problem);
  const countryError = errors.get('/country_code');
  return layout(
    page,
    html`${pageAssets(['playground.css'])}
    <h1>Companies</h1>
    ${problemSummary(input.problem)}
    <p>Runs <code>POST /v1/companies/search</code> as you: free in the sandbox (try “Sandbox Active” in GB), 1 credit per search in live. Each result is kept as a snapshot.</p>
    <form class="stack" method="post" action="/dashboard/companies/search" novalidate>
      <input type="hidden" name="_csrf" value="${page.csrfToken}">
      <input type="hidden" name="workspace" value="${viewer.current.workspace_id}">
      <input type="hidden" name="idempotency_key" value="${input.idempotencyKey}">
      <div>
        <label for="country_code">Country (two letters, such as GB)</label>
        ${fieldError('country_code', countryError)}
        <input type="text" id="country_code" name="country_code" value="${values.country_code}" maxlength="2" autocomplete="off" ${invalidAttributes('country_code', countryError)}>
      </div>
      ${SEARCH_FIELDS.map((field) => {
        const error = errors.get(`/${field.name}`);
        return html`<div>
          <label for="${field.name}">${field.label}</label>
          ${fieldError(field.name, error)}
          <input type="text" id="${field.name}" name="${field.name}" value="${values[field.name]}" autocomplete="off" ${invalidAttributes(field.name, error)}>
        </div>`;
      })}
      <fieldset>
        <legend>Environment</legend>
        <div><input type="radio" id="search-env-sandbox" name="environment" value="sandbox" ${environment === 'sandbox' ? html`checked` : ''}><label for="search-env-sandbox">Sandbox (fixtures, free)</label></div>
        <div><input type="radio" id="search-env-live" name="environment" value="live" ${environment === 'live' ? html`checked` : ''}><label for="search-env-live">Live (1 credit, needs paid access)</label></div>
      </fieldset>
      <button type="submit">Search</button>
    </form>
    ${
      results &&
      html`<h2 id="results">Results (${results.data.length})</h2>
      <p>Credits used: ${results.credits_used}.</p>
      ${
        results.data.length === 0
          ? html`<p>No company matches.</p>`
          : tableWrap(
              'Companies found',
              html`<table>
        <caption class="skip">Companies found</caption>
        <thead><tr><th scope="col">Legal name</th><th scope="col">Registration number</th><th scope="col">Legal status</th><th scope="col">Address</th></tr></thead>
        <tbody>${results.data.map(
          (c) => html`<tr>
            <td><a href="${pageUrl(`/dashboard/companies/${c.id}`, viewer, environment)}">${c.legal_name}</a></td>
            <td>${c.registration_number ?? '—'}</td>
            <td>${c.company_legal_status}</td>
            <td>${c.registered_address?.formatted ?? '—'}</td>
          </tr>`,
        )}</tbody>
      </table>`,
            )
      }`
    }`,
  );
}

export function companyPage(
  page: Page,
  input: { environment: EnvironmentName; result: ApiResult<Company> },
): Html {
  const { viewer } = page;
  const { environment, result } = input;
  const back = html`<p><a href="${pageUrl('/dashboard/companies', viewer, environment)}">Search companies</a></p>`;
  if (!result.ok) {
    return layout(page, html`<h1>Company not found</h1>${problemSummary(result.problem)}${back}`);
  }
  return layout(
    page,
    html`${pageAssets(['playground.css'])}
    <h1>${result.body.legal_name}</h1>
    <p>Snapshot <code>${result.body.id}</code> (${environment}), as the register answered when it was retrieved.</p>
    ${companyFacts(result.body)}
    ${back}`,
  );
}
