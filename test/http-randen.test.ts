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

  it.each(['PATCH', 'DELETE'])('OPTIONS for %s of a webhook: allowed, so a browser client can change and delete webhooks', async (methode) => {
    const res = await preflight('/api/v1/webhooks/00000000-0000-4000-8000-000000000000', { origin: 'https://makelaar.example', 'access-control-request-method': methode, 'access-control-request-headers': 'authorization' });
    expect(res.statusCode).toBe(204);
    expect(String(res.headers['access-control-allow-methods']).split(/,\s*/)).toContain(methode);
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

  // Session 27: both were the bare status's text ("Ongeldige invoer.", "Stuur de body als application/json.").
  it.each([
    ['/api/v1/inzicht/woz', 'gzip', 400, 'De body is niet geldig gecomprimeerd (Content-Encoding: gzip).'],
    ['/api/v1/inzicht/woz', 'br', 400, 'De body is niet geldig gecomprimeerd (Content-Encoding: br).'],
    ['/mcp', 'deflate', 400, 'De body is niet geldig gecomprimeerd (Content-Encoding: deflate).'],
    ['/api/v1/inzicht/woz', 'x-foo', 415, 'Content-Encoding x-foo wordt niet ondersteund; gebruik gzip, deflate of br.'],
    ['/mcp', 'x-foo', 415, 'Content-Encoding x-foo wordt niet ondersteund; gebruik gzip, deflate of br.'],
  ])('POST %s with Content-Encoding %s on a plain JSON body: %i saying so', async (url, encoding, status, fout) => {
    const { key } = await t.klant(10);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-encoding': encoding, accept: 'application/json, text/event-stream' };
    const res = await t.app.inject({ method: 'POST', url, headers, payload: '{"adres":{"postcode":"7800SD","huisnummer":3}}' });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ fout });
    expect(res.headers['insight-gefactureerd-cent']).toBe('0');
  });

  it('a large JSON answer is compressed when the client accepts it', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json', headers: { 'accept-encoding': 'gzip' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
  });
});

describe(`answers about an account are never cached (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('every /api/v1 and /mcp answer carries Cache-Control: no-store, refusals included; the public OpenAPI document may be cached', async () => {
    const { key } = await t.klant(10);
    const auth = { authorization: `Bearer ${key}` };
    const antwoorden = {
      whoami: await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: auth }),
      lookup: await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/adres', headers: { ...auth, 'content-type': 'application/json' }, payload: { adres: { postcode: '9999ZZ', huisnummer: '1' } } }),
      zonderSleutel: await t.app.inject({ method: 'GET', url: '/api/v1/verbruik' }),
      onbekendPad: await t.app.inject({ method: 'GET', url: '/api/v1/bestaat-niet', headers: auth }),
      mcp: await t.app.inject({ method: 'POST', url: '/mcp', headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } }),
    };
    for (const [naam, res] of Object.entries(antwoorden)) expect(res.headers['cache-control'], `${naam} (${res.statusCode})`).toBe('no-store');
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).headers['cache-control']).toBeUndefined();
  });

  it('the OpenAPI document says what the server accepts as Idempotency-Key: not empty, 1 to 255 visible ASCII characters', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const param = doc.paths['/inzicht/adres'].post.parameters.find((p: { name: string }) => p.name === 'Idempotency-Key');
    const patroon = new RegExp(param.schema.pattern);
    expect(patroon.test('')).toBe(false);
    expect(patroon.test('a'.repeat(255))).toBe(true);
    expect(patroon.test('a'.repeat(256))).toBe(false);
    expect(patroon.test('met spatie')).toBe(false);
    const { key } = await t.klant(10);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/adres', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': '' }, payload: { adres: { postcode: '9999ZZ', huisnummer: '1' } } });
    expect(res.statusCode).toBe(400);
    expect(res.json().fout).toMatch(/Idempotency-Key/);
  });
});
