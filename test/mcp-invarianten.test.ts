/**
 * The fault suite's money invariants (test/faults/invarianten.ts) over MCP rows: an MCP call claims nothing,
 * and the answer it stores is written and, when the charge is refused, deleted by the statement that settles
 * it. So no MCP record is ever `bezig`, and each stored answer has exactly one usage row charged what it says.
 * Here on ordinary MCP traffic (the fault suite has none), and on rows broken on purpose, so a rule that
 * can never fire would be noticed.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rekenAf, type Afrekening } from '../src/domain/billing/afrekenen.ts';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { maakSleutel, zetMaandlimiet } from '../src/domain/keys/sleutels.ts';
import { GEEN_SCHENDINGEN, zoekSchendingenMet } from './faults/invarianten.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect, useTestDatabase, type TestDatabase } from './support/db.ts';
import { maakVolledigAdres, uniekePostcode } from './support/register.ts';

const schendingen = (db: TestDatabase) => zoekSchendingenMet((sql) => db.prisma.$queryRawUnsafe<unknown[]>(sql));

/** A charge with an MCP answer to store, as src/core/afrekening.ts hands it to the settlement. */
function mcpAfrekening(k: { accountId: string; keyId: string; voorvoegsel: string }, credits: number, now: Date): Afrekening {
  const verloopt = new Date(now.getTime() + 24 * 3_600_000).toISOString();
  const antwoord = { data: { n: 1 }, meta: { gefactureerd_cent: credits * 5 } };
  return { ...k, kanaal: 'mcp', voorziening: 'woz', status: 200, credits, adres: '1234AB 1', now, idempotentie: { vastleggen: { scope: 'mcp', sleutel: randomUUID(), hash: 'h', verloopt }, antwoord } };
}

