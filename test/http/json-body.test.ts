import { gzipSync } from 'node:zlib';
import Type from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { uniqueIdempotencyKey } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

const CHECK = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };

// Declared charsets and content codings were ignored, invalid UTF-8 was silently replaced with
// U+FFFD and duplicate keys silently kept the last value (issue 11, item 13).
describe('how a JSON body is read', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp({
      setup(app) {
        app.post(
          '/v1/body-probe',
          {
            config: { public: true },
            schema: { body: Type.Object({}, { additionalProperties: true }) },
          },
          async (request) => ({ received: request.body }),
        );
      },
    });
    key = (await t.createKey()).key;
  });
  afterAll(() => t.close());

  function postCheck(
    body: string | Buffer,
    headers: Record<string, string> = {},
    idempotencyKey = uniqueIdempotencyKey(),
  ) {
    return fetch(`${t.baseUrl}/checks`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
        ...headers,
      },
      body,
    });
  }

  function probe(body: string | Buffer) {
    return fetch(`${t.baseUrl}/body-probe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
  }

  describe('charset', () => {
    it('UTF-8 is accepted, declared in any case or quoted, or not declared', async () => {
      for (const type of [
        'application/json',
        'application/json; charset=utf-8',
        'application/json;charset=UTF-8',
        'application/json; charset="utf-8"',
        'application/json; charset=utf8',
      ]) {
        const response = await postCheck(JSON.stringify(CHECK), { 'content-type': type });
        expect(response.status, type).toBe(201);
      }
    });

    it('415 for any other charset, even when the bytes would parse as UTF-8', async () => {
      const utf16 = Buffer.from(`\ufeff${JSON.stringify(CHECK)}`, 'utf16le');
      const problem = await expectProblem(
        await postCheck(utf16, { 'content-type': 'application/json; charset=utf-16' }),
        415,
        'unsupported_media_type',
      );
      expect(problem.detail).toContain('charset=utf-16');
      expect(problem.detail).toContain('UTF-8');
      for (const charset of ['iso-8859-1', 'us-ascii', 'utf-16le']) {
        await expectProblem(
          await postCheck(JSON.stringify(CHECK), {
            'content-type': `application/json; charset=${charset}`,
          }),
          415,
          'unsupported_media_type',
        );
      }
    });
  });

  describe('Content-Encoding', () => {
    it('identity (or none) is accepted', async () => {
      const response = await postCheck(JSON.stringify(CHECK), { 'content-encoding': 'identity' });
      expect(response.status).toBe(201);
    });

    it('415 for br, even with a plain body, and for gzip', async () => {
      const br = await postCheck(JSON.stringify(CHECK), { 'content-encoding': 'br' });
      expect(br.headers.get('accept-encoding')).toBe('identity');
      const problem = await expectProblem(br, 415, 'unsupported_media_type');
      expect(problem.detail).toContain('Content-Encoding br');
      const gzip = await postCheck(gzipSync(JSON.stringify(CHECK)), { 'content-encoding': 'gzip' });
      await expectProblem(gzip, 415, 'unsupported_media_type');
      const listed = await postCheck(JSON.stringify(CHECK), {
        'content-encoding': 'identity, gzip',
      });
      await expectProblem(listed, 415, 'unsupported_media_type');
    });
  });

  describe('invalid UTF-8', () => {
    const bodyWith = (bytes: number[]) =>
      Buffer.concat([
        Buffer.from('{"identifier_type":"vat_number","identifier":"GB99900000'),
        Buffer.from(bytes),
        Buffer.from('","country_code":"GB"}'),
      ]);
    const OFFSET = Buffer.byteLength('{"identifier_type":"vat_number","identifier":"GB99900000');

    it('400 malformed_json naming the offset, instead of storing U+FFFD', async () => {
      for (const bytes of [
        [0xff],
        [0xc0, 0xaf], // an overlong "/"
        [0xed, 0xa0, 0x80], // a UTF-16 surrogate
        [0xe2, 0x82], // a truncated sequence
        [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      ]) {
        const problem = await expectProblem(
          await postCheck(bodyWith(bytes)),
          400,
          'malformed_json',
        );
        expect(problem.detail).toContain('not valid UTF-8');
        expect(problem.detail).toContain(`offset ${OFFSET}`);
      }
    });

    it('two bodies that differ only in invalid bytes are not one idempotent request', async () => {
      const idempotencyKey = uniqueIdempotencyKey();
      await expectProblem(
        await postCheck(bodyWith([0xff]), {}, idempotencyKey),
        400,
        'malformed_json',
      );
      await expectProblem(
        await postCheck(bodyWith([0xfe]), {}, idempotencyKey),
        400,
        'malformed_json',
      );
    });

    it('valid multi-byte UTF-8 and a leading byte order mark are accepted', async () => {
      const response = await probe(
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Zürich 東京 😀"}')]),
      );
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ received: { name: 'Zürich 東京 😀' } });
    });
  });

  describe('duplicate keys', () => {
    it('400 malformed_json with a pointer to each repeated key, at any depth', async () => {
      const problem = await expectProblem(
        await postCheck(
          '{"identifier_type":"vat_number","identifier":"GB1","identifier":"GB999000005",' +
            '"country_code":"GB","metadata":{"a":"1","b":"2","a":"3"}}',
        ),
        400,
        'malformed_json',
      );
      expect(problem.errors).toEqual([
        {
          pointer: '/identifier',
          code: 'duplicate_field',
          message: 'appears more than once in the same object',
        },
        {
          pointer: '/metadata/a',
          code: 'duplicate_field',
          message: 'appears more than once in the same object',
        },
      ]);
      expect(problem.detail).toContain('/identifier');
      expect(problem.detail).toContain('/metadata/a');
    });

    it('keys are compared after unescaping, and pointers go through arrays', async () => {
      const problem = await expectProblem(
        await probe('{"list":[{"a":1},{"x/y":1,"b":2,"x\\/y":3}],"\\u0061":{"a":1,"a":2}}'),
        400,
        'malformed_json',
      );
      expect(problem.errors?.map((e) => e.pointer)).toEqual(['/list/1/x~1y', '/a/a']);
    });

    it('the same key in different objects is not a duplicate', async () => {
      const body = {
        a: { id: 1, nested: { id: 2 } },
        b: [{ id: 3 }, { id: 4, s: 'a "quoted" \\ "id": 5 string' }],
        id: 6,
      };
      const response = await probe(JSON.stringify(body));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ received: body });
    });
  });
});
