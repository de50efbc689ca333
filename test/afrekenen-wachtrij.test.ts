import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grootboekSom, leesSaldo } from '../src/domain/billing/tegoed.ts';
import { maakSleutel, zetMaandlimiet } from '../src/domain/keys/sleutels.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { lookup } from './support/http.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';

const slaap = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A charge that waits in the process's settlement queue (one statement in flight, here held by another
 * account's row lock from a second connection) — PostgreSQL only: PGlite has one connection.
 */
describe.runIf(dialect === 'postgres')('charges that waited in the settlement queue (postgres)', () => {
  let t: TestApp;
  let houder: pg.Client;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '10000' });
  });
  afterAll(async () => t?.close());

  /** Holds one account's row, so the charge in flight (and every one queued behind it) waits. */
  async function houdVast(accountId: string): Promise<void> {
    houder = new pg.Client({ connectionString: t.db.url });
    await houder.connect();
    await houder.query('BEGIN');
    await houder.query('SELECT 1 FROM account WHERE id = $1 FOR UPDATE', [accountId]);
  }
  async function laatLos(): Promise<void> {
    await houder.query('COMMIT');
    await houder.end();
  }

  it('a retry that took over a claim past its deadline is charged; the first request is not charged again', async () => {
    const x = await t.klant(100);
    const y = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    await houdVast(y.accountId);
    const vast = lookup(t, 'woz', y.key, adresBody(a));
    await slaap(500);
    const eerste = lookup(t, 'woz', x.key, adresBody(a), { 'idempotency-key': 'K1' });
    await slaap(800); // its lookup is done and its charge waits in the queue
    t.clock.advance(46_000); // past the claim's deadline: the retry takes the claim over
    const tweede = lookup(t, 'woz', x.key, adresBody(a), { 'idempotency-key': 'K1' });
    await slaap(800);
    await laatLos();
    const [r1, r2, rv] = await Promise.all([eerste, tweede, vast]);
    expect(rv.statusCode).toBe(200);
    expect(r2.statusCode).toBe(200);
    expect(r2.headers['insight-gefactureerd-cent']).toBe('5');
    // The first gets the retry's answer, uncharged (or a 409 had the retry still been running).
    expect(r1.statusCode).toBe(200);
    expect(r1.headers['idempotent-replayed']).toBe('true');
    expect(r1.headers['insight-gefactureerd-cent']).toBe('0');
    expect(await leesSaldo(t.db.prisma, x.accountId)).toBe(99);
    expect(await grootboekSom(t.db.prisma, x.accountId)).toBe(99);
    expect(await t.db.prisma.usageRecord.count({ where: { accountId: x.accountId } })).toBe(1);
  }, 60_000);

  it('charges queued together across midnight at a month end each count in their own month', async () => {
    const acc = await t.account(100);
    const k1 = await maakSleutel(t.db.prisma, { accountId: acc.id, naam: 'met-limiet', now: t.clock.now });
    const k2 = await maakSleutel(t.db.prisma, { accountId: acc.id, naam: 'zonder', now: t.clock.now });
    await zetMaandlimiet(t.db.prisma, { accountId: acc.id, keyId: k1.id, credits: 1 });
    const y = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    await houdVast(y.accountId);
    const vast = lookup(t, 'woz', y.key, adresBody(a));
    await slaap(500);
    t.clock.now = new Date('2026-11-30T22:59:59Z'); // 23:59:59 on 30 November in Amsterdam
    const november = lookup(t, 'woz', k2.key, adresBody(a));
    await slaap(300);
    t.clock.now = new Date('2026-11-30T23:00:30Z'); // 00:00:30 on 1 December
    const december = lookup(t, 'woz', k1.key, adresBody(a));
    await slaap(500);
    await laatLos();
    expect([(await vast).statusCode, (await november).statusCode, (await december).statusCode]).toEqual([200, 200, 200]);
    expect(await t.db.prisma.apiKey.findUnique({ where: { id: k1.id }, select: { maand: true, maandVerbruikt: true } })).toEqual({ maand: '2026-12', maandVerbruikt: 1 });
    t.clock.now = new Date('2026-12-02T10:00:00Z');
    // The cap of 1 credit is spent for December: a second December charge is refused.
    expect((await lookup(t, 'woz', k1.key, adresBody(a))).statusCode).toBe(402);
  }, 60_000);
});
