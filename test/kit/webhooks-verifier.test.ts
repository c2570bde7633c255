import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import {
  DEFAULT_TOLERANCE_SECONDS,
  signWebhook,
  verifyWebhook,
  WEBHOOK_API_VERSION,
  WEBHOOK_EVENT_TYPES,
  type WebhookChange,
  type WebhookEnvelope,
  WebhookHeaderError,
  WebhookPayloadError,
  WebhookSignatureError,
  type WebhookSnapshot,
  WebhookTimestampError,
  WebhookVerificationError,
} from '../../src/kit/webhooks.js';
import {
  EVENT_TYPES,
  type MonitorChange,
  MonitorChangeSchema,
  type MonitorSnapshot,
  MonitorSnapshotSchema,
  WEBHOOK_API_VERSION as SERVER_API_VERSION,
  WebhookEnvelopeSchema,
} from '../../src/modules/monitors/monitors.schemas.js';
import { signatureHeader, timestampHeader } from '../../src/modules/webhooks/signature.js';

const ROOT = join(import.meta.dirname, '../..');
const DOC = readFileSync(join(ROOT, 'docs/webhooks.md'), 'utf8');

const SECRET = 'svcwhsec_Zk3vQ9xT2bN7mR4pW8yC1hJ6dF0sL5aE3gU9iO2kB7n';
const OTHER_SECRET = 'svcwhsec_Xq8wE2rT5yU1iO7pA4sD9fG3hJ6kL0zC2vB5nM8qW1e';
const SIGNED_AT = new Date('2026-09-14T08:30:12.000Z');
const SIGNED_AT_SECONDS = 1_789_374_612;

const ENVELOPE: WebhookEnvelope = {
  id: 'evt_01k3x7q9m2c8d4f6h0j5n7p9r1',
  type: 'vat.monitor.change_detected',
  api_version: '2026-08-29',
  created_at: '2026-09-14T08:30:12.345Z',
  data: {
    monitor_id: 'mon_01k3w2a8b4c6d8e0f2g4h6j8k0',
    changes: [
      { field: 'registration_number', previous: 'HRB999012', current: 'HRB999013' },
      {
        field: 'registered_address',
        previous: 'Zeitachse 12, 10115 Berlin',
        current: 'Zeitachse 13, 80331 München',
      },
    ],
    check_id: 'chk_01k3x7q9kz5v2t8r6p4n2m0k8j',
    snapshot: {
      check_id: 'chk_01k3x7q9kz5v2t8r6p4n2m0k8j',
      observed_at: '2026-09-14T08:30:12.301Z',
      registry_match_status: 'matched',
      company_legal_status: 'active',
      legal_name: 'Sandbox Timeline Umzug GmbH',
      registration_number: 'HRB999013',
      vat_numbers: ['DE999000121'],
      registered_address: 'Zeitachse 13, 80331 München',
    },
  },
};
const BODY = JSON.stringify(ENVELOPE);

function signed(overrides: { secret?: string; body?: string | Uint8Array; at?: Date } = {}) {
  return signWebhook({
    secret: overrides.secret ?? SECRET,
    body: overrides.body ?? BODY,
    timestamp: overrides.at ?? SIGNED_AT,
  });
}

function refusal(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
  throw new Error('the request was accepted');
}

function expectRefused(
  run: () => unknown,
  errorClass: new (...args: never[]) => WebhookVerificationError,
  code: string,
): WebhookVerificationError {
  const error = refusal(run);
  expect(error).toBeInstanceOf(errorClass);
  expect(error.code).toBe(code);
  expect(error.name).toBe(errorClass.name);
  return error;
}

