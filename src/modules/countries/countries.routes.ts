import type { FastifyPluginAsync } from 'fastify';
import { MAX_LIMIT } from '../../http/pagination.js';
import { HttpProblem } from '../../http/problems.js';
import { problemResponses } from '../../http/responses.js';
import {
  type CountryCapability,
  CountryCapabilitySchema,
  CountryListQuery,
  CountryListSchema,
  CountryParams,
} from './countries.schemas.js';
import { filterCountries, findCountry } from './countries.service.js';

export const countriesRoutes: FastifyPluginAsync<{ capabilities: CountryCapability[] }> = async (
  app,
  { capabilities },
) => {
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
      const { query } = request.query as { query?: string };
      // All countries fit in one page: there is no cursor, and has_more is always false.
      return {
        object: 'list' as const,
        data: filterCountries(capabilities, query),
        pagination: { limit: MAX_LIMIT, has_more: false },
      };
    },
  );

  app.get(
    '/v1/countries/:country_code',
    {
      config: { public: true },
      schema: {
        operationId: 'getCountry',
        summary: 'Get the capabilities of one country',
        tags: ['Countries'],
        params: CountryParams,
        response: { 200: CountryCapabilitySchema, ...problemResponses(404, 429, 500) },
      },
    },
    async (request) => {
      const { country_code } = request.params as { country_code: string };
      const country = findCountry(capabilities, country_code);
      if (!country) {
        throw new HttpProblem('not_found', {
          detail: `No capabilities are published for country ${country_code.slice(0, 10)}; GET /v1/countries lists them.`,
        });
      }
      return country;
    },
  );
};
