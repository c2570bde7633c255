import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { createKeyVerifier, TOUCH_EVERY_MS } from '../../src/modules/accounts/key-verifier.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';

async function lastUsed(db: TestDatabase['db'], keyId: string): Promise<string | null> {
  const row = await db
    .selectFrom('api_keys')
    .select('last_used_at')
    .where('id', '=', keyId)
    .executeTakeFirstOrThrow();
  return row.last_used_at;
}

/** The write is fire-and-forget: wait (briefly) until it has landed. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return read();
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe.each(DIALECTS)("an API key's last use [%s]", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t?.close());

  it('a request records it; a second within the minute does not write again', async () => {
    const key = await t.createKey();
    expect(await lastUsed(t.database.db, key.id)).toBeNull();
    const call = () =>
      fetch(`${t.baseUrl}/usage`, { headers: { authorization: `Bearer ${key.key}` } });

    const first = t.clock.now().toISOString();
    expect((await call()).status).toBe(200);
    expect(
      await eventually(
        () => lastUsed(t.database.db, key.id),
        (v) => v !== null,
      ),
    ).toBe(first);

    // Thirty seconds later by the wall clock: a write now would store the new time.
    t.clock.advance(30_000);
    expect((await call()).status).toBe(200);
    await settle();
    expect(await lastUsed(t.database.db, key.id)).toBe(first);

    // A refused key records nothing.
    const other = await t.createKey();
    // The last character changed, whatever it was (a fixed 'x' is the key itself one time in 62).
    const wrong = `${other.key.slice(0, -1)}${other.key.endsWith('x') ? 'y' : 'x'}`;
    const refused = await fetch(`${t.baseUrl}/usage`, {
      headers: { authorization: `Bearer ${wrong}` },
    });
    expect(refused.status).toBe(401);
    await settle();
    expect(await lastUsed(t.database.db, other.id)).toBeNull();
  });
});

describe.each(DIALECTS)('the key verifier throttles last-use writes per key [%s]', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(() => database.cleanup());

  it('writes again once a minute has passed on its own clock', async () => {
    const clock = fixedClock('2026-11-21T12:00:00.000Z');
    const deps = { clock, newId: createIdGenerator(clock) };
    const ws = await createWorkspace(database.db, deps, { name: 'Throttle' });
    const key = await createApiKey(database.db, deps, { workspaceId: ws.id, environment: 'live' });
    let monotonic = 0;
    const errors: unknown[] = [];
    const verifier = createKeyVerifier(database.db, {
      cacheTtlMs: 0,
      clock,
      now: () => monotonic,
      onTouchError: (error) => errors.push(error),
    });

    expect((await verifier.verify(key.key))?.keyId).toBe(key.id);
    const first = clock.now().toISOString();
    expect(
      await eventually(
        () => lastUsed(database.db, key.id),
        (v) => v !== null,
      ),
    ).toBe(first);

    clock.advance(TOUCH_EVERY_MS - 1);
    monotonic += TOUCH_EVERY_MS - 1;
    await verifier.verify(key.key);
    await settle();
    expect(await lastUsed(database.db, key.id)).toBe(first);

    clock.advance(1);
    monotonic += 1;
    await verifier.verify(key.key);
    const later = clock.now().toISOString();
    expect(
      await eventually(
        () => lastUsed(database.db, key.id),
        (v) => v === later,
      ),
    ).toBe(later);
    expect(errors).toEqual([]);
  });
});