describe('firmwatch/webhooks: what is signed is accepted', () => {
  it('accepts what signWebhook signs, returning the event id, timestamp and parsed envelope', () => {
    const headers = signed();
    expect(headers).toEqual({
      'Service-Event-Id': ENVELOPE.id,
      'Service-Timestamp': String(SIGNED_AT_SECONDS),
      'Service-Signature': expect.stringMatching(/^v1=[0-9a-f]{64}$/),
    });
    const result = verifyWebhook({ secret: SECRET, headers, rawBody: BODY, now: SIGNED_AT });
    expect(result).toEqual({
      eventId: ENVELOPE.id,
      timestamp: SIGNED_AT_SECONDS,
      payload: ENVELOPE,
    });
  });

  it('accepts what the sender signs with signature.ts (signatureHeader, timestampHeader)', () => {
    const timestamp = timestampHeader(SIGNED_AT);
    const headers = {
      'service-event-id': ENVELOPE.id,
      'service-timestamp': timestamp,
      'service-signature': signatureHeader(SECRET, timestamp, Buffer.from(BODY)),
    };
    expect(verifyWebhook({ secret: SECRET, headers, rawBody: BODY, now: SIGNED_AT }).eventId).toBe(
      ENVELOPE.id,
    );
    expect(signed()['Service-Signature']).toBe(headers['service-signature']);
  });

  it('takes the body as a Buffer, a Uint8Array or a string, with the same result', () => {
    const headers = signed();
    const bytes = Buffer.from(BODY, 'utf8');
    // A view into a larger buffer, as a framework's body often is.
    const padded = Buffer.concat([Buffer.from('xxxx'), bytes, Buffer.from('yyyy')]);
    const view = new Uint8Array(padded.buffer, padded.byteOffset + 4, bytes.length);
    for (const rawBody of [BODY, bytes, new Uint8Array(bytes), view]) {
      expect(verifyWebhook({ secret: SECRET, headers, rawBody, now: SIGNED_AT }).payload).toEqual(
        ENVELOPE,
      );
    }
    // signWebhook signs bytes the same as their string.
    expect(signed({ body: bytes })).toEqual(headers);
  });

  it('reads WHATWG Headers and Node-style header objects of any case, with array values', () => {
    const headers = signed();
    const now = SIGNED_AT;
    const shapes = [
      new Headers(headers),
      Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
      ) as IncomingHttpHeaders,
      Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [name.toUpperCase(), [value]]),
      ),
    ];
    for (const shape of shapes) {
      expect(verifyWebhook({ secret: SECRET, headers: shape, rawBody: BODY, now }).eventId).toBe(
        ENVELOPE.id,
      );
    }
  });

  it('accepts a header with several signatures when any v1 one matches (secret rotation)', () => {
    const headers = signed();
    const good = headers['Service-Signature'];
    const stale = signed({ secret: OTHER_SECRET })['Service-Signature'];
    const future = `v2=${'ab'.repeat(40)}`;
    for (const value of [
      `${stale} ${good}`,
      `${stale},${good}`,
      `${stale}, ${good}`,
      `${future} ${good}`,
      `${good} ${stale}`,
    ]) {
      const result = verifyWebhook({
        secret: SECRET,
        headers: { ...headers, 'Service-Signature': value },
        rawBody: BODY,
        now: SIGNED_AT,
      });
      expect(result.eventId).toBe(ENVELOPE.id);
    }
    // A repeated header, as Node gives it from two header lines.
    const repeated = { ...headers, 'Service-Signature': [stale, good] };
    expect(
      verifyWebhook({ secret: SECRET, headers: repeated, rawBody: BODY, now: SIGNED_AT }).eventId,
    ).toBe(ENVELOPE.id);
  });

  it('accepts a timestamp exactly at the tolerance, either way', () => {
    const headers = signed();
    for (const offset of [-DEFAULT_TOLERANCE_SECONDS, DEFAULT_TOLERANCE_SECONDS]) {
      const now = new Date(SIGNED_AT.getTime() + offset * 1000);
      expect(verifyWebhook({ secret: SECRET, headers, rawBody: BODY, now }).timestamp).toBe(
        SIGNED_AT_SECONDS,
      );
    }
  });
});

