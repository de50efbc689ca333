import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { maakVolledigAdres } from './support/register.ts';
import { maakVerkopen } from './support/verkopen.ts';
import { maakModelHouder } from '../src/domain/valuation/houder.ts';

/**
 * SQL statements per request, counted from Prisma's query events (every statement Prisma sends,
 * COMMIT included). REST `waarde` and MCP `property_value` run the same procedure on the same
 * address, so they must cost the same number of statements. REST sends an Idempotency-Key because
 * an MCP tool call is always idempotent (argument fingerprint): both then claim and settle the same way.
 */
describe(`SQL statements per request (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  const statements: string[] = [];
  let adres: Awaited<ReturnType<typeof maakVolledigAdres>>;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '1000', RATE_LIMIT_MCP_TOOLS_PER_MIN: '1000' }, { onQuery: (sql) => statements.push(sql) });
    await maakVerkopen(t.db.prisma, { lat: 52.1, lon: 5.1, n: 400, van: '2020-01-01', tot: '2026-10-31' });
    adres = await maakVolledigAdres(t.db.prisma, { lat: 52.1, lon: 5.1, oppervlakte: 110 });
    // The production holder (checks for changed sales at most every 30 s), not the test apps' eager one.
    t.services.waardemodel = maakModelHouder(t.db.prisma, t.services.log);
    await t.services.waardemodel.model();
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  async function tel(fn: () => Promise<void>): Promise<string[]> {
    statements.length = 0;
    await fn();
    return [...statements];
  }

  it('REST waarde and MCP property_value issue the same number of statements', async () => {
    const { key } = await t.klant(1000);
    // The MCP client's initialize message authenticates the key before the tool call is counted, so
    // warm the key cache for REST the same way: both counts are then of a key this process knows.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(200);
    const rest = await tel(async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/inzicht/waarde',
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'telling-1' },
        payload: { adres: { postcode: adres.postcode, huisnummer: '12' } },
      });
      expect(res.statusCode, res.body).toBe(200);
    });
    const c = new Client({ name: 'test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    const mcp = await tel(async () => {
      const r = await c.callTool({ name: 'property_value', arguments: { postcode: adres.postcode, huisnummer: 12 } });
      expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    });
    await c.close();
    console.log(`statements: REST waarde ${rest.length}, MCP property_value ${mcp.length}`);
    // Before issue 9: REST 18, MCP 24 (a second key lookup and rate-limit transaction per tool call,
    // label, house type and the address's own sales read one by one); after issue 9: 15; after issue 11
    // (rate limit, idempotency claim and charge one statement each, key cache): 4.
    expect(rest.length).toBeLessThanOrEqual(4);
    expect(mcp.length, `REST:\n${rest.join('\n')}\n\nMCP:\n${mcp.join('\n')}`).toBe(rest.length);
  });
  it('an Idempotency-Key costs no statement of its own: the claim goes with the rate limit, the stored answer with the charge', async () => {
    const { key } = await t.klant(1000);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(200);
    const vraag = (headers: Record<string, string>) =>
      tel(async () => {
        const res = await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/waarde', headers: { authorization: `Bearer ${key}`, ...headers }, payload: { adres: { postcode: adres.postcode, huisnummer: '12' } } });
        expect(res.statusCode, res.body).toBe(200);
      });
    const zonder = await vraag({});
    const met = await vraag({ 'idempotency-key': 'telling-2' });
    expect(met.some((q) => /snelheid_claim_bundel/.test(q)), met.join('\n')).toBe(true);
    expect(met.length, `zonder:\n${zonder.join('\n')}\n\nmet:\n${met.join('\n')}`).toBe(zonder.length);
  });
});