describe(`the money invariants after MCP traffic (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_MCP_TOOLS_PER_MIN: '1000' });
  });
  afterAll(async () => t?.close());

  async function roep(key: string, name: string, args: Record<string, unknown>) {
    const r = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
    expect(r.statusCode, r.body).toBe(200);
    const { result } = r.json() as { result: { isError?: boolean; structuredContent: { status?: number; meta?: { cached: boolean } } } };
    return result.isError ? result.structuredContent.status : result.structuredContent.meta?.cached ? 'herhaling' : 200;
  }

  it('charged, uncharged, replayed and refused MCP calls: every invariant holds, MCP rows included', async () => {
    // An endpoint subscribed to inzicht.voltooid, so the event rules cover these usage rows too.
    const { accountId, key } = await t.klant(1000);
    const reg = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: { authorization: `Bearer ${key}` }, payload: { url: 'http://127.0.0.1:9/mcp', events: ['inzicht.voltooid'] } });
    expect(reg.statusCode, reg.body).toBe(200);
    const [a, b] = [await maakVolledigAdres(t.db.prisma), await maakVolledigAdres(t.db.prisma)];
    const args = (x: { postcode: string; huisnummer: number }) => ({ postcode: x.postcode, huisnummer: x.huisnummer });
    // The test app's clock stands still: every call below shares one `nu`, as calls of a busy key share a millisecond.
    const uit = await Promise.all([
      ...Array.from({ length: 4 }, () => roep(key, 'woz', args(a))),
      roep(key, 'property_address', args(a)),
      roep(key, 'woz', args(b)),
      roep(key, 'influences', args(b)),
      roep(key, 'woz', { postcode: uniekePostcode(), huisnummer: 1 }), // 404: stored, uncharged
    ]);
    expect(uit.slice(0, 4).sort()).toEqual([200, 'herhaling', 'herhaling', 'herhaling']);
    expect(uit.slice(4)).toEqual([200, 200, 200, 404]);
    // Later, the same calls again: replays, nothing written.
    expect(await Promise.all([roep(key, 'property_address', args(a)), roep(key, 'woz', args(b))])).toEqual(['herhaling', 'herhaling']);

    // A test key's answer outside the demo town (404 at price 0) is stored and recorded like any other.
    const testKey = await t.key(accountId, { modus: 'test' });
    expect(await roep(testKey, 'woz', args(a))).toBe(404);

    // Refused at the settlement, for the balance and for a key's monthly cap: the answer stored for it is deleted there.
    const arm = await t.account(1);
    const begrensd = await t.account(100);
    for (const [acc, cap, weigering] of [[arm, undefined, 'onvoldoende'], [begrensd, 1, 'maandlimiet']] as const) {
      const s = await maakSleutel(t.db.prisma, { accountId: acc.id, naam: weigering, now: t.clock.now });
      if (cap !== undefined) await zetMaandlimiet(t.db.prisma, { accountId: acc.id, keyId: s.id, credits: cap });
      const k = { accountId: acc.id, keyId: s.id, voorvoegsel: s.voorvoegsel };
      const twee = await Promise.all([rekenAf(t.db.prisma, mcpAfrekening(k, 1, t.clock.now)), rekenAf(t.db.prisma, mcpAfrekening(k, 1, t.clock.now))]);
      expect(twee.map((u) => u.soort)).toEqual(['ok', weigering]);
    }
    // Identical calls met at the settlement: the first goes alone and is charged, the two batched behind it are r_herhaald.
    const samen = await t.account(100);
    const samenKey = await maakSleutel(t.db.prisma, { accountId: samen.id, naam: 'samen', now: t.clock.now });
    const drie = mcpAfrekening({ accountId: samen.id, keyId: samenKey.id, voorvoegsel: samenKey.voorvoegsel }, 1, t.clock.now);
    expect((await Promise.all([rekenAf(t.db.prisma, drie), rekenAf(t.db.prisma, drie), rekenAf(t.db.prisma, drie)])).map((u) => u.soort)).toEqual(['ok', 'herhaling', 'herhaling']);
    // A cap refused before the work: its usage row (402, 0 credits) shares key, kanaal and moment with stored answers.
    await zetMaandlimiet(t.db.prisma, { accountId, keyId: (await t.db.prisma.apiKey.findFirstOrThrow({ where: { accountId, voorvoegsel: key.slice(0, 12) } })).id, credits: 0 });
    expect(await roep(key, 'woz', { postcode: a.postcode, huisnummer: a.huisnummer, toevoeging: 'Z' })).toBe(402);

    expect(await schendingen(t.db)).toEqual(GEEN_SCHENDINGEN);
    // Not vacuous: the MCP rules had rows to look at.
    expect(await t.db.prisma.idempotencyRecord.count({ where: { scope: 'mcp', toestand: 'klaar' } })).toBe(9);
  });
});

describe(`the MCP invariants catch what they promise to (${dialect})`, () => {
  const db = useTestDatabase();

  it('a stored MCP answer without its usage row, with two, with another charge, a charge without its stored answer, and an MCP claim in flight are each named', async () => {
    const now = new Date('2026-11-22T09:00:00Z');
    const acc = await maakAccount(db.prisma, { naam: `invarianten ${randomUUID()}`, credits: 100 });
    const k = await maakSleutel(db.prisma, { accountId: acc.id, naam: 'invarianten', now });
    const klant = { accountId: acc.id, keyId: k.id, voorvoegsel: k.voorvoegsel };
    // Four calls settled properly, at four moments; each is then broken in its own way.
    const moment = (n: number) => new Date(now.getTime() + n * 1000);
    for (const n of [0, 1, 2, 3]) expect((await rekenAf(db.prisma, mcpAfrekening(klant, 2, moment(n)))).soort).toBe('ok');
    expect(await schendingen(db)).toEqual(GEEN_SCHENDINGEN);

    const verbruikOp = (n: number) => db.prisma.usageRecord.findFirstOrThrow({ where: { accountId: acc.id, aangemaaktOp: moment(n) } });
    // 0: the usage row is gone (an answer stored for a call that was never charged).
    const weg = await verbruikOp(0);
    await db.prisma.ledgerEntry.deleteMany({ where: { usageId: weg.id } });
    await db.prisma.usageRecord.delete({ where: { id: weg.id } });
    // 1: charged twice for one stored answer.
    const eens = await verbruikOp(1);
    await db.prisma.usageRecord.create({ data: { ...eens, id: randomUUID() } });
    // 2: the answer says 10 cent, the usage row charged nothing.
    await db.prisma.usageRecord.update({ where: { id: (await verbruikOp(2)).id }, data: { credits: 0, gefactureerdCent: 0 } });
    // 3: the stored answer is gone (a charged call whose repeat would be charged again).
    await db.prisma.idempotencyRecord.deleteMany({ where: { keyId: k.id, scope: 'mcp', aangemaaktOp: moment(3) } });
    // And a claim "in flight" under the MCP scope, which no MCP call takes any more.
    const bezig = await db.prisma.idempotencyRecord.create({
      data: { keyId: k.id, scope: 'mcp', sleutel: randomUUID(), verzoekHash: 'h', toestand: 'bezig', bezigTot: moment(60), verlooptOp: moment(86_400) },
    });

    const s = await schendingen(db);
    expect(s.mcpAntwoordNietEenmaalAfgerekend.map((r) => new Date((r as { aangemaakt_op: string | Date }).aangemaakt_op).getTime()).sort()).toEqual([0, 1, 2, 3].map((n) => moment(n).getTime()));
    expect(s.mcpAntwoordNietEenmaalAfgerekend).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ antwoorden: 1, verbruik: 0 }),
        expect.objectContaining({ antwoorden: 1, verbruik: 2 }),
        expect.objectContaining({ antwoorden: 1, verbruik: 1, cent: 10, verbruik_cent: 0 }),
        expect.objectContaining({ antwoorden: 0, verbruik: 1 }),
      ]),
    );
    expect(s.mcpBezig).toEqual([expect.objectContaining({ id: bezig.id })]);
    // A usage row deleted and one changed behind the trigger's back: that day's total (5 calls) no longer matches its 4 rows.
    expect(s.dagtotaalNietVerbruik).toEqual([expect.objectContaining({ aantal: 4, dagtotaal: 5 })]);
    // The ledger row deleted with it: that day's ledger total (4 debits) no longer matches its 3 rows.
    expect(s.dagtotaalNietGrootboek).toEqual([expect.objectContaining({ aantal: 3, dagtotaal: 4 })]);
  });
});
