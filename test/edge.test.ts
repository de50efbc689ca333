import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';

/** Bad input at the HTTP edge: always {"fout": "..."} in Dutch with the right status, never a stack trace. */
describe(`HTTP edge (${dialect})`, () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ BODY_LIMIT: '2048' });
    key = (await t.klant()).key;
  });
  afterAll(async () => t?.close());

  function expectFout(res: { statusCode: number; body: string; headers: Record<string, unknown> }, status: number) {
    expect(res.statusCode).toBe(status);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    const body = JSON.parse(res.body);
    expect(Object.keys(body)).toEqual(['fout']);
    expect(typeof body.fout).toBe('string');
    expect(body.fout.length).toBeGreaterThan(5);
    expect(res.body).not.toMatch(/at .*\.(ts|js):\d+|"code"|"issues"|"stack"|TRPC/);
    return body.fout as string;
  }

  it('unknown path -> 404', async () => {
    expectFout(await t.app.inject({ method: 'GET', url: '/api/v1/bestaat-niet' }), 404);
    expectFout(await t.app.inject({ method: 'GET', url: '/nergens' }), 404);
  });

  it('wrong method on a known path -> 405 with Allow', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/api/v1/whoami', headers: { authorization: `Bearer ${key}` } });
    expect(expectFout(res, 405)).toContain('GET');
    expect(res.headers.allow).toBe('GET');
  });

  it('a non-JSON body -> 400 after auth (401 first without a key)', async () => {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    const saldo = await t.db.prisma.account.findFirstOrThrow({ where: { keys: { some: {} } }, select: { credits: true } });
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/adres', headers, payload: '{"adres": ' });
    expect(expectFout(res, 400)).toMatch(/JSON/);
    const anon = await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/adres', headers: { 'content-type': 'application/json' }, payload: '{nope' });
    expectFout(anon, 401);
    // Nothing charged for bad input.
    expect((await t.db.prisma.account.findFirstOrThrow({ where: { keys: { some: {} } }, select: { credits: true } })).credits).toBe(saldo.credits);
  });

  it('a body over the size limit -> 413', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/inzicht/adres',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      payload: JSON.stringify({ x: 'a'.repeat(5000) }),
    });
    expect(expectFout(res, 413)).toMatch(/te groot/);
  });

  it('an unsupported content type -> 415', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/adres', headers: { 'content-type': 'text/xml', authorization: `Bearer ${key}` }, payload: '<a/>' });
    expectFout(res, 415);
  });

  it('a media type in capitals is still JSON (RFC 9110: case-insensitive), not a 415', async () => {
    for (const type of ['Application/JSON', 'APPLICATION/JSON; charset=UTF-8']) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/adres', headers: { 'content-type': type, authorization: `Bearer ${key}` }, payload: '{"x":1}' });
      // Read as JSON: the body is judged (an unknown field), not its media type.
      expect(expectFout(res, 400), type).toMatch(/onbekend veld 'x'/);
    }
  });

  it('an insight key on the management API -> 403', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/projecten', headers: { authorization: `Bearer ${key}` } });
    expectFout(res, 403);
  });

  it('health and readiness', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ok', database: 'ok' });
  });
});
