import Type from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { post } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

// A format error must say what the format is: "does not have the required format" leaves the
// caller guessing (issue 10).
describe('pattern errors describe the expected format', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp({
      setup(app) {
        // A pattern without a description falls back to quoting the pattern itself.
        app.post(
          '/v1/pattern-probe',
          {
            config: { public: true },
            schema: {
              body: Type.Object(
                { code: Type.String({ pattern: '^[0-9]{3}$' }) },
                { additionalProperties: false },
              ),
            },
          },
          async () => ({}),
        );
      },
    });
    key = (await t.createKey()).key;
  });
  afterAll(() => t.close());

  async function fieldErrors(response: Response) {
    const problem = await expectProblem(response, 422, 'validation_failed');
    return { detail: problem.detail, errors: problem.errors };
  }

  it('a check with a malformed country_code', async () => {
    const { detail, errors } = await fieldErrors(
      await post(
        t.baseUrl,
        '/checks',
        { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GBR' },
        key,
      ),
    );
    expect(errors).toEqual([
      {
        pointer: '/country_code',
        code: 'invalid_format',
        message: 'must be two letters (an ISO 3166-1 alpha-2 country code, either case)',
      },
    ]);
    expect(detail).toContain('/country_code must be two letters');
  });

  it('a company search with a blank city_or_state item and a malformed country_code', async () => {
    const { errors } = await fieldErrors(
      await post(
        t.baseUrl,
        '/companies/search',
        { country_code: 'G1', name: 'Sandbox', city_or_state: ['London', ' ', '\t'] },
        key,
      ),
    );
    expect(errors).toEqual([
      {
        pointer: '/country_code',
        code: 'invalid_format',
        message: 'must be two letters (an ISO 3166-1 alpha-2 country code, either case)',
      },
      {
        pointer: '/city_or_state/1',
        code: 'invalid_format',
        message: 'must be text with at least one character that is not white space',
      },
      {
        pointer: '/city_or_state/2',
        code: 'invalid_format',
        message: 'must be text with at least one character that is not white space',
      },
    ]);
  });

  it('a pattern without a description quotes the pattern', async () => {
    const { errors } = await fieldErrors(
      await fetch(`${t.baseUrl}/pattern-probe`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: '12' }),
      }),
    );
    expect(errors).toEqual([
      { pointer: '/code', code: 'invalid_format', message: 'must match the pattern ^[0-9]{3}$' },
    ]);
  });
});
