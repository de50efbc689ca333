import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { getBalance } from '../src/domain/billing/tegoed.ts';

/** Issue 12: hostile input never answers 5xx and never costs money; every error is `{"fout"}` in Dutch. */
describe(`hostile input (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  const diep = `${'['.repeat(30000)}${']'.repeat(30000)}`;

  it.each([
    ['zonder sleutel', false, 401],
    ['met sleutel', true, 400],
  ])('a JSON body nested 30,000 deep (%s) is refused in Dutch, never a 500, uncharged', async (_naam, metSleutel, status) => {
    const { accountId, key } = await t.klant(50);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (metSleutel) headers.authorization = `Bearer ${key}`;
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/woz', headers, payload: diep });
    expect(res.statusCode).toBe(status);
    expect(Object.keys(res.json())).toEqual(['fout']);
    if (status === 400) expect(res.json().fout).toMatch(/genest/);
    expect(await getBalance(t.db.prisma, accountId)).toBe(50);
  });

  it('a deep object inside a valid body and a deep body to /mcp are refused alike', async () => {
    const { key } = await t.klant(50);
    const diepObject = `{"adres":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`;
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/woz', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, payload: diepObject });
    expect(res.statusCode).toBe(400);
    expect(res.json().fout).toMatch(/genest/);
    const mcp = await t.app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` }, payload: diep });
    expect(mcp.statusCode).toBe(400);
    expect(mcp.json().fout).toMatch(/genest/);
  });

  it('brackets inside strings do not count as nesting', async () => {
    const { key } = await t.klant(50);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/woz', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, payload: JSON.stringify({ adres: { postcode: '[[[[{{{{'.repeat(100), huisnummer: '1' } }) });
    expect(res.statusCode).toBe(400);
    expect(res.json().fout).not.toMatch(/genest/);
  });
});
