import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';

/** CORS by the documented decision (README "Decisions taken here"), compression, request ids. */
describe(`HTTP edges (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  const preflight = (url: string, headers: Record<string, string> = { origin: 'https://makelaar.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key' }) =>
    t.app.inject({ method: 'OPTIONS', url, headers });

  it.each(['/api/v1/inzicht/waarde', '/api/v1/whoami', '/mcp'])('OPTIONS %s: 204 for any origin, no credentials', async (url) => {
    const res = await preflight(url);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(String(res.headers['access-control-allow-methods'])).toMatch(/POST/);
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toMatch(/authorization.*content-type.*idempotency-key/);
    expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
  });

  it('a preflight without Origin is answered too; other paths have no CORS and OPTIONS there is 404', async () => {
    expect((await preflight('/api/v1/whoami', {})).statusCode).toBe(204);
    for (const url of ['/docs', '/healthz', '/trpc/x', '/app']) {
      const res = await preflight(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
      expect(Object.keys(res.json())).toEqual(['fout']);
    }
  });

  it('a cross-origin answer exposes the cost, rate-limit and request-id headers to the page', async () => {
    const { key } = await t.klant(10);
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { origin: 'https://makelaar.example', authorization: `Bearer ${key}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const zichtbaar = String(res.headers['access-control-expose-headers']).toLowerCase();
    for (const h of ['x-request-id', 'ratelimit', 'retry-after', 'insight-gefactureerd-cent', 'insight-saldo-credits']) expect(zichtbaar).toContain(h);
  });

  it('a large JSON answer is compressed when the client accepts it', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json', headers: { 'accept-encoding': 'gzip' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
  });
});
