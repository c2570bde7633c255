import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import type { Viewer } from '../layout.js';
import { callApi, idempotencyKeyOf, newIdempotencyKey } from './api.js';
import {
  type Company,
  companyPage,
  companySearchPage,
  SEARCH_FIELDS,
  type SearchValues,
} from './companies.views.js';
import type { RegisterPages } from './context.js';
import { environmentOf, field, formOf } from './form-parts.js';
import { ENVIRONMENT_QUERY_FIELDS } from './page-parts.js';
import { formScope, refusingScope } from './scope.js';

const Query = Type.Object(ENVIRONMENT_QUERY_FIELDS, { additionalProperties: false });
const CompanyPageParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const EMPTY: SearchValues = {
  country_code: '',
  name: '',
  registration_number: '',
  vat_number: '',
  tax_identifier: '',
};

/** Company search (POST /v1/companies/search as the signed-in person) and snapshot pages. */
export const registerCompanyPages: RegisterPages = (app, ctx) => {
  const page = (reply: FastifyReply, viewer: Viewer, title: string) => ({
    title,
    csrfToken: ctx.csrfToken(reply),
    viewer,
  });

  app.get(
    '/companies',
    { ...ctx.guarded, schema: { querystring: Query } },
    async (request, reply) => {
      const { query } = request;
      const viewer = await ctx.viewerOf(request, query.workspace);
      if (!viewer) return ctx.noWorkspace(reply);
      return ctx.send(
        reply,
        companySearchPage(page(reply, viewer, 'Companies'), {
          environment: environmentOf(query.environment) ?? 'sandbox',
          values: EMPTY,
          idempotencyKey: newIdempotencyKey(),
        }),
      );
    },
  );

  // Results are answered on this POST's own page: a search is a billable write in live, and its
  // idempotency key makes the same form sent twice one search.
  app.post('/companies/search', ctx.guardedWrite, async (request, reply) => {
    const form = formOf(request.body);
    const found = await refusingScope(ctx, request, reply, formScope(form));
    if ('refused' in found) return found.refused;
    const { viewer, environment } = found;
    const values = { ...EMPTY, country_code: field(form, 'country_code') };
    // Empty optional fields are left out (a form always sends them); the API says what is missing.
    const body: Record<string, string> = { country_code: values.country_code };
    for (const searchField of SEARCH_FIELDS) {
      values[searchField.name] = field(form, searchField.name);
      if (values[searchField.name].trim() !== '') body[searchField.name] = values[searchField.name];
    }
    const result = await callApi<{ data: Company[]; credits_used: number }>(
      app,
      request,
      viewer,
      environment,
      {
        method: 'POST',
        url: '/v1/companies/search',
        body,
        idempotencyKey: idempotencyKeyOf(field(form, 'idempotency_key')),
      },
    );
    return ctx.send(
      reply,
      companySearchPage(page(reply, viewer, 'Companies'), {
        environment,
        values,
        idempotencyKey: newIdempotencyKey(),
        ...(result.ok ? { results: result.body } : { problem: result.problem }),
      }),
      result.ok ? 200 : result.problem.status,
    );
  });

  app.get(
    '/companies/:id',
    {
      ...ctx.guarded,
      schema: { querystring: Query, params: CompanyPageParams },
    },
    async (request, reply) => {
      const { query } = request;
      const viewer = await ctx.viewerOf(request, query.workspace);
      if (!viewer) return ctx.noWorkspace(reply);
      const environment = environmentOf(query.environment) ?? 'sandbox';
      const { id } = request.params;
      const result = await callApi<Company>(app, request, viewer, environment, {
        method: 'GET',
        url: `/v1/companies/${encodeURIComponent(id)}`,
      });
      return ctx.send(
        reply,
        companyPage(page(reply, viewer, result.ok ? result.body.legal_name : 'Company not found'), {
          environment,
          result,
        }),
        result.ok ? 200 : result.problem.status,
      );
    },
  );
};