describe('firmwatch/webhooks: the receiver clock', () => {
  it('takes now as a Date or as a number of Unix seconds, with the same result', () => {
    const headers = signed();
    const verifyAt = (now: Date | number) =>
      verifyWebhook({ secret: SECRET, headers, rawBody: BODY, now });
    for (const offset of [-DEFAULT_TOLERANCE_SECONDS, 0, DEFAULT_TOLERANCE_SECONDS]) {
      const asDate = verifyAt(new Date((SIGNED_AT_SECONDS + offset) * 1000));
      expect(verifyAt(SIGNED_AT_SECONDS + offset)).toEqual(asDate);
      expect(asDate.timestamp).toBe(SIGNED_AT_SECONDS);
    }
    // Fractional seconds count as the second they fall in, as a Date's milliseconds do.
    expect(verifyAt(SIGNED_AT_SECONDS + DEFAULT_TOLERANCE_SECONDS + 0.9).eventId).toBe(ENVELOPE.id);
    for (const offset of [-(DEFAULT_TOLERANCE_SECONDS + 1), DEFAULT_TOLERANCE_SECONDS + 1]) {
      expectRefused(
        () => verifyAt(SIGNED_AT_SECONDS + offset),
        WebhookTimestampError,
        'timestamp_outside_tolerance',
      );
    }
  });

  it('throws a TypeError for a clock it cannot read, naming milliseconds when it gets them', () => {
    const headers = signed();
    const verifyAt = (now: unknown) => () =>
      verifyWebhook({ secret: SECRET, headers, rawBody: BODY, now: now as number });
    expect(verifyAt(SIGNED_AT.getTime())).toThrow(/milliseconds/);
    expect(verifyAt(SIGNED_AT.getTime())).toThrow(TypeError);
    for (const now of [Number.NaN, Number.POSITIVE_INFINITY, -1, '1789374612', new Date('x')]) {
      expect(verifyAt(now), String(now)).toThrow(TypeError);
    }
  });

  it('is documented as a Date or Unix seconds', () => {
    expect(DOC).toMatch(/`now`[^\n]*`Date`[^\n]*Unix seconds/);
  });
});

