import { describe, expect, it } from 'vitest';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { canoniekeJson, claim, IDEMPOTENTIE_VENSTER_MS, ruimIdempotentieOp, sha256, VERLATEN_ZOEKEN_MS } from '../src/domain/idempotentie/idempotentie.ts';
import { leesSaldo } from '../src/domain/billing/tegoed.ts';
import { createTestApp } from './support/app.ts';
import { lookup } from './support/http.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { maakSleutel } from '../src/domain/keys/sleutels.ts';
import { dialect, useTestDatabase } from './support/db.ts';

/** Issue 12 item 7: claims left "bezig" by a killed process, and records past their window, are removed. */
describe(`idempotency clean-up (${dialect})`, () => {
  const db = useTestDatabase();

  it('removes abandoned claims and expired records, keeps running claims and live answers', async () => {
    const nu = new Date('2026-11-22T10:00:00Z');
    const { id: accountId } = await maakAccount(db.prisma, { naam: 'opruimen', credits: 10 });
    const sleutel = await maakSleutel(db.prisma, { accountId, naam: 'k', now: nu });
    const keyId = (await db.prisma.apiKey.findFirstOrThrow({ where: { accountId } })).id;
    const c = (s: string, t: Date) => claim(db.prisma, { keyId, scope: 'woz', sleutel: s, verzoekHash: 'h', now: t, accountId, termijnMs: 45_000 });
    await c('verlaten', new Date(nu.getTime() - 5 * 60_000));
    await c('lopend', new Date(nu.getTime() - 10_000));
    await c('verlopen', new Date(nu.getTime() - 25 * 3_600_000));
    await db.prisma.idempotencyRecord.updateMany({ where: { sleutel: 'verlopen' }, data: { toestand: 'klaar', status: 200 } });
    await c('klaar', new Date(nu.getTime() - 3_600_000));
    await db.prisma.idempotencyRecord.updateMany({ where: { sleutel: 'klaar' }, data: { toestand: 'klaar', status: 200 } });
    // Abandoned before the window the clean-up looks in: left to its expiry (a retry takes it over meanwhile).
    await c('lang-verlaten', new Date(nu.getTime() - VERLATEN_ZOEKEN_MS - 60_000));
    expect(sleutel.key).toMatch(/^pct_/);
    expect(await ruimIdempotentieOp(db.prisma, nu)).toBe(2);
    const over = (await db.prisma.idempotencyRecord.findMany({ where: { keyId } })).map((r) => r.sleutel).sort();
    expect(over).toEqual(['klaar', 'lang-verlaten', 'lopend']);
    const later = new Date(nu.getTime() + IDEMPOTENTIE_VENSTER_MS);
    expect(await ruimIdempotentieOp(db.prisma, later)).toBe(3);
    expect(await db.prisma.idempotencyRecord.count({ where: { keyId } })).toBe(0);
  });

  it('concurrent claims go in one statement and are each answered as alone; one that fails (a malformed key id) fails alone', async () => {
    const nu = new Date('2026-11-26T10:00:00Z');
    const { id: accountId } = await maakAccount(db.prisma, { naam: 'bundel', credits: 10 });
    await maakSleutel(db.prisma, { accountId, naam: 'k', now: nu });
    const keyId = (await db.prisma.apiKey.findFirstOrThrow({ where: { accountId } })).id;
    const c = (s: string, hash = 'h', key = keyId) => claim(db.prisma, { keyId: key, scope: 'mcp', sleutel: s, verzoekHash: hash, now: nu, accountId, termijnMs: 45_000 });
    // The first goes alone; the others arrive while it is in flight and go together in the next statement.
    const [a, zelfde, ander, kapot, b] = await Promise.allSettled([c('a'), c('a'), c('a', 'h2'), c('x', 'h', 'geen-uuid'), c('b')]);
    expect(a).toMatchObject({ status: 'fulfilled', value: { soort: 'nieuw', saldo: 10 } });
    expect(zelfde).toMatchObject({ status: 'fulfilled', value: { soort: 'bezig' } });
    expect(ander).toMatchObject({ status: 'fulfilled', value: { soort: 'ander_verzoek' } });
    expect(kapot.status).toBe('rejected');
    expect(b).toMatchObject({ status: 'fulfilled', value: { soort: 'nieuw' } });
    expect((await db.prisma.idempotencyRecord.findMany({ where: { keyId } })).map((r) => r.sleutel).sort()).toEqual(['a', 'b']);
  });
});

/**
 * Issue 24 item 20: a claim left by a crashed request expires with that request's own deadline
 * (REQUEST_TIMEOUT_MS + DB_QUERY_TIMEOUT_MS), not after a fixed 60 s, so the retry is answered sooner.
 */
describe(`an abandoned idempotency claim expires with its request's deadline (${dialect})`, () => {
  it('the retry of a request that died holding the claim is 409 before the deadline and answered after it, charged once', async () => {
    const t = await createTestApp({ REQUEST_TIMEOUT_MS: '3000', DB_QUERY_TIMEOUT_MS: '2000' });
    try {
      const { accountId, key } = await t.klant(10);
      const keyId = (await t.db.prisma.apiKey.findFirstOrThrow({ where: { accountId } })).id;
      const a = await maakVolledigAdres(t.db.prisma);
      const body = adresBody(a);
      // The dead request: its claim, made as the middleware makes it, never settled or released.
      const dood = await claim(t.db.prisma, { keyId, scope: 'woz', sleutel: 'na-crash', verzoekHash: sha256(canoniekeJson({ adres: { postcode: a.postcode, huisnummer: a.huisnummer } })), now: t.clock.now, accountId, termijnMs: 5000 });
      expect(dood.soort).toBe('nieuw');
      t.clock.advance(4000);
      const bezig = await lookup(t, 'woz', key, body, { 'idempotency-key': 'na-crash' });
      expect(bezig.statusCode).toBe(409);
      expect(bezig.json().fout).toMatch(/wordt nog verwerkt/);
      t.clock.advance(1500);
      const opnieuw = await lookup(t, 'woz', key, body, { 'idempotency-key': 'na-crash' });
      expect(opnieuw.statusCode, opnieuw.body).toBe(200);
      expect(await leesSaldo(t.db.prisma, accountId)).toBe(9);
      expect(await ruimIdempotentieOp(t.db.prisma, t.clock.now)).toBe(0);
    } finally {
      await t.close();
    }
  });
});
