import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';

/** Issue 12 item 7: security headers on every path (errors included), and HEAD wherever GET is served. */
describe(`security headers and HEAD (${dialect})`, () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    ({ key } = await t.klant(10));
  });
  afterAll(async () => t?.close());

  const paden = ['/healthz', '/readyz', '/api/v1/openapi.json', '/api/v1/whoami', '/api/v1/verbruik', '/docs', '/app', '/bestaat-niet', '/api/v1/bestaat-niet'];

  it.each(paden)('GET %s carries nosniff, a referrer policy, no framing and a CSP', async (url) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
    expect(res.headers['x-content-type-options'], url).toBe('nosniff');
    expect(res.headers['referrer-policy'], url).toBe('no-referrer');
    expect(res.headers['x-frame-options'], url).toBe('DENY');
    expect(String(res.headers['content-security-policy']), url).toMatch(/frame-ancestors 'none'/);
  });

  it('a JSON answer forbids every resource; /docs allows only its own origin', async () => {
    const json = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(json.headers['content-security-policy']).toMatch(/default-src 'none'/);
    const docs = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(docs.headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(docs.headers['content-security-policy']).not.toMatch(/https?:/);
  });

  it.each(['/healthz', '/api/v1/openapi.json', '/api/v1/whoami', '/api/v1/verbruik', '/docs'])('HEAD %s answers like GET without a body', async (url) => {
    const get = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
    const head = await t.app.inject({ method: 'HEAD', url, headers: { authorization: `Bearer ${key}` } });
    expect(head.statusCode, url).toBe(get.statusCode);
    expect(head.body, url).toBe('');
    expect(head.headers['content-type'], url).toBe(get.headers['content-type']);
  });

  it('HEAD on a POST-only path is a 405 that names GET nowhere', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/api/v1/inzicht/woz', headers: { authorization: `Bearer ${key}` } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });
});
