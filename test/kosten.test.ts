import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakAdres, maakVolledigAdres } from './support/register.ts';
import { maakVerkopen } from './support/verkopen.ts';
import { lookup, type Antwoord } from './support/http.ts';

/** What an answer cost and the balance after it, in headers (REST) and `_meta` (MCP): README "Cost headers". */
describe(`cost and balance on every answer (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  let afgelegen: Awaited<ReturnType<typeof maakAdres>>;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '1000' });
    await maakVerkopen(t.db.prisma, { lat: 52.1, lon: 5.1, n: 300, van: '2022-01-01', tot: '2026-10-31' });
    afgelegen = await maakAdres(t.db.prisma, { lat: 53.4, lon: 6.8, oppervlakte: 110 });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  const kosten = (res: Antwoord) => [res.headers['insight-gefactureerd-cent'], res.headers['insight-saldo-credits']];

  it('200: the price and the balance after the debit', async () => {
    const { key } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    const res = await lookup(t, 'adres', key, adresBody(a));
    expect(res.statusCode, res.body).toBe(200);
    expect(kosten(res)).toEqual(['5', '99']);
  });

  it('422 (too few sales): charged 90 cent, the balance after it', async () => {
    const { key } = await t.klant(100);
    const res = await lookup(t, 'waarde', key, adresBody(afgelegen));
    expect(res.statusCode, res.body).toBe(422);
    expect(kosten(res)).toEqual(['90', '82']);
  });

  it('404 and 402: nothing charged, the unchanged balance', async () => {
    const { key } = await t.klant(100);
    const onbekend = await lookup(t, 'adres', key, { adres: { postcode: '9999ZZ', huisnummer: '1' } });
    expect(onbekend.statusCode).toBe(404);
    expect(kosten(onbekend)).toEqual(['0', '100']);
    const arm = await t.klant(10);
    const res = await lookup(t, 'waarde', arm.key, adresBody(afgelegen));
    expect(res.statusCode).toBe(402);
    expect(kosten(res)).toEqual(['0', '10']);
  });

  it('400, an idempotent replay and whoami carry 0 and the balance; 401 and 413 only the 0', async () => {
    const { key } = await t.klant(50);
    const a = await maakVolledigAdres(t.db.prisma);
    expect(kosten(await lookup(t, 'adres', key, { adres: { postcode: 'fout', huisnummer: '1' } }))).toEqual(['0', '50']);
    expect(kosten(await lookup(t, 'adres', key, adresBody(a), { 'idempotency-key': 'k1' }))).toEqual(['5', '49']);
    const replay = await lookup(t, 'adres', key, adresBody(a), { 'idempotency-key': 'k1' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(kosten(replay)).toEqual(['0', '49']);
    const who = await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${key}` } });
    expect(kosten(who as unknown as Antwoord)).toEqual(['0', '49']);
    expect(kosten(await lookup(t, 'adres', undefined, adresBody(a)))).toEqual(['0', undefined]);
    const groot = await lookup(t, 'adres', key, JSON.stringify({ adres: adresBody(a).adres, x: 'y'.repeat(100_000) }));
    expect(groot.statusCode).toBe(413);
    expect(kosten(groot)).toEqual(['0', undefined]);
  });

  it('MCP: results, also error results, carry the same in _meta; the answer has an X-Request-Id', async () => {
    const { key } = await t.klant(10);
    const c = new Client({ name: 'test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    const a = await maakVolledigAdres(t.db.prisma);
    const ok = await c.callTool({ name: 'property_address', arguments: { postcode: a.postcode, huisnummer: String(a.huisnummer) } });
    expect(ok.isError).toBeFalsy();
    expect(ok._meta).toEqual({ gefactureerd_cent: 5, saldo_credits: 9, verzoek_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const onbekend = await c.callTool({ name: 'property_address', arguments: { postcode: '9999ZZ', huisnummer: '1' } });
    expect(onbekend.isError).toBe(true);
    expect(onbekend._meta).toEqual({ gefactureerd_cent: 0, saldo_credits: 9, verzoek_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const te_duur = await c.callTool({ name: 'property_value', arguments: { postcode: afgelegen.postcode, huisnummer: String(afgelegen.huisnummer) } });
    expect(te_duur.isError).toBe(true);
    expect((te_duur.structuredContent as { status: number }).status).toBe(402);
    expect(te_duur._meta).toEqual({ gefactureerd_cent: 0, saldo_credits: 9 });
    await c.close();

    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-request-id': 'mijn-verzoek-1' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('mijn-verzoek-1');
  });
});
