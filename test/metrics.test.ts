import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { startOntvanger } from './support/ontvanger.ts';
import { startBezorger, type Bezorger } from '../src/domain/webhooks/bezorger.ts';

/**
 * Issue 12: /metrics answers with METRICS_TOKEN and 401 without; the counters move with the calls:
 * requests, latency, credits, 402s, the database pool (PostgreSQL), the webhook queue and deliveries,
 * and the valuation model's build time and age.
 */
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

  it('a route with a path parameter is one label, its template, whatever the id', async () => {
    const { key } = await t.klant(10);
    for (const id of ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002']) {
      expect((await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${id}`, headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(404);
    }
    const na = (await scrape()).body;
    expect(waarde(na, /insight_http_requests_total\{route="\/api\/v1\/webhooks\/\{id\}",method="GET",status="404"\} (\d+)/)).toBe(2);
    expect(na).not.toMatch(/route="\/api\/v1\/webhooks\/0000/);
  });

  it('database pool, webhook queue and deliveries, and the valuation model move with the calls', async () => {
    const ontvanger = await startOntvanger();
    let bezorger: Bezorger | undefined;
    try {
      const voor = (await scrape()).body;
      const { key } = await t.klant(1000);
      const a = await maakVolledigAdres(t.db.prisma);
      const reg = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: { authorization: `Bearer ${key}` }, payload: { url: `${ontvanger.base}/metrics/ok`, events: ['inzicht.voltooid'] } });
      expect(reg.statusCode, reg.body).toBe(200);
      const post = (pad: string) =>
        t.app.inject({ method: 'POST', url: `/api/v1/inzicht/${pad}`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: adresBody(a) });
      for (let i = 0; i < 3; i++) expect((await post('woz')).statusCode).toBe(200);
      // waarde builds the model on its first use (422 here: no sales nearby; charged, so also an event).
      expect([200, 422]).toContain((await post('waarde')).statusCode);

      const tijdens = (await scrape()).body;
      // No delivery worker yet: the four events wait in the queue.
      expect(waarde(tijdens, /insight_webhook_wachtrij\{toestand="wachtend"\} (\d+)/)).toBe(4);
      // Before the first waarde call no model was built (the gauges stand at 0); after it they tell the build.
      const bouwduur = /insight_waardemodel_bouwduur_seconden ([\d.e-]+)/;
      expect(waarde(voor, bouwduur)).toBe(0);
      expect(waarde(tijdens, bouwduur)).toBeGreaterThan(0);
      expect(tijdens).toMatch(/insight_waardemodel_verkopen \d+/);
      const leeftijd = /insight_waardemodel_leeftijd_seconden ([\d.e-]+)/;
      expect(waarde(tijdens, leeftijd)).toBeGreaterThanOrEqual(0);
      const wachtAantal = /insight_db_pool_wachttijd_seconden_count (\d+)/;
      if (dialect === 'postgres') {
        expect(waarde(tijdens, wachtAantal) - waarde(voor, wachtAantal)).toBeGreaterThanOrEqual(4);
        expect(tijdens).toMatch(/insight_db_pool_wachttijd_seconden_bucket\{le="0.005"\} \d+/);
        expect(tijdens).toMatch(/insight_db_pool_verbindingen\{toestand="vrij"\} \d+/);
      } else {
        // PGlite has no pool: the histogram stays empty.
        expect(waarde(tijdens, wachtAantal)).toBe(0);
      }

      bezorger = await startBezorger(t.services, t.db, { pollMs: 25, verloopControleMs: 0 });
      await ontvanger.wacht('/metrics/ok', 4);
      await bezorger.leeg();
      const na = (await scrape()).body;
      expect(waarde(na, /insight_webhook_afleveringen_total\{uitkomst="afgeleverd"\} (\d+)/)).toBe(4);
      expect(waarde(na, /insight_webhook_wachtrij\{toestand="wachtend"\} (\d+)/)).toBe(0);
      // The same model, older now.
      expect(waarde(na, leeftijd)).toBeGreaterThan(waarde(tijdens, leeftijd));
    } finally {
      await bezorger?.sluit(100);
      await ontvanger.sluit();
    }
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