describe('firmwatch/webhooks: what is not genuine or not fresh is refused', () => {
  const verify =
    (headers: Record<string, string>, rawBody: string | Buffer = BODY, now = SIGNED_AT) =>
    () =>
      verifyWebhook({ secret: SECRET, headers, rawBody, now });

  it('refuses a body changed by one byte', () => {
    const bytes = Buffer.from(BODY);
    const index = bytes.indexOf('HRB999013');
    bytes[index + 8] = '4'.charCodeAt(0);
    expectRefused(verify(signed(), bytes), WebhookSignatureError, 'signature_mismatch');
    // Even whitespace that leaves the JSON the same: the signature covers the bytes.
    expectRefused(verify(signed(), `${BODY} `), WebhookSignatureError, 'signature_mismatch');
  });

  it('refuses a changed timestamp (the signature covers it)', () => {
    const headers = signed();
    const moved = { ...headers, 'Service-Timestamp': String(SIGNED_AT_SECONDS + 1) };
    expectRefused(verify(moved), WebhookSignatureError, 'signature_mismatch');
  });

  it('refuses a signature made with another secret', () => {
    expectRefused(
      verify(signed({ secret: OTHER_SECRET })),
      WebhookSignatureError,
      'signature_mismatch',
    );
    // Not even the same secret without its prefix: the key is the whole secret.
    expectRefused(
      verify(signed({ secret: SECRET.slice('svcwhsec_'.length) })),
      WebhookSignatureError,
      'signature_mismatch',
    );
  });

  it('refuses a timestamp past the tolerance, in the past and in the future', () => {
    const late = new Date(SIGNED_AT.getTime() + (DEFAULT_TOLERANCE_SECONDS + 1) * 1000);
    const early = new Date(SIGNED_AT.getTime() - (DEFAULT_TOLERANCE_SECONDS + 1) * 1000);
    expectRefused(
      verify(signed(), BODY, late),
      WebhookTimestampError,
      'timestamp_outside_tolerance',
    );
    expectRefused(
      verify(signed(), BODY, early),
      WebhookTimestampError,
      'timestamp_outside_tolerance',
    );
    // A tolerance of the receiver's choosing.
    const tenSecondsLate = new Date(SIGNED_AT.getTime() + 11_000);
    const headers = signed();
    expectRefused(
      () =>
        verifyWebhook({
          secret: SECRET,
          headers,
          rawBody: BODY,
          now: tenSecondsLate,
          toleranceSeconds: 10,
        }),
      WebhookTimestampError,
      'timestamp_outside_tolerance',
    );
  });

  it.each(['Service-Event-Id', 'Service-Timestamp', 'Service-Signature'] as const)(
    'refuses a request without %s, or with it empty',
    (name) => {
      const headers: Record<string, string> = signed() as unknown as Record<string, string>;
      const { [name]: _left, ...without } = headers;
      const error = expectRefused(verify(without), WebhookHeaderError, 'missing_header');
      expect((error as WebhookHeaderError).header).toBe(name);
      expectRefused(verify({ ...headers, [name]: '  ' }), WebhookHeaderError, 'missing_header');
    },
  );

  it.each([
    ['not a signature', 'sha256=abc'],
    ['hex of the wrong length', `v1=${'a'.repeat(63)}`],
    ['hex with a stray character', `v1=${'a'.repeat(63)}g`],
    ['a bare digest', 'a'.repeat(64)],
    ['an empty v1', 'v1='],
    ['no v1 entry at all', `v2=${'a'.repeat(64)}`],
    ['a malformed entry beside a good one', 'GOOD garbage'],
  ])('refuses a malformed signature header: %s', (_label, value) => {
    const headers = signed();
    const signature = value.replace('GOOD', headers['Service-Signature']);
    const error = expectRefused(
      verify({ ...headers, 'Service-Signature': signature }),
      WebhookHeaderError,
      'malformed_header',
    );
    expect((error as WebhookHeaderError).header).toBe('Service-Signature');
  });

  it.each([
    ['nine digits', '178937461'],
    ['a decimal point', '1789374612.5'],
    ['a sign', '+1789374612'],
    ['a date', '2026-09-14T08:30:12Z'],
  ])('refuses a malformed timestamp: %s', (_label, value) => {
    const headers = { ...signed(), 'Service-Timestamp': value };
    const error = expectRefused(verify(headers), WebhookHeaderError, 'malformed_header');
    expect((error as WebhookHeaderError).header).toBe('Service-Timestamp');
  });

  it('refuses milliseconds in the timestamp as outside the tolerance', () => {
    const ms = String(SIGNED_AT.getTime());
    const headers = { ...signed(), 'Service-Timestamp': ms };
    expectRefused(verify(headers), WebhookTimestampError, 'timestamp_outside_tolerance');
  });

  it('refuses an event id header that is not the signed body’s id (no dedup bypass)', () => {
    const headers = { ...signed(), 'Service-Event-Id': 'evt_01k3x7q9m2c8d4f6h0j5n7p9zz' };
    expectRefused(verify(headers), WebhookHeaderError, 'event_id_mismatch');
  });

  it('refuses a correctly signed body that is not a JSON object', () => {
    for (const body of ['not json', '[1,2]', 'null']) {
      const headers = signWebhook({ secret: SECRET, body, timestamp: SIGNED_AT, eventId: 'evt_x' });
      expectRefused(verify({ ...headers }, body), WebhookPayloadError, 'malformed_payload');
    }
  });

  it('throws a TypeError for parsed JSON instead of the raw body, or no secret', () => {
    const headers = signed();
    expect(() =>
      verifyWebhook({ secret: SECRET, headers, rawBody: ENVELOPE as never, now: SIGNED_AT }),
    ).toThrow(TypeError);
    expect(() => verifyWebhook({ secret: '', headers, rawBody: BODY, now: SIGNED_AT })).toThrow(
      TypeError,
    );
    expect(() => signWebhook({ secret: SECRET, body: 'not json' })).toThrow(/eventId/);
  });
});

