import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logging.ts';
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

/** Issue 12 item 2: a key never reaches a log line, wherever the client put it. */
describe(`no key in the log (${dialect})`, () => {
  let t: TestApp;
  const regels: string[] = [];
  beforeAll(async () => {
    const stroom = new Writable({
      write(chunk, _enc, cb) {
        regels.push(String(chunk));
        cb();
      },
    });
    t = await createTestApp({}, { log: createLogger({ LOG_LEVEL: 'debug' }, stroom) });
  });
  afterAll(async () => t?.close());

  it('in the query string, the path, a header or a body field: logged as [verborgen]', async () => {
    const { key } = await t.klant(10);
    const verzoeken = [
      { method: 'GET' as const, url: `/api/v1/whoami?key=${key}` },
      { method: 'GET' as const, url: `/api/v1/whoami?token=${key.slice(4)}&x=1` },
      { method: 'GET' as const, url: `/api/v1/${key}` },
      { method: 'GET' as const, url: '/api/v1/whoami', headers: { authorization: `Bearer ${key}`, 'x-api-key': key } },
      { method: 'POST' as const, url: '/api/v1/inzicht/woz', headers: { 'content-type': 'application/json' }, payload: { key, adres: { postcode: key } } },
    ];
    for (const v of verzoeken) await t.app.inject(v);
    t.services.log.info({ headers: { authorization: `Bearer ${key}` }, body: { sleutel: key } }, 'handmatig');
    const log = regels.join('');
    expect(log).toContain('/api/v1/whoami?key=[verborgen]');
    expect(log).toContain('token=[verborgen]&x=1');
    expect(log).not.toContain(key);
    expect(log).not.toContain(key.slice(4));
  });
});
