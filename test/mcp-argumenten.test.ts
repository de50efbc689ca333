import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { mcpClient } from './support/mcp.ts';
import { leesSaldo } from '../src/domain/billing/tegoed.ts';

/**
 * Issue 12 item 5: MCP tool arguments are validated like the REST body — Dutch `{fout}` tool errors with
 * status 400, unknown arguments refused, never the MCP library's English "Input validation error".
 */
describe(`MCP arguments validated like REST (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_MCP_TOOLS_PER_MIN: '100' });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  const client = (key: string) => mcpClient(base, key);

  it.each([
    ['postcode as a number', 'woz', { postcode: 1234, huisnummer: '1' }, /postcode/],
    ['huisnummer as an object', 'woz', { postcode: '1234AB', huisnummer: { a: 1 } }, /huisnummer/],
    ['huisnummer a boolean', 'property_address', { postcode: '1234AB', huisnummer: true }, /huisnummer/],
    ['peildatum a number', 'property_value', { postcode: '1234AB', huisnummer: '1', peildatum: 20240101 }, /peildatum/],
    ['types a string', 'influences', { postcode: '1234AB', huisnummer: '1', types: 'natura2000' }, /types/],
    ['an unknown argument', 'woz', { postcode: '1234AB', huisnummer: '1', stad: 'Utrecht' }, /onbekend.*stad/],
    ['a nested adres instead of the flat arguments', 'woz', { adres: { postcode: '1234AB', huisnummer: '1' } }, /onbekend.*adres/],
    ['no arguments at all', 'woz', undefined, /postcode/],
  ])('%s: a Dutch 400 tool error, uncharged', async (_naam, name, args, fout) => {
    const { accountId, key } = await t.klant(10);
    const c = await client(key);
    const r = await c.callTool({ name, arguments: args as Record<string, unknown> | undefined });
    expect(r.isError).toBe(true);
    const tekst = (r.content as { text: string }[])[0].text;
    expect(tekst).not.toMatch(/Input validation error|Invalid arguments|Expected/);
    expect(r.structuredContent).toMatchObject({ status: 400, fout: expect.stringMatching(fout) });
    expect(JSON.parse(tekst)).toEqual(r.structuredContent);
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(10);
    await c.close();
  });

  // Issue 24 item 18: the MCP specification prescribes the JSON-RPC error -32602 (was a 404 tool result).
  it('an unknown tool is the JSON-RPC error -32602, with a Dutch message', async () => {
    const { key } = await t.klant(10);
    const c = await client(key);
    await expect(c.callTool({ name: 'bestaat_niet', arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/Onbekende tool 'bestaat_niet'/) });
    await c.close();
  });
});
