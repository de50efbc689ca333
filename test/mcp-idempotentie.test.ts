/**
 * MCP idempotency without a claim (prisma/sql/idempotentie_claim_bundel.sql `kijk`, idempotentie_vastleggen.sql): a tool
 * call only looks for a stored answer before its work and stores its own at the settlement, in the
 * settling transaction. Identical calls that meet there are charged once; the later ones replay.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rekenAf, type Afrekening, type Vastlegging } from '../src/domain/billing/afrekenen.ts';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { maakSleutel } from '../src/domain/keys/sleutels.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect, useTestDatabase } from './support/db.ts';
import { maakVolledigAdres } from './support/register.ts';

describe(`storing an MCP answer at the settlement (${dialect})`, () => {
  const db = useTestDatabase();

  async function klant(credits: number) {
    const acc = await maakAccount(db.prisma, { naam: `vastleggen ${randomUUID()}`, credits });
    const key = await maakSleutel(db.prisma, { accountId: acc.id, naam: 'vastleggen' });
    const rij = await db.prisma.apiKey.findFirstOrThrow({ where: { accountId: acc.id } });
    return { accountId: acc.id, keyId: rij.id, voorvoegsel: key.key.slice(0, 12) };
  }

  const vastlegging = (verloopt = new Date(Date.now() + 3_600_000)): Vastlegging => ({ scope: 'mcp', sleutel: randomUUID(), hash: 'h', verloopt: verloopt.toISOString() });

  function afrekening(k: Awaited<ReturnType<typeof klant>>, credits: number, v: Vastlegging): Afrekening {
    return { ...k, kanaal: 'mcp', voorziening: 'woz', status: 200, credits, adres: '1234AB 1', now: new Date(), idempotentie: { vastleggen: v, antwoord: { data: { n: 1 } } } };
  }

  const records = (keyId: string) => db.prisma.idempotencyRecord.findMany({ where: { keyId } });
  const saldo = async (accountId: string) => (await db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits;
  const verbruik = (accountId: string) => db.prisma.usageRecord.count({ where: { accountId } });

  it('identical calls settled together: one charged and stored, the others replay uncharged', async () => {
    const k = await klant(10);
    const v = vastlegging();
    const uit = await Promise.all(Array.from({ length: 3 }, () => rekenAf(db.prisma, afrekening(k, 2, v))));
    expect(uit.map((u) => u.soort).sort()).toEqual(['herhaling', 'herhaling', 'ok']);
    expect(await saldo(k.accountId)).toBe(8);
    expect(await verbruik(k.accountId)).toBe(1);
    const [r] = await records(k.keyId);
    expect(r).toMatchObject({ sleutel: v.sleutel, toestand: 'klaar', status: 200, antwoord: { data: { n: 1 } } });
    // Later, alone: still a replay, still uncharged.
    expect((await rekenAf(db.prisma, afrekening(k, 2, v))).soort).toBe('herhaling');
    expect(await saldo(k.accountId)).toBe(8);
  });

  it('a call the balance cannot pay keeps no stored answer; an expired record gives way', async () => {
    const k = await klant(1);
    const v = vastlegging();
    expect((await rekenAf(db.prisma, afrekening(k, 2, v))).soort).toBe('onvoldoende');
    expect(await records(k.keyId)).toHaveLength(0);
    expect(await saldo(k.accountId)).toBe(1);

    const oud = vastlegging(new Date(Date.now() - 1_000));
    await db.prisma.idempotencyRecord.create({
      data: { keyId: k.keyId, scope: 'mcp', sleutel: oud.sleutel, verzoekHash: 'h', toestand: 'klaar', status: 200, antwoord: { oud: true }, verlooptOp: new Date(oud.verloopt) },
    });
    expect((await rekenAf(db.prisma, afrekening(k, 1, { ...oud, verloopt: new Date(Date.now() + 3_600_000).toISOString() }))).soort).toBe('ok');
    const [r] = await records(k.keyId);
    expect(r.antwoord).toEqual({ data: { n: 1 } });
    expect(r.verlooptOp.getTime()).toBeGreaterThan(Date.now());
    expect(await saldo(k.accountId)).toBe(0);
  });

  it('item by item (the fallback of a failing batch) settles the same way', async () => {
    const k = await klant(10);
    const v = vastlegging();
    const item = (n: number) => ({
      verzoek: randomUUID(), account: k.accountId, sleutel: k.keyId, kanaal: 'mcp', voorziening: 'woz', status: 200, credits: 3, eenheid_cent: 1,
      adres: '1234AB 1', nu: new Date().toISOString(), tijdstempel: String(Math.floor(Date.now() / 1000)), event_id: `msg_${n}`, event_type: 'inzicht.voltooid',
      event_data: {}, laag_id: `msg_laag_${n}`, vastleggen: v, antwoord: { n },
    });
    const rijen = await db.prisma.$queryRawUnsafe<{ r_ok: boolean; r_herhaald: boolean; r_fout: string | null }[]>(
      'SELECT * FROM afrekenen_per_item($1::jsonb)',
      JSON.stringify([item(1), item(2)]),
    );
    expect(rijen.map((r) => [r.r_ok, r.r_herhaald, r.r_fout])).toEqual([
      [true, false, null],
      [false, true, null],
    ]);
    expect(await saldo(k.accountId)).toBe(7);
    expect((await records(k.keyId))[0].antwoord).toEqual({ n: 1 });
  });
});

describe.runIf(dialect === 'postgres')('identical answers stored by two transactions at once (postgres)', () => {
  const db = useTestDatabase();

  it('the fallback takes the account lock before it stores: it waits and replays instead of deadlocking', async () => {
    const acc = await maakAccount(db.prisma, { naam: `twee ${randomUUID()}`, credits: 10 });
    await maakSleutel(db.prisma, { accountId: acc.id, naam: 'twee' });
    const keyId = (await db.prisma.apiKey.findFirstOrThrow({ where: { accountId: acc.id } })).id;
    const v = { scope: 'mcp', sleutel: randomUUID(), hash: 'h', verloopt: new Date(Date.now() + 3_600_000).toISOString() };
    const item = (n: number) => ({
      verzoek: randomUUID(), account: acc.id, sleutel: keyId, kanaal: 'mcp', voorziening: 'woz', status: 200, credits: 1, eenheid_cent: 5,
      adres: '1234AB 1', nu: new Date().toISOString(), tijdstempel: String(Math.floor(Date.now() / 1000)), event_id: `msg_a${n}`, event_type: 'inzicht.voltooid',
      event_data: {}, laag_id: `msg_b${n}`, vastleggen: v, antwoord: { n },
    });
    const [a, b] = [new pg.Client({ connectionString: db.url }), new pg.Client({ connectionString: db.url })];
    await a.connect();
    await b.connect();
    try {
      // B holds the account's row lock, as a batch does before it stores its answers.
      await b.query('BEGIN');
      await b.query('SELECT 1 FROM account WHERE id = $1 FOR UPDATE', [acc.id]);
      const pidA = (await a.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const fallback = a.query<{ r_ok: boolean; r_herhaald: boolean; r_fout: string | null }>('SELECT * FROM afrekenen_per_item($1::jsonb)', [JSON.stringify([item(1)])]);
      for (let i = 0; i < 100; i++) {
        const w = await b.query(`SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1`, [pidA]);
        if (w.rows[0]?.wait_event_type === 'Lock') break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const bundel = await b.query<{ r_ok: boolean; r_herhaald: boolean; r_fout: string | null }>('SELECT * FROM afrekenen_bundel($1::jsonb)', [JSON.stringify([item(2)])]);
      await b.query('COMMIT');
      const uitA = (await fallback).rows;
      expect(bundel.rows.map((r) => [r.r_ok, r.r_herhaald, r.r_fout])).toEqual([[true, false, null]]);
      expect(uitA.map((r) => [r.r_ok, r.r_herhaald, r.r_fout])).toEqual([[false, true, null]]);
    } finally {
      await a.end();
      await b.end();
    }
    expect((await db.prisma.account.findUniqueOrThrow({ where: { id: acc.id } })).credits).toBe(9);
    expect(await db.prisma.idempotencyRecord.findMany({ where: { keyId } })).toEqual([expect.objectContaining({ antwoord: { n: 2 } })]);
  });
});

describe(`identical MCP tool calls at once, over HTTP (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_MCP_TOOLS_PER_MIN: '100' });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  it('all answer 200 with the same data, and the balance pays once', async () => {
    const { accountId, key } = await t.klant(20);
    const a = await maakVolledigAdres(t.db.prisma);
    const roep = () =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'accept-encoding': 'gzip, deflate, br' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'woz', arguments: { postcode: a.postcode, huisnummer: 12 } } }),
      }).then((r) => r.json() as Promise<{ result: { isError?: boolean; structuredContent: { data: unknown; meta: { cached: boolean; gefactureerd_cent: number } } } }>);
    const uit = await Promise.all(Array.from({ length: 4 }, roep));
    expect(uit.map((u) => u.result.isError ?? false)).toEqual([false, false, false, false]);
    for (const u of uit) expect(u.result.structuredContent.data).toEqual(uit[0].result.structuredContent.data);
    expect(uit.filter((u) => !u.result.structuredContent.meta.cached)).toHaveLength(1);
    expect(uit.map((u) => u.result.structuredContent.meta.gefactureerd_cent).sort()).toEqual([0, 0, 0, 5]);
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(19);
    expect(await t.db.prisma.usageRecord.count({ where: { accountId } })).toBe(1);
  });
});
