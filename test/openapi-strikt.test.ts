import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { leesSaldo } from '../src/domain/billing/tegoed.ts';
import { MCP_TOOLS } from '../src/gateways/mcp/tools.ts';
import { z } from 'zod';

/**
 * Issue 12 item 6: the OpenAPI document says exactly what the server accepts. For sample values of each
 * constrained field, "the published pattern admits it" equals "the server does not refuse it with 400".
 */
describe(`OpenAPI as strict as the server (${dialect})`, () => {
  let t: TestApp;
  let doc: { paths: Record<string, { post: { requestBody: { content: Record<string, { schema: unknown }> } } }>; components: { schemas: Record<string, { properties: Record<string, { pattern?: string }> }> } };
  beforeAll(async () => {
    t = await createTestApp();
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  });
  afterAll(async () => t?.close());

  function veldSchema(pad: string, veld: string): { pattern?: string; maxLength?: number } {
    const schema = doc.paths[pad].post.requestBody.content['application/json'].schema as { properties: Record<string, { $ref?: string; pattern?: string }> };
    if (veld === 'postcode') return doc.components.schemas.AdresInvoer.properties.postcode;
    return schema.properties[veld];
  }

  const post = (key: string, pad: string, body: unknown) =>
    t.app.inject({ method: 'POST', url: `/api/v1${pad}`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: body as object });

  it('postcode: the published pattern and the server agree on every sample', async () => {
    const s = veldSchema('/inzicht/woz', 'postcode');
    expect(s.pattern).toBeDefined();
    const patroon = new RegExp(s.pattern as string);
    const { key } = await t.klant(1000);
    const monsters = ['1234AB', '1234 ab', '1234ab', '0123AB', '1234A', '12345AB', '1234 A B', '1 234AB', ' 1234AB', '1234AB ', '1234  AB', '1234-AB', 'ABCD12', '9999ZZ', '1234ÄB', '1234\tAB', ''];
    for (const p of monsters) {
      const r = await post(key, '/inzicht/woz', { adres: { postcode: p, huisnummer: '1' } });
      expect(r.statusCode === 400, `${JSON.stringify(p)}: ${r.body}`).toBe(!patroon.test(p) || (s.maxLength !== undefined && p.length > s.maxLength));
    }
  });

  it('peildatum: only real months and days from 1900-01-01 on; 0000-01-01 is a free 400, not a charged 422', async () => {
    const s = veldSchema('/inzicht/waarde', 'peildatum');
    expect(s.pattern).toBeDefined();
    const patroon = new RegExp(s.pattern as string);
    const { accountId, key } = await t.klant(1000);
    const monsters = ['2024-01-31', '1900-01-01', '1899-12-31', '0000-01-01', '4866-25-08', '2024-13-01', '2024-00-10', '2024-01-00', '2024-01-32', '2024-1-01', '20240101', '2024-12-31'];
    for (const d of monsters) {
      const r = await post(key, '/inzicht/waarde', { adres: { postcode: '9999ZZ', huisnummer: '1' }, peildatum: d });
      expect(r.statusCode === 400, `${d}: ${r.body}`).toBe(!patroon.test(d));
    }
    const nul = await post(key, '/inzicht/waarde', { adres: { postcode: '9999ZZ', huisnummer: '1' }, peildatum: '0000-01-01' });
    expect(nul.statusCode).toBe(400);
    expect(nul.json().fout).toMatch(/peildatum/);
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(1000);
  });

  it('the MCP tools publish the same postcode and huisnummer constraints as REST', () => {
    for (const tool of MCP_TOOLS) {
      const json = z.toJSONSchema(z.object(tool.inputShape), { io: 'input' }) as { properties: Record<string, Record<string, unknown>> };
      expect(json.properties.postcode.pattern, tool.name).toBe(veldSchema('/inzicht/woz', 'postcode').pattern);
      const hn = JSON.stringify(json.properties.huisnummer);
      expect(hn, tool.name).toMatch(/pattern/);
      expect(hn, tool.name).toMatch(/"maximum":99999/);
      // MCP publishes null too for an optional argument: the string branch carries the pattern.
      if (json.properties.peildatum) expect(json.properties.peildatum.anyOf).toContainEqual({ type: 'string', pattern: veldSchema('/inzicht/waarde', 'peildatum').pattern });
    }
  });
});