describe('the signature scheme (a change to it fails here)', () => {
  // The documented vector: docs/webhooks.md, "The signature".
  const DOC_SECRET = 'svcwhsec_docs-example-secret-not-a-real-one-0123456789';
  const DOC_SIGNATURE = 'v1=d95811215779e770395187367cadc562a16c07dbf10978c0d4b491318517c840';

  it('is HMAC-SHA256 keyed with the whole secret’s UTF-8 bytes over "<timestamp>.<raw body>"', () => {
    const bodyBytes = Buffer.from(BODY, 'utf8');
    expect(bodyBytes.length).toBe(766);
    expect(bodyBytes.includes(Buffer.from([0xc3, 0xbc]))).toBe(true); // ü in UTF-8
    const expected = createHmac('sha256', Buffer.from(DOC_SECRET, 'utf8'))
      .update(
        Buffer.concat([
          Buffer.from(String(SIGNED_AT_SECONDS), 'ascii'),
          Buffer.from('.'),
          bodyBytes,
        ]),
      )
      .digest('hex');
    expect(`v1=${expected}`).toBe(DOC_SIGNATURE);
    expect(signWebhook({ secret: DOC_SECRET, body: BODY, timestamp: SIGNED_AT })).toEqual({
      'Service-Event-Id': ENVELOPE.id,
      'Service-Timestamp': '1789374612',
      'Service-Signature': DOC_SIGNATURE,
    });
    const headers = {
      'service-event-id': ENVELOPE.id,
      'service-timestamp': '1789374612',
      'service-signature': DOC_SIGNATURE,
    };
    expect(
      verifyWebhook({ secret: DOC_SECRET, headers, rawBody: bodyBytes, now: SIGNED_AT }).eventId,
    ).toBe(ENVELOPE.id);
  });

  it('is documented with this vector and the example body', () => {
    expect(DOC).toContain(DOC_SECRET);
    expect(DOC).toContain(DOC_SIGNATURE);
    expect(DOC).toContain('`1789374612`');
    const example = /```json\n([\s\S]*?)\n```/.exec(DOC)?.[1];
    expect(JSON.stringify(JSON.parse(example ?? 'null'))).toBe(BODY);
  });
});

describe('the kit’s envelope type is the server’s', () => {
  type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
  const changeTypesMatch: Same<WebhookChange, MonitorChange> = true;
  const snapshotTypesMatch: Same<WebhookSnapshot, MonitorSnapshot> = true;

  it('has the same api version, event types and fields', () => {
    expect(changeTypesMatch && snapshotTypesMatch).toBe(true);
    expect(WEBHOOK_API_VERSION).toBe(SERVER_API_VERSION);
    expect([...WEBHOOK_EVENT_TYPES]).toEqual([...EVENT_TYPES]);
    // ENVELOPE is typed by the kit and has every optional field: its keys are the kit's fields.
    const keys = (o: object) => Object.keys(o).sort();
    expect(keys(ENVELOPE)).toEqual(keys(WebhookEnvelopeSchema.properties));
    expect(keys(ENVELOPE.data)).toEqual(keys(WebhookEnvelopeSchema.properties.data.properties));
    expect(keys(ENVELOPE.data.snapshot ?? {})).toEqual(keys(MonitorSnapshotSchema.properties));
    expect(keys(ENVELOPE.data.changes[0] ?? {})).toEqual(keys(MonitorChangeSchema.properties));
  });
});

