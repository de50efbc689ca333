import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { mcpClient } from './support/mcp.ts';
import { maakAdres, maakVolledigAdres } from './support/register.ts';
import { maakVerkopen } from './support/verkopen.ts';
import { kostTekst, prijsTekst, type Voorziening } from '../src/core/prijzen.ts';

/**
 * What an MCP client learns before it calls anything: every tool's outputSchema (checked by the
 * official SDK client itself on every call after tools/list), the server's instructions, and the
 * capabilities of a stateless server.
 */
describe(`MCP outputSchema, instructions, capabilities (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  let volledig: Awaited<ReturnType<typeof maakVolledigAdres>>;
  let afgelegen: Awaited<ReturnType<typeof maakAdres>>;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_MCP_TOOLS_PER_MIN: '1000' });
    await maakVerkopen(t.db.prisma, { lat: 52.1, lon: 5.1, n: 300, van: '2022-01-01', tot: '2026-10-31' });
    volledig = await maakVolledigAdres(t.db.prisma, { lat: 52.1, lon: 5.1, oppervlakte: 110 });
    afgelegen = await maakAdres(t.db.prisma, { lat: 53.4, lon: 6.8, oppervlakte: 110 });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  const client = (key: string) => mcpClient(base, key);

  /** The tool -> what it charges for, as the contract's table has it. */
  const VOORZIENING: Record<string, Voorziening> = { property_value: 'waarde', property_address: 'adres', woz: 'woz', influences: 'invloeden' };

  it('every tool declares an object outputSchema, and every success result validates against it in the SDK client', async () => {
    const { key } = await t.klant(1000);
    const c = await client(key);
    // listTools makes the SDK client cache a validator per outputSchema; callTool then checks each result.
    const { tools } = await c.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(Object.keys(VOORZIENING).sort());
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      const r = await c.callTool({ name: tool.name, arguments: { postcode: volledig.postcode, huisnummer: volledig.huisnummer } });
      expect(r.isError, `${tool.name}: ${JSON.stringify(r.structuredContent)}`).toBeFalsy();
      const body = r.structuredContent as { data: { adres: { postcode: string } }; meta: { voorziening: string; gefactureerd_cent: number } };
      expect(body.data.adres.postcode).toBe(volledig.postcode);
      expect(body.meta.voorziening).toBe(VOORZIENING[tool.name]);
      expect(r._meta).toMatchObject({ gefactureerd_cent: body.meta.gefactureerd_cent, saldo_credits: expect.any(Number) });
    }
    await c.close();
  });

  it('error results ({fout, status}, isError) pass the same validation: 400, 404, 422 and 402', async () => {
    const { key } = await t.klant(18);
    const c = await client(key);
    await c.listTools();
    const fouten = [
      await c.callTool({ name: 'woz', arguments: { postcode: '0123AB', huisnummer: '1' } }),
      await c.callTool({ name: 'property_address', arguments: { postcode: '9999ZZ', huisnummer: '1' } }),
      // Charged (18 credits): too few comparable sales near this address. Then the balance is 0.
      await c.callTool({ name: 'property_value', arguments: { postcode: afgelegen.postcode, huisnummer: afgelegen.huisnummer } }),
      await c.callTool({ name: 'influences', arguments: { postcode: volledig.postcode, huisnummer: volledig.huisnummer } }),
    ];
    expect(fouten.map((r) => r.isError)).toEqual([true, true, true, true]);
    expect(fouten.map((r) => (r.structuredContent as { status: number }).status)).toEqual([400, 404, 422, 402]);
    for (const r of fouten) expect(Object.keys(r.structuredContent ?? {}).sort()).toEqual(['fout', 'status']);
    expect(fouten[2]._meta).toEqual({ gefactureerd_cent: 90, saldo_credits: 0, verzoek_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    await c.close();
  });

  it('a result that does not match a declared outputSchema makes the SDK client refuse it (the check bites)', async () => {
    const { key } = await t.klant(100);
    const c = await client(key);
    const { tools } = await c.listTools();
    // The schema as a client would read it if it had drifted from the answer: the address's number as text.
    const verbogen = structuredClone(tools) as Tool[];
    const woz = verbogen.find((x) => x.name === 'woz')!.outputSchema as unknown as { definitions: { Adres: { properties: { huisnummer: { type: string } } } } };
    woz.definitions.Adres.properties.huisnummer.type = 'string';
    (c as unknown as { cacheToolMetadata(tools: Tool[]): void }).cacheToolMetadata(verbogen);
    await expect(c.callTool({ name: 'woz', arguments: { postcode: volledig.postcode, huisnummer: volledig.huisnummer } })).rejects.toThrow(
      /does not match the tool's output schema/,
    );
    // An error result outside {fout, status} would be refused too: the error branch is as strict.
    // (A fresh copy: Ajv keeps a compiled validator per schema object.)
    const verbogen2 = structuredClone(tools) as Tool[];
    const adres = verbogen2.find((x) => x.name === 'property_address')!.outputSchema as unknown as { anyOf: { properties?: { status?: { type: string } } }[] };
    adres.anyOf[1].properties!.status!.type = 'string';
    (c as unknown as { cacheToolMetadata(tools: Tool[]): void }).cacheToolMetadata(verbogen2);
    await expect(c.callTool({ name: 'property_address', arguments: { postcode: '9999ZZ', huisnummer: '1' } })).rejects.toThrow(
      /does not match the tool's output schema/,
    );
    await c.close();
  });

  it('initialize: instructions in Dutch name every tool with its price; no tools.listChanged from a stateless server', async () => {
    const { key } = await t.klant(10);
    const c = await client(key);
    expect(c.getServerCapabilities()?.tools).toEqual({});
    const instructies = c.getInstructions() ?? '';
    expect(instructies).toMatch(/Nederlands adres/);
    for (const [tool, voorziening] of Object.entries(VOORZIENING)) {
      const regel = instructies.split('\n').find((r) => r.startsWith(`- ${tool} `));
      expect(regel, tool).toContain(kostTekst(voorziening));
    }
    expect(instructies).toContain(`1 credit = ${prijsTekst(1)}`);
    expect(instructies).toContain('18 credits (€ 0,90)');
    await c.close();
  });
});
