import type { FastifyReply } from 'fastify';
import { errorPage, type Viewer } from '../layout.js';
import { callApi, idempotencyKeyOf, newIdempotencyKey } from './api.js';
import {
  type Company,
  companyPage,
  companySearchPage,
  SEARCH_FIELDS,
  type SearchValues,
} from './companies.views.js';
import type { RegisterPages } from './context.js';
import { ENVIRONMENT_QUERY, environmentOf, type Form, formField } from './playground-parts.js';

const QUERY = {
  type: 'object',
  properties: ENVIRONMENT_QUERY,
  additionalProperties: false,
} as const;
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
    { ...ctx.guarded, schema: { querystring: QUERY } },
    async (request, reply) => {
      const query = request.query as { workspace?: string; environment?: string };
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
    const form = request.body as Form | undefined;
    const viewer = await ctx.viewerOf(request, formField(form, 'workspace'));
    if (!viewer) return ctx.noWorkspace(reply);
    const environment = environmentOf(formField(form, 'environment'));
    if (!environment) {
      const refused = errorPage(
        page(reply, viewer, 'Refused'),
        'No such environment',
        'Choose the sandbox or the live environment.',
      );
      return ctx.send(reply, refused, 422);
    }
    const values = { ...EMPTY, country_code: formField(form, 'country_code') };
    // Empty optional fields are left out (a form always sends them); the API says what is missing.
    const body: Record<string, string> = { country_code: values.country_code };
    for (const field of SEARCH_FIELDS) {
      values[field.name] = formField(form, field.name);
      if (values[field.name].trim() !== '') body[field.name] = values[field.name];
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
        idempotencyKey: idempotencyKeyOf(formField(form, 'idempotency_key')),
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
      schema: {
        querystring: QUERY,
        params: { type: 'object', properties: { id: { type: 'string', maxLength: 100 } } },
      },
    },
    async (request, reply) => {
      const query = request.query as { workspace?: string; environment?: string };
      const viewer = await ctx.viewerOf(request, query.workspace);
      if (!viewer) return ctx.noWorkspace(reply);
      const environment = environmentOf(query.environment) ?? 'sandbox';
      const id = (request.params as { id: string }).id;
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
