import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { mcpClient } from './support/mcp.ts';
import { METHODEN } from '../src/gateways/mcp/index.ts';
import { maakVolledigAdres } from './support/register.ts';
import { maakVerkopen } from './support/verkopen.ts';

/**
 * Issue 24 item 18: MCP against its specification and our contract — tool descriptions with credits and
 * euros, Dutch answers where the service refuses a request before the SDK would, and input schemas
 * exactly as strict as what the server accepts (the schema as listed to the official SDK client).
 */
describe(`MCP protocol edges and input schemas (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  let adres: Awaited<ReturnType<typeof maakVolledigAdres>>;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_MCP_TOOLS_PER_MIN: '1000', RATE_LIMIT_MCP_PROTOCOL_PER_MIN: '1000' });
    await maakVerkopen(t.db.prisma, { lat: 52.1, lon: 5.1, n: 300, van: '2022-01-01', tot: '2026-10-31' });
    adres = await maakVolledigAdres(t.db.prisma, { lat: 52.1, lon: 5.1, oppervlakte: 110 });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  it('tool descriptions state the price in credits and euros', async () => {
    const c = await mcpClient(base, (await t.klant(10)).key);
    const { tools } = await c.listTools();
    expect(tools.find((x) => x.name === 'property_value')?.description).toContain('Kost 18 credits (€ 0,90)');
    expect(tools.find((x) => x.name === 'woz')?.description).toContain('Kost 1 credit (€ 0,05)');
    await c.close();
  });

  const post = (key: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });

  it('a missing Accept, a malformed JSON-RPC message, an unsupported protocol version and a tool call without id are refused in Dutch, uncharged', async () => {
    const { key, accountId } = await t.klant(10);
    const a = await maakVolledigAdres(t.db.prisma);
    const lijst = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const gevallen: [Response, number, RegExp][] = [
      [await post(key, lijst, { accept: 'application/json' }), 406, /accepteren/],
      // Fastify reads text/plain as text: refused as REST refuses it, not as a malformed message.
      [await post(key, lijst, { 'content-type': 'text/plain' }), 415, /^Stuur de body als application\/json\.$/],
      [await post(key, JSON.stringify({ jsonrpc: '2.0', id: 1, metode: 'tools/list' }), {}), 400, /JSON-RPC/],
      [await post(key, lijst, { 'mcp-protocol-version': '1999-01-01' }), 400, /protocolversie 1999-01-01/],
      [await post(key, JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'woz', arguments: { postcode: a.postcode, huisnummer: a.huisnummer } } })), 400, /zonder id/],
      [await post(key, JSON.stringify({ jsonrpc: '2.0', id: null, method: 'tools/call', params: { name: 'woz', arguments: { postcode: a.postcode, huisnummer: a.huisnummer } } })), 400, /JSON-RPC/],
    ];
    for (const [r, status, fout] of gevallen) {
      expect(r.status).toBe(status);
      const body = (await r.json()) as { fout: string };
      expect(Object.keys(body)).toEqual(['fout']);
      expect(body.fout).toMatch(fout);
      expect(body.fout).not.toMatch(/Not Acceptable|Parse error|Bad Request/);
    }
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(10);
  });

  it('the listed input schemas accept exactly what the server accepts', async () => {
    const { key } = await t.klant(100_000);
    const c = await mcpClient(base, key);
    const { tools } = await c.listTools();
    // The validator the SDK client itself uses for tool schemas.
    const validator = new AjvJsonSchemaValidator();
    const basis = { postcode: adres.postcode, huisnummer: String(adres.huisnummer) };
    const monsters: [string, Record<string, unknown>][] = [
      ['woz', { ...basis, toevoeging: null }],
      ['woz', { ...basis, toevoeging: 'A' }],
      ['woz', { ...basis, toevoeging: 'A-2-B-3-C-4' }],
      ['woz', { ...basis, toevoeging: '#' }],
      ['woz', { ...basis, huisnummer: 0 }],
      ['woz', { ...basis, huisnummer: 100000 }],
      ['woz', { ...basis, huisnummer: '12a' }],
      ['woz', { ...basis, huisnummer: 12.5 }],
      ['woz', { ...basis, postcode: '0123AB' }],
      ['property_value', { ...basis, woonoppervlakte: 19 }],
      ['property_value', { ...basis, woonoppervlakte: 20 }],
      ['property_value', { ...basis, woonoppervlakte: 50.5 }],
      ['property_value', { ...basis, woonoppervlakte: 2001 }],
      ['property_value', { ...basis, peildatum: '2024-01-01' }],
      ['property_value', { ...basis, peildatum: '24-01-01' }],
      ['influences', { ...basis, types: [] }],
      ['influences', { ...basis, types: ['natura2000'] }],
      ['influences', { ...basis, types: ['vliegveld-x'] }],
      ['woz', { ...basis, stad: 'Utrecht' }],
      ['woz', { ...basis, toevoeging: '' }],
      ['woz', { ...basis, postcode: null }],
      ['property_value', { ...basis, peildatum: null, woonoppervlakte: null }],
      ['influences', { ...basis, types: null }],
      ['property_value', { ...basis, adres: { postcode: adres.postcode } }],
    ];
    for (const [name, args] of monsters) {
      const schema = tools.find((x) => x.name === name)!.inputSchema;
      const volgensSchema = validator.getValidator(schema)(args).valid;
      const r = await c.callTool({ name, arguments: args });
      const geweigerd = (r.structuredContent as { status?: number }).status === 400;
      expect(volgensSchema, `${name} ${JSON.stringify(args)}: schema ${volgensSchema}, server ${JSON.stringify(r.structuredContent).slice(0, 200)}`).toBe(!geweigerd);
    }
    await c.close();
  });

  it('null for an optional argument is absent, and a toevoeging without letter or digit is none: the same call, charged once', async () => {
    const { key, accountId } = await t.klant(100);
    const c = await mcpClient(base, key);
    const basis = { postcode: adres.postcode, huisnummer: adres.huisnummer };
    const meta = async (name: string, args: Record<string, unknown>) => {
      const r = await c.callTool({ name, arguments: args });
      expect(r.isError, `${name} ${JSON.stringify(args)}: ${JSON.stringify(r.structuredContent)}`).toBeFalsy();
      return (r.structuredContent as { meta: { cached: boolean } }).meta.cached;
    };
    expect(await meta('woz', basis)).toBe(false);
    for (const toevoeging of ['', ' ', '-', null]) expect(await meta('woz', { ...basis, toevoeging }), JSON.stringify(toevoeging)).toBe(true);
    expect(await meta('property_value', { ...basis, peildatum: null, woonoppervlakte: null })).toBe(false);
    expect(await meta('property_value', basis)).toBe(true);
    expect(await meta('influences', { ...basis, types: null, toevoeging: '' })).toBe(false);
    expect(await meta('influences', basis)).toBe(true);
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(100 - 1 - 18 - 16);
    await c.close();
  });

  it('a method the server does not serve is -32601 with a Dutch message naming the ones it does; those are served', async () => {
    const { key } = await t.klant(10);
    const bericht = async (method: string, params: Record<string, unknown> = {}) =>
      (await (await post(key, JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }), { 'mcp-protocol-version': '2025-06-18' })).json()) as {
        result?: unknown;
        error?: { code: number; message: string };
      };
    for (const method of ['resources/list', 'prompts/list', 'logging/setLevel', 'foo/bar']) {
      expect((await bericht(method, { level: 'info' })).error, method).toEqual({ code: -32601, message: `Onbekende methode '${method}'; deze server kent ${METHODEN.join(', ')}.` });
    }
    const params: Record<string, Record<string, unknown>> = {
      initialize: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      'tools/call': { name: 'bestaat_niet', arguments: {} },
    };
    for (const method of METHODEN) expect((await bericht(method, params[method])).error?.code, method).not.toBe(-32601);
  });

  it('every listed input schema refuses an unknown argument (additionalProperties: false), as the server does', async () => {
    const c = await mcpClient(base, (await t.klant(10)).key);
    const { tools } = await c.listTools();
    const validator = new AjvJsonSchemaValidator();
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      const basis = { postcode: adres.postcode, huisnummer: String(adres.huisnummer) };
      expect(validator.getValidator(tool.inputSchema)(basis).valid, tool.name).toBe(true);
      expect(validator.getValidator(tool.inputSchema)({ ...basis, foo: 1 }).valid, tool.name).toBe(false);
    }
    await c.close();
  });
});