describe('a receiver over real HTTP (Fastify keeping the raw body, as docs/webhooks.md shows)', () => {
  const app = Fastify();
  const taken: string[] = [];
  let url = '';

  beforeAll(async () => {
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
      done(null, body),
    );
    app.post('/webhooks/firmwatch', async (request, reply) => {
      try {
        const { eventId } = verifyWebhook({
          secret: SECRET,
          headers: request.headers,
          rawBody: request.body as Buffer,
        });
        if (!taken.includes(eventId)) taken.push(eventId);
        return reply.code(204).send();
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        return reply.code(400).send({ error: error.code });
      }
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/webhooks/firmwatch`;
  });
  afterAll(() => app.close());

  const post = (headers: Record<string, string>, body: string) =>
    fetch(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body,
    });

  it('accepts a signed delivery once per event id, and refuses a tampered or stale one', async () => {
    const headers = signWebhook({ secret: SECRET, body: BODY });
    expect((await post(headers, BODY)).status).toBe(204);
    expect((await post(signWebhook({ secret: SECRET, body: BODY }), BODY)).status).toBe(204);
    expect(taken).toEqual([ENVELOPE.id]);

    const tampered = await post(headers, BODY.replace('HRB999013', 'HRB999014'));
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toEqual({ error: 'signature_mismatch' });

    const stale = signWebhook({
      secret: SECRET,
      body: BODY,
      timestamp: new Date(Date.now() - 600_000),
    });
    const refused = await post(stale, BODY);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: 'timestamp_outside_tolerance' });
  });
});

const PYTHON = spawnSync('python3', ['--version']).status === 0;

describe('the Python receiver in docs/webhooks.md', () => {
  // The first ```python block of the page: the receiver, run here as a module (not as __main__,
  // so its server does not start) and asked to verify each case.
  const DRIVER = `
import base64, json, os, sys
module = {"__name__": "firmwatch_receiver_example"}
exec(os.environ["RECEIVER_SOURCE"], module)
results = []
for case in json.loads(sys.stdin.read()):
    body = base64.b64decode(case["body"])
    try:
        payload = module["verify_webhook"](case["secret"], case["headers"], body, now=case["now"])
        results.append({"ok": True, "id": payload["id"]})
    except module["WebhookError"] as error:
        results.append({"ok": False, "error": str(error)})
print(json.dumps(results))
`;

  test.skipIf(!PYTHON)(
    'accepts a signed delivery and refuses tampered, stale or foreign ones',
    () => {
      const source = /```python\n([\s\S]*?)\n```/.exec(DOC)?.[1];
      expect(source).toContain('def verify_webhook(');
      const now = SIGNED_AT_SECONDS;
      const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
      const headers = signed();
      const cases = [
        { secret: SECRET, headers, body: b64(BODY), now },
        { secret: SECRET, headers, body: b64(BODY.replace('HRB999013', 'HRB999014')), now },
        { secret: SECRET, headers, body: b64(BODY), now: now + DEFAULT_TOLERANCE_SECONDS + 1 },
        { secret: SECRET, headers, body: b64(BODY), now: now - DEFAULT_TOLERANCE_SECONDS - 1 },
        { secret: OTHER_SECRET, headers, body: b64(BODY), now },
        {
          secret: SECRET,
          headers: {
            ...headers,
            'Service-Signature': `${signed({ secret: OTHER_SECRET })['Service-Signature']}, ${headers['Service-Signature']}`,
          },
          body: b64(BODY),
          now,
        },
        {
          secret: SECRET,
          headers: { ...headers, 'Service-Timestamp': '12345' },
          body: b64(BODY),
          now,
        },
        {
          secret: SECRET,
          headers: { 'Service-Timestamp': headers['Service-Timestamp'] },
          body: b64(BODY),
          now,
        },
        {
          secret: SECRET,
          headers: { ...headers, 'Service-Event-Id': 'evt_someoneelse000000000' },
          body: b64(BODY),
          now,
        },
      ];
      const run = spawnSync('python3', ['-c', DRIVER], {
        input: JSON.stringify(cases),
        env: { ...process.env, RECEIVER_SOURCE: source ?? '' },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual([
        { ok: true, id: ENVELOPE.id },
        { ok: false, error: 'signature_mismatch' },
        { ok: false, error: 'timestamp_outside_tolerance' },
        { ok: false, error: 'timestamp_outside_tolerance' },
        { ok: false, error: 'signature_mismatch' },
        { ok: true, id: ENVELOPE.id },
        { ok: false, error: 'malformed_header' },
        { ok: false, error: 'missing_header' },
        { ok: false, error: 'event_id_mismatch' },
      ]);
    },
  );
});

describe('docs/webhooks.md', () => {
  it('links only inside the repository and names no external URL', () => {
    const links = [...DOC.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links.filter((l) => !l.startsWith('#'))) {
      expect(link).not.toMatch(/^[a-z]+:/);
      const target = join(ROOT, 'docs', link.split('#')[0] as string);
      expect(target.startsWith(ROOT)).toBe(true);
      expect(readFileSync(target, 'utf8').length).toBeGreaterThan(0);
    }
    for (const [url] of DOC.matchAll(/\bhttps?:\/\/[^\s'"`)<>]+/g)) {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    }
  });
});
