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
    ['huisnummer with its letter', 'woz', { postcode: '1234AB', huisnummer: '9a' }, /^Ongeldige invoer: huisnummer: .*zet de huisletter of toevoeging in `toevoeging`, bijvoorbeeld huisnummer 9 en toevoeging A\.$/],
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
    expect(r._meta).toEqual({ gefactureerd_cent: 0, saldo_credits: 10 });
    expect(tekst, 'the flat argument names, not the REST body paths').not.toMatch(/adres\./);
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

  it('an unknown tool or arguments that are no object: the balance header, and counted as a protocol message', async () => {
    const { key } = await t.klant(10);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    for (const params of [{ name: 'bestaat_niet', arguments: {} }, { name: 'woz', arguments: ['7800SD', 3] }]) {
      const res = await fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) });
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32602);
      expect(res.headers.get('insight-saldo-credits')).toBe('10');
      expect(res.headers.get('ratelimit-policy')).toMatch(/^"mcp:protocol"/);
    }
  });
});

describe(`MCP: refused arguments count against the tool-call limit (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_MCP_TOOLS_PER_MIN: '2' });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  it('two calls with an unknown argument spend the limit of 2: the third call gets 429 before anything else', async () => {
    const { key } = await t.klant(10);
    const c = await mcpClient(base, key);
    for (let i = 0; i < 2; i++) {
      const r = await c.callTool({ name: 'woz', arguments: { postcode: '7800SD', huisnummer: '3', stad: 'x' } });
      expect(r.structuredContent).toMatchObject({ status: 400 });
    }
    const r = await c.callTool({ name: 'woz', arguments: { postcode: '7800SD', huisnummer: '3' } });
    expect(r.structuredContent).toMatchObject({ status: 429 });
    await c.close();
  });
});

// Session 27: a refused tools/call (no id, a bad Accept or protocol version, arguments null) is a protocol message.
describe(`MCP: every refused tools/call counts against the protocol-message limit (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_MCP_TOOLS_PER_MIN: '3', RATE_LIMIT_MCP_PROTOCOL_PER_MIN: '3' });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  const args = { postcode: '7800SD', huisnummer: '3' };
  const kop = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
  it.each([
    ['arguments null', {}, { id: 1, params: { name: 'woz', arguments: null } }, 200],
    ['no id', {}, { params: { name: 'woz', arguments: args } }, 400],
    ['Accept without text/event-stream', { accept: 'application/json' }, { id: 1, params: { name: 'woz', arguments: args } }, 406],
    ['an unsupported protocol version', { 'mcp-protocol-version': '1999-01-01' }, { id: 1, params: { name: 'woz', arguments: args } }, 400],
  ])('%s: refused three times with the balance, then 429', async (_naam, extra, bericht, status) => {
    const { key } = await t.klant(10);
    const body = JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', ...bericht });
    const statussen: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${base}/mcp`, { method: 'POST', headers: { ...kop, authorization: `Bearer ${key}`, ...extra }, body });
      statussen.push(res.status);
      expect(res.headers.get('ratelimit-policy')).toMatch(/^"mcp:protocol"/);
      expect(res.headers.get('insight-saldo-credits')).toBe('10');
      expect(res.headers.get('insight-gefactureerd-cent')).toBe('0');
      if (status === 200 && res.status === 200) expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32602);
    }
    expect(statussen).toEqual([status, status, status, 429]);
  });
});
