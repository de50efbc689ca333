import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leesSaldo, grootboekSom } from '../../src/domain/billing/tegoed.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { dialect } from '../support/db.ts';

/**
 * Issue 12: a property-based fuzzer (fast-check) over every REST path of the OpenAPI document and every
 * MCP tool. Per path FUZZ_PER_PAD generated hostile requests (default 1,000): wrong types, huge and
 * deeply nested values, unicode and NUL bytes, `__proto__`/`constructor` keys, SQL fragments, long
 * Idempotency-Keys, invalid JSON, wrong content types, impossible dates. Asserted for each: never a 5xx,
 * the body is `{"fout"}` or a valid answer, nothing charged except a 200 (or the contract's charged
 * 422); at the end balance = start − charged and ledger = balance.
 */
const PER_PAD = Number(process.env.FUZZ_PER_PAD ?? 1000);

const vijandigeTekst = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '1234AB\u0000', "1' OR '1'='1", '1; DROP TABLE account;--', '0000-01-01', '4866-25-08', '2024-02-30', '9999-12-31', '-1', '1e309', 'NaN', '__proto__', '🏠', 'A'.repeat(5000), '1234 AB', '0123AB', '99999', '100000'),
);
const vijandigeWaarde: fc.Arbitrary<unknown> = fc.oneof(
  vijandigeTekst,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'prototype', 'a'), fc.string(), { maxKeys: 2 }),
  fc.integer({ min: 40, max: 3000 }).map((n) => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`)),
);
const adres = fc.record(
  { postcode: vijandigeWaarde, huisnummer: vijandigeWaarde, toevoeging: vijandigeWaarde, __proto__: vijandigeWaarde, extra: vijandigeWaarde },
  { requiredKeys: [] },
);
const body: fc.Arbitrary<string> = fc.oneof(
  fc.record({ adres: fc.oneof(adres, vijandigeWaarde), peildatum: vijandigeWaarde, woonoppervlakte: vijandigeWaarde, types: vijandigeWaarde, constructor: vijandigeWaarde }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
  fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
  vijandigeTekst,
  fc.constantFrom('{"adres":', '{"__proto__":{"isAdmin":true}}', '[[[[[[', '{"a":1,"a":2}', `{"adres":${'{"a":'.repeat(200)}1${'}'.repeat(200)}}`, 'null', '"x"'),
);
const headers = fc.record(
  {
    'content-type': fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'multipart/form-data; boundary=x'),
    'idempotency-key': fc.oneof(fc.string({ maxLength: 20 }), fc.constant('k'.repeat(300)), fc.constant('sleutel met spaties')),
    'x-request-id': fc.oneof(fc.string(), fc.constant('r'.repeat(100))),
  },
  { requiredKeys: ['content-type'] },
);

describe(`fuzzer over every REST path and MCP tool (${dialect})`, () => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  let start: number;
  let gefactureerd = 0;
  const telling: Record<string, number> = {};
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '1000000', RATE_LIMIT_INVLOEDEN_PER_MIN: '1000000', RATE_LIMIT_MCP_TOOLS_PER_MIN: '1000000', RATE_LIMIT_MCP_PROTOCOL_PER_MIN: '1000000' });
    ({ key, accountId } = await t.klant(1_000_000));
    start = await leesSaldo(t.db.prisma, accountId);
  });
  afterAll(async () => {
    console.log(`fuzzer (${dialect}): ${Object.entries(telling).map(([p, n]) => `${p} ${n}`).join(', ')}`);
    await t?.close();
  });

  function controleer(pad: string, res: { statusCode: number; body: string; headers: Record<string, unknown> }, charged422 = false) {
    expect(res.statusCode, `${pad}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
    const json = JSON.parse(res.body);
    if (res.statusCode >= 400) expect(Object.keys(json), pad).toEqual(['fout']);
    const cent = Number(res.headers['insight-gefactureerd-cent'] ?? 0);
    if (res.statusCode !== 200 && !(charged422 && res.statusCode === 422)) expect(cent, `${pad} ${res.statusCode}`).toBe(0);
    gefactureerd += cent;
    telling[pad] = (telling[pad] ?? 0) + 1;
  }

  it('REST: never a 5xx, always {fout} or an answer, nothing charged for a refusal', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    const paden = Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).filter((m) => ['get', 'post'].includes(m)).map((m) => [m.toUpperCase(), p] as const));
    expect(paden.length).toBeGreaterThan(5);
    for (const [methode, pad] of paden) {
      await fc.assert(
        fc.asyncProperty(body, headers, vijandigeTekst, async (b, h, query) => {
          const url = `/api/v1${pad}${methode === 'GET' ? `?limiet=${encodeURIComponent(query)}&na=${encodeURIComponent(query)}` : ''}`;
          const res = await t.app.inject({ method: methode, url, headers: { ...h, authorization: `Bearer ${key}` }, ...(methode === 'POST' ? { payload: b } : {}) });
          controleer(`${methode} ${pad}`, res, pad === '/inzicht/waarde');
        }),
        { numRuns: PER_PAD },
      );
    }
  });

  it('MCP: every tool with generated arguments, never a 5xx or a protocol-level English error', async () => {
    const tools = ['property_value', 'property_address', 'woz', 'influences'];
    for (const tool of tools) {
      await fc.assert(
        fc.asyncProperty(fc.dictionary(fc.constantFrom('postcode', 'huisnummer', 'toevoeging', 'peildatum', 'woonoppervlakte', 'types', '__proto__', 'adres'), vijandigeWaarde, { maxKeys: 5 }), async (args) => {
          const res = await t.app.inject({
            method: 'POST',
            url: '/mcp',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }),
          });
          telling[`mcp ${tool}`] = (telling[`mcp ${tool}`] ?? 0) + 1;
          if (res.statusCode !== 200) {
            // Refused at the HTTP edge (a body nested too deep): a Dutch {fout}, never a 5xx.
            expect(res.statusCode, res.body.slice(0, 300)).toBeLessThan(500);
            expect(Object.keys(JSON.parse(res.body))).toEqual(['fout']);
            return;
          }
          const r = JSON.parse(res.body) as { result?: { isError?: boolean; structuredContent?: { status?: number; fout?: string }; _meta?: { gefactureerd_cent?: number } }; error?: unknown };
          expect(r.error, res.body.slice(0, 300)).toBeUndefined();
          if (r.result?.isError) {
            expect(r.result.structuredContent?.fout, res.body.slice(0, 300)).toEqual(expect.any(String));
            expect(r.result.structuredContent?.status ?? 0).toBeLessThan(500);
            if (!(tool === 'property_value' && r.result.structuredContent?.status === 422)) expect(r.result._meta?.gefactureerd_cent ?? 0).toBe(0);
          }
          gefactureerd += r.result?._meta?.gefactureerd_cent ?? 0;
        }),
        { numRuns: PER_PAD },
      );
    }
  });

  it('balance = start − everything charged, and ledger = balance', async () => {
    const saldo = await leesSaldo(t.db.prisma, accountId);
    expect((start - saldo) * 5).toBe(gefactureerd);
    expect(await grootboekSom(t.db.prisma, accountId)).toBe(saldo);
  });
});
