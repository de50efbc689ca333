import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { mcpClient } from './support/mcp.ts';
import { maakVolledigAdres } from './support/register.ts';

/** The MCP gateway through the official SDK client over real HTTP on loopback. */
describe(`MCP /mcp (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_MCP_TOOLS_PER_MIN: '5' });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  const client = (key: string) => mcpClient(base, key);

  it('lists the four tools of the contract with flat arguments', async () => {
    const { key } = await t.klant(10);
    const c = await client(key);
    const { tools } = await c.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(['influences', 'property_address', 'property_value', 'woz']);
    const adres = tools.find((x) => x.name === 'property_address')!;
    expect(Object.keys(adres.inputSchema.properties ?? {})).toEqual(['postcode', 'huisnummer', 'toevoeging']);
    // A call charges credits, writes usage and sends webhooks: not read-only; a repeat within 24 h is free.
    for (const tool of tools) expect(tool.annotations, tool.name).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    await c.close();
  });

  it('answers a tool call with the REST data, charges the same balance, and counts an identical call once', async () => {
    const { accountId, key } = await t.klant(10);
    const a = await maakVolledigAdres(t.db.prisma);
    const c = await client(key);
    const r1 = await c.callTool({ name: 'woz', arguments: { postcode: a.postcode, huisnummer: 12 } });
    expect(r1.isError).toBeFalsy();
    const body = r1.structuredContent as { data: { waarden: unknown[]; adres: { huisnummer: number } }; meta: { gefactureerd_cent: number; cached: boolean } };
    expect(body.data.waarden).toHaveLength(2);
    expect(body.meta).toMatchObject({ gefactureerd_cent: 5, cached: false });
    const r2 = await c.callTool({ name: 'woz', arguments: { postcode: a.postcode.toLowerCase(), huisnummer: '12' } });
    expect((r2.structuredContent as { meta: { cached: boolean; gefactureerd_cent: number } }).meta).toMatchObject({ cached: true, gefactureerd_cent: 0 });
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(9);
    const usage = await t.db.prisma.usageRecord.findMany({ where: { accountId } });
    expect(usage).toHaveLength(1);
    expect(usage[0].kanaal).toBe('mcp');
    await c.close();
  });

  it('an identical call is replayed uncharged even when the balance no longer covers the price; a new call gets 402', async () => {
    const { accountId, key } = await t.klant(1);
    const a = await maakVolledigAdres(t.db.prisma);
    const c = await client(key);
    const eerste = await c.callTool({ name: 'woz', arguments: { postcode: a.postcode, huisnummer: 12 } });
    expect((eerste.structuredContent as { meta: { gefactureerd_cent: number } }).meta.gefactureerd_cent).toBe(5);
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(0);
    const herhaling = await c.callTool({ name: 'woz', arguments: { postcode: a.postcode, huisnummer: 12 } });
    expect(herhaling.isError).toBeFalsy();
    expect(herhaling.structuredContent).toMatchObject({ data: (eerste.structuredContent as { data: unknown }).data, meta: { cached: true, gefactureerd_cent: 0 } });
    const nieuw = await c.callTool({ name: 'woz', arguments: { postcode: a.postcode, huisnummer: 14 } });
    expect(nieuw.structuredContent).toMatchObject({ status: 402, fout: expect.stringMatching(/Onvoldoende tegoed/) });
    expect(await t.db.prisma.usageRecord.count({ where: { accountId } })).toBe(1);
    await c.close();
  });

  it('expected failures are isError results with a Dutch fout: bad input, unknown address, 402', async () => {
    const { key } = await t.klant(5);
    const c = await client(key);
    const bad = await c.callTool({ name: 'property_address', arguments: { postcode: '0123AB', huisnummer: '1' } });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ status: 400, fout: expect.stringMatching(/postcode/) });
    const onbekend = await c.callTool({ name: 'property_address', arguments: { postcode: '9999ZZ', huisnummer: '1' } });
    expect(onbekend.structuredContent).toMatchObject({ status: 404 });
    await c.close();
    // 402 comes before the address lookup (decisions section 3, step 6).
    const arm = await (await client((await t.klant(0)).key)).callTool({ name: 'property_address', arguments: { postcode: '9999ZZ', huisnummer: '1' } });
    expect(arm.structuredContent).toMatchObject({ status: 402, fout: expect.stringMatching(/Onvoldoende tegoed/) });
  });

  it('tool calls have their own rate limit per key', async () => {
    const { key } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    const c = await client(key);
    const statussen: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await c.callTool({ name: 'property_address', arguments: { postcode: a.postcode, huisnummer: '12', toevoeging: i ? String(i) : null } });
      statussen.push((r.structuredContent as { status?: number }).status ?? 200);
      // The wait REST sends as Retry-After, machine-readable in _meta.
      if ((r.structuredContent as { status?: number }).status === 429) expect(r._meta).toMatchObject({ opnieuw_na_seconden: expect.any(Number) });
      else expect(r._meta).not.toHaveProperty('opnieuw_na_seconden');
    }
    expect(statussen.filter((s) => s === 429)).toHaveLength(1);
    await c.close();
  });

  it('refuses a missing key (401), a management key (403), and GET/DELETE (405) over HTTP', async () => {
    const anon = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(anon.status).toBe(401);
    expect(await anon.json()).toEqual({ fout: 'Ongeldige of ontbrekende sleutel.' });
    const acc = await t.account(5);
    const beheer = await t.key(acc.id, { familie: 'beheer' });
    const r = await fetch(`${base}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${beheer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(r.status).toBe(403);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${base}/mcp`, { method });
      expect(res.status).toBe(405);
      expect(Object.keys((await res.json()) as object)).toEqual(['fout']);
    }
  });
});
