import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, type Json, post, readJson } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

const VALID = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };

describe.each(DIALECTS)('metadata keys are 1 to 40 characters [%s]', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t.close());

  /** Posts with a key of its own workspace and checks that the refusal stored nothing. */
  async function refused(metadata: Record<string, string>) {
    const { key } = await t.createKey();
    const response = await post(t.baseUrl, '/checks', { ...VALID, metadata }, key);
    const problem = await expectProblem(response, 422, 'validation_failed');
    const list = await readJson(await get(t.baseUrl, '/checks', key));
    expect(list.data).toEqual([]);
    return problem;
  }

  it('a key of 41 characters: 422 at /metadata/<key>, saying the name is too long', async () => {
    const name = 'k'.repeat(41);
    const problem = await refused({ [name]: 'v', fine: 'v' });
    expect(problem.errors).toEqual([
      {
        pointer: `/metadata/${name}`,
        code: 'too_long',
        message: 'property name must be at most 40 characters',
      },
    ]);
    expect(problem.detail).toContain(`/metadata/${name} property name must be at most 40`);
  });

  it('one key of 240,000 characters is refused, not stored', async () => {
    const name = 'x'.repeat(240_000);
    const problem = await refused({ [name]: 'v' });
    expect(problem.errors?.map((e) => [e.pointer, e.code])).toEqual([
      [`/metadata/${name}`, 'too_long'],
    ]);
  });

  it('twenty keys of 12,000 characters: one error each', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(12_000, 'y'));
    const problem = await refused(Object.fromEntries(names.map((name) => [name, 'v'])));
    expect(problem.errors?.map((e) => e.pointer).sort()).toEqual(
      names.map((name) => `/metadata/${name}`).sort(),
    );
  });

  it('an empty key is too short; "/" and "~" in a key are escaped in the pointer', async () => {
    const name = `a/b~${'c'.repeat(40)}`;
    const problem = await refused({ '': 'v', [name]: 'v' });
    expect(problem.errors).toEqual(
      expect.arrayContaining([
        {
          pointer: '/metadata/',
          code: 'too_short',
          message: 'property name must be at least 1 characters',
        },
        {
          pointer: `/metadata/a~1b~0${'c'.repeat(40)}`,
          code: 'too_long',
          message: 'property name must be at most 40 characters',
        },
      ]),
    );
    expect(problem.errors).toHaveLength(2);
  });

  it('keys of 1 and 40 characters are accepted and returned as given', async () => {
    const { key } = await t.createKey();
    const metadata = { a: 'one', ['é'.repeat(40)]: 'forty' };
    const response = await post(t.baseUrl, '/checks', { ...VALID, metadata }, key);
    expect(response.status).toBe(201);
    expect((await readJson(response)).metadata).toEqual(metadata);
  });

  it('the OpenAPI document states the bound on keys', async () => {
    const doc: Json = await readJson(await fetch(`${t.baseUrl}/openapi.json`));
    const body =
      doc.paths['/checks'].post.requestBody.content['application/json'].schema.properties;
    expect(body.metadata.propertyNames).toEqual({ minLength: 1, maxLength: 40 });
    const check = doc.components.schemas.Check.properties;
    expect(check.metadata.propertyNames).toEqual({ minLength: 1, maxLength: 40 });
  });
});
