import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';

/** Issue 12: /metrics answers with METRICS_TOKEN and 401 without; the counters move with the calls. */
describe(`GET /metrics (${dialect})`, () => {
  let t: TestApp;
  const TOKEN = 'metrics-geheim-123';
  beforeAll(async () => {
    t = await createTestApp({ METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => t?.close());

  const scrape = () => t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  const waarde = (tekst: string, regel: RegExp) => Number(regel.exec(tekst)?.[1] ?? 0);

  it('401 {fout} without or with a wrong token', async () => {
    for (const authorization of [undefined, 'Bearer fout', `Bearer ${TOKEN}x`]) {
      const r = await t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
      expect(r.statusCode).toBe(401);
      expect(Object.keys(r.json())).toEqual(['fout']);
    }
  });

  it('counts requests by route and status, latency, credits charged and 402s', async () => {
    const voor = (await scrape()).body;
    const { key } = await t.klant(1);
    const a = await maakVolledigAdres(t.db.prisma);
    const post = () =>
      t.app.inject({ method: 'POST', url: '/api/v1/inzicht/woz', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: adresBody(a) });
    expect((await post()).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/energielabel', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: adresBody(a) })).statusCode).toBe(402);
    const r = await scrape();
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/text\/plain/);
    const na = r.body;
    const ok = /insight_http_requests_total\{route="\/api\/v1\/inzicht\/woz",method="POST",status="200"\} (\d+)/;
    expect(waarde(na, ok) - waarde(voor, ok)).toBe(1);
    expect(waarde(na, /insight_gefactureerd_cent_total (\d+)/) - waarde(voor, /insight_gefactureerd_cent_total (\d+)/)).toBe(5);
    expect(waarde(na, /insight_geweigerd_total\{status="402"\} (\d+)/)).toBe(1);
    expect(na).toMatch(/insight_http_request_duration_seconds_bucket\{le="0.5",route="\/api\/v1\/inzicht\/woz",method="POST"\} \d+/);
  });

  it('without METRICS_TOKEN there is no /metrics', async () => {
    const zonder = await createTestApp();
    try {
      expect((await zonder.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    } finally {
      await zonder.close();
    }
  });
});
