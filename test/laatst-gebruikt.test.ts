import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';

/** Issue 12 item 7: `laatst_gebruikt_op` of a key is kept, at most once a minute per key. */
describe(`laatst_gebruikt_op (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('set on first use, left alone within the minute, moved after it', async () => {
    const { key } = await t.klant(10);
    const whoami = () => t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${key}` } });
    const stand = async () => (await t.db.prisma.apiKey.findFirstOrThrow({ where: { voorvoegsel: key.slice(0, 12) } })).laatstGebruiktOp;
    expect(await stand()).toBeNull();
    const eerst = t.clock.now;
    expect((await whoami()).statusCode).toBe(200);
    expect((await stand())?.getTime()).toBe(eerst.getTime());
    t.clock.advance(30_000);
    await whoami();
    expect((await stand())?.getTime()).toBe(eerst.getTime());
    t.clock.advance(31_000);
    await whoami();
    expect((await stand())?.getTime()).toBe(t.clock.now.getTime());
  });
});
