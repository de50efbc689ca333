import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { lookup } from './support/http.ts';
import { mcpClient } from './support/mcp.ts';
import { leesSaldo } from '../src/domain/billing/tegoed.ts';
import { rekenAf } from '../src/domain/billing/afrekenen.ts';
import { canoniekeJson, sha256 } from '../src/domain/idempotentie/idempotentie.ts';
import { roteerSleutel, SleutelFout, trekSleutelIn, zetMaandlimiet } from '../src/domain/keys/sleutels.ts';

/**
 * Session 28 (account review): a rotated key continues the old one. A retry after the rotation with the same
 * Idempotency-Key (or the same MCP call) replays instead of paying again, and a cap can only be set on a
 * key that still works (on a rotated-away key it held nothing: the charges count against its replacement).
 */
describe(`key rotation continues the key (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '10000' });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  const sleutelId = async (accountId: string) => (await t.db.prisma.apiKey.findFirstOrThrow({ where: { accountId, ingetrokkenOp: null } })).id;

  it('REST: the same Idempotency-Key with the new key replays the answer, uncharged', async () => {
    const { accountId, key } = await t.klant(1000);
    const a = await maakVolledigAdres(t.db.prisma);
    const eerste = await lookup(t, 'woz', key, adresBody(a), { 'idempotency-key': 'job-42' });
    expect(eerste.statusCode).toBe(200);
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(999);
    const nieuw = await roteerSleutel(t.db.prisma, { accountId, keyId: await sleutelId(accountId), now: t.clock.now });
    const weer = await lookup(t, 'woz', nieuw.key, adresBody(a), { 'idempotency-key': 'job-42' });
    expect(weer.statusCode).toBe(200);
    expect(weer.headers['idempotent-replayed']).toBe('true');
    expect(weer.headers['insight-gefactureerd-cent']).toBe('0');
    expect(weer.json().data).toEqual(eerste.json().data);
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(999);
    // The same key with another body is still a conflict, as it was for the old key.
    expect((await lookup(t, 'woz', nieuw.key, adresBody({ postcode: a.postcode, huisnummer: a.huisnummer + 1 }), { 'idempotency-key': 'job-42' })).statusCode).toBe(409);
  });

  it('MCP: the identical call with the new key is not charged again', async () => {
    const { accountId, key } = await t.klant(1000);
    const a = await maakVolledigAdres(t.db.prisma);
    const argumenten = { postcode: a.postcode, huisnummer: a.huisnummer };
    const oud = await mcpClient(base, key);
    expect((await oud.callTool({ name: 'woz', arguments: argumenten })).isError).toBeFalsy();
    await oud.close();
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(999);
    const nieuw = await roteerSleutel(t.db.prisma, { accountId, keyId: await sleutelId(accountId), now: t.clock.now });
    const c = await mcpClient(base, nieuw.key);
    expect((await c.callTool({ name: 'woz', arguments: argumenten })).isError).toBeFalsy();
    await c.close();
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(999);
  });

  it('MCP: a call under way while its key is rotated stores its answer under the new key, so the identical call with it replays', async () => {
    const { accountId, key } = await t.klant(1000);
    const a = await maakVolledigAdres(t.db.prisma);
    const argumenten = { postcode: a.postcode, huisnummer: a.huisnummer };
    const oudId = await sleutelId(accountId);
    const nieuw = await roteerSleutel(t.db.prisma, { accountId, keyId: oudId, now: t.clock.now });
    // The call of the old key authenticated before the rotation and settles after it, as the MCP path settles it.
    const vastleggen = { scope: 'mcp', sleutel: sha256(`woz\n${canoniekeJson(argumenten)}`), hash: sha256(canoniekeJson(argumenten)), verloopt: new Date(t.clock.now.getTime() + 86_400_000).toISOString() };
    const r = await rekenAf(t.db.prisma, { accountId, keyId: oudId, voorvoegsel: key.slice(0, 12), kanaal: 'mcp', voorziening: 'woz', status: 200, credits: 1, adres: null, now: t.clock.now, idempotentie: { vastleggen, antwoord: { data: {} } } });
    expect(r.soort).toBe('ok');
    expect(await t.db.prisma.idempotencyRecord.findMany({ where: { sleutel: vastleggen.sleutel }, select: { keyId: true } })).toEqual([{ keyId: nieuw.id }]);
  });

  it('a cap on a rotated-away or revoked key is refused, naming the replacement; the cap on the new key holds', async () => {
    const { accountId, key } = await t.klant(1000);
    const oudId = await sleutelId(accountId);
    const nieuw = await roteerSleutel(t.db.prisma, { accountId, keyId: oudId, now: t.clock.now });
    const fout = await zetMaandlimiet(t.db.prisma, { accountId, keyId: oudId, credits: 1 }).catch((e: unknown) => e);
    expect(fout).toBeInstanceOf(SleutelFout);
    expect((fout as Error).message).toContain(`vervangen door ${nieuw.voorvoegsel}`);
    expect(await t.db.prisma.apiKey.findUnique({ where: { id: oudId }, select: { maandlimietCredits: true } })).toEqual({ maandlimietCredits: null });
    await zetMaandlimiet(t.db.prisma, { accountId, keyId: nieuw.id, credits: 1 });
    const a = await maakVolledigAdres(t.db.prisma);
    expect((await lookup(t, 'woz', nieuw.key, adresBody(a))).statusCode).toBe(200);
    expect((await lookup(t, 'woz', nieuw.key, adresBody(a))).statusCode).toBe(402);
    expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(401);
    await trekSleutelIn(t.db.prisma, { accountId, keyId: nieuw.id, now: t.clock.now });
    await expect(zetMaandlimiet(t.db.prisma, { accountId, keyId: nieuw.id, credits: 5 })).rejects.toThrow(/ingetrokken of verlopen/);
  });
});

/**
 * Session 28 (account review): a key revoked elsewhere (the CLI, another process) passes this process's key
 * cache once more and is refused by the rate-limit statement. That refusal showed the account's balance, and on
 * MCP it was a tool result in an HTTP 200 instead of the HTTP 401 docs/mcp.md promises.
 */
describe(`a key revoked in another process (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  const trekInElders = (keyId: string) => t.db.prisma.$executeRaw`UPDATE api_sleutel SET ingetrokken_op = now() WHERE id = ${keyId}::uuid`;
  const whoami = (key: string) => fetch(`${base}/api/v1/whoami`, { headers: { authorization: `Bearer ${key}` } });

  it('REST: 401 without the balance', async () => {
    const { accountId, key } = await t.klant(1000);
    expect((await whoami(key)).headers.get('insight-saldo-credits')).toBe('1000');
    await trekInElders((await t.db.prisma.apiKey.findFirstOrThrow({ where: { accountId } })).id);
    const r = await whoami(key);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
    expect(r.headers.get('insight-saldo-credits')).toBeNull();
  });

  it('MCP: a tools/call gets HTTP 401 {fout}, without the balance, uncharged', async () => {
    const { accountId, key } = await t.klant(1000);
    const a = await maakVolledigAdres(t.db.prisma);
    expect((await whoami(key)).status).toBe(200);
    await trekInElders((await t.db.prisma.apiKey.findFirstOrThrow({ where: { accountId } })).id);
    const r = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'woz', arguments: { postcode: a.postcode, huisnummer: a.huisnummer } } }),
    });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
    expect(r.headers.get('insight-saldo-credits')).toBeNull();
    expect(Object.keys((await r.json()) as object)).toEqual(['fout']);
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(1000);
  });
});
