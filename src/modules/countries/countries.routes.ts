import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { EnvironmentName } from '../../db/schema.js';
import { listResponse, singlePage } from '../../http/pagination.js';
import { problemResponses } from '../../http/responses.js';
import { DomainProblem } from '../../lib/problem.js';
import {
  type CountryCapability,
  CountryCapabilitySchema,
  CountryListQuery,
  CountryListSchema,
  CountryParams,
} from './countries.schemas.js';
import { filterCountries, findCountry } from './countries.service.js';

/**
 * Capabilities depend on the environment's registry sources. The endpoint is public: a caller
 * with a valid key sees its environment's capabilities, anyone else those of live.
 */
export const countriesRoutes: FastifyPluginAsyncTypebox<{
  /** Each environment's capabilities now (a mirror's coverage follows its data). */
  capabilities: Record<EnvironmentName, () => CountryCapability[]>;
}> = async (app, options) => {
  const capabilitiesFor = (request: FastifyRequest) =>
    options.capabilities[request.principal?.environment ?? 'live']();
  app.get(
    '/v1/countries',
    {
      config: { public: true },
      schema: {
        operationId: 'listCountries',
        summary: 'List country capabilities',
        description:
          'Every country the service knows, with what it can check for each identifier type. Public.',
        tags: ['Countries'],
        querystring: CountryListQuery,
        response: { 200: CountryListSchema, ...problemResponses(422, 429, 500) },
      },
    },
    async (request) => {
      const { query } = request.query;
      // All countries fit in one page.
      return listResponse(singlePage(filterCountries(capabilitiesFor(request), query)));
    },
  );

  app.get(
    '/v1/countries/:country_code',
    {
      config: { public: true },
      schema: {
        operationId: 'getCountry',
        summary: 'Get the capabilities of one country',
        description:
          'One entry of `GET /countries`: for each identifier type of the country, its format rule with examples and whether format, registry match, tax authority and company legal status can be checked, and whether company search is available. The code is two letters in either case (`gb` is `GB`); a country with no published capabilities is a 404 `not_found`. Public: a caller with a valid key sees its environment’s capabilities (the sandbox answers GB, DE and US from fixtures), anyone else those of live.',
        tags: ['Countries'],
        params: CountryParams,
        response: { 200: CountryCapabilitySchema, ...problemResponses(404, 429, 500) },
      },
    },
    async (request) => {
      const { country_code } = request.params;
      const country = findCountry(capabilitiesFor(request), country_code);
      if (!country) {
        throw new DomainProblem('not_found', {
          detail: `No capabilities are published for country ${country_code.slice(0, 10)}; GET /v1/countries lists them.`,
        });
      }
      return country;
    },
  );
};
