/**
 * MCP calls refused at their settlement (prisma/sql/afrekenen_per_item.sql, afrekenen_bundel.sql, src/core/afrekening.ts):
 * the answer a call stores in its settling statement never outlives its refusal (402 for the balance or for
 * the key's monthly cap), and an identical call settled beside a refused one gets its own refusal — not a
 * 409, not a replay of an answer nobody paid for.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Afrekening, AfrekenUitkomst } from '../src/domain/billing/afrekenen.ts';
import { grootboekSom, leesSaldo, maakAccount, waardeerOp } from '../src/domain/billing/tegoed.ts';
import { maakSleutel, zetMaandlimiet } from '../src/domain/keys/sleutels.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect, useTestDatabase } from './support/db.ts';
import { maakVolledigAdres } from './support/register.ts';

/**
 * A gate before the settlement, so calls that reach it at different moments settle in a batch of our
 * choosing: the first let through goes alone (src/db/bundel.ts), the others queue behind it and go together
 * in the next statement, in the order let through. Without a gate set, rekenAf is the real one.
 */
const poort = vi.hoisted(() => ({
  gesloten: undefined as undefined | { aantal: number; eerst: (a: Afrekening) => boolean; wachtend: { a: Afrekening; verder: () => void }[] },
  uitkomsten: [] as { a: Afrekening; soort: AfrekenUitkomst['soort'] }[],
}));

vi.mock('../src/domain/billing/afrekenen.ts', async (importOriginal) => {
  const echt = await importOriginal<typeof import('../src/domain/billing/afrekenen.ts')>();
  return {
    ...echt,
    async rekenAf(db: Parameters<typeof echt.rekenAf>[0], a: Afrekening): Promise<AfrekenUitkomst> {
      const g = poort.gesloten;
      if (g) {
        await new Promise<void>((verder) => {
          g.wachtend.push({ a, verder });
          if (g.wachtend.length < g.aantal) return;
          poort.gesloten = undefined;
          for (const w of g.wachtend.filter((w) => g.eerst(w.a))) w.verder();
          // The rest a macrotask later, when the first is in flight in the batcher, so they queue behind it.
          setImmediate(() => {
            for (const w of g.wachtend.filter((w) => !g.eerst(w.a))) w.verder();
          });
        });
      }
      const u = await echt.rekenAf(db, a);
      poort.uitkomsten.push({ a, soort: u.soort });
      return u;
    },
  };
});

type Rij = { r_nr: number; r_ok: boolean | null; r_saldo: number | null; r_fout: string | null; r_limiet: boolean; r_herhaald: boolean };

describe(`MCP refusals in the settling statement (${dialect})`, () => {
  const db = useTestDatabase();

  async function account(credits: number) {
    return (await maakAccount(db.prisma, { naam: `weigering ${randomUUID()}`, credits })).id;
  }
  async function sleutel(accountId: string, maandlimiet?: number) {
    const { id } = await maakSleutel(db.prisma, { accountId, naam: `weigering ${randomUUID()}` });
    if (maandlimiet !== undefined) await zetMaandlimiet(db.prisma, { accountId, keyId: id, credits: maandlimiet });
    return id;
  }
  const vastlegging = () => ({ scope: 'mcp', sleutel: randomUUID(), hash: 'h', verloopt: new Date(Date.now() + 3_600_000).toISOString() });

  /** One MCP charge as src/domain/billing/afrekenen.ts sends it, with an answer to store. */
  function item(accountId: string, keyId: string, credits: number, v: ReturnType<typeof vastlegging>, n: number) {
    return {
      verzoek: randomUUID(), account: accountId, sleutel: keyId, kanaal: 'mcp', voorziening: 'woz', status: 200, credits, eenheid_cent: 5,
      adres: '1234AB 1', nu: new Date().toISOString(), tijdstempel: String(Math.floor(Date.now() / 1000)), event_id: `msg_w${n}`, event_type: 'inzicht.voltooid',
      event_data: {}, laag_id: `msg_wl${n}`, vastleggen: v, antwoord: { n },
    };
  }
  const voer = (functie: 'afrekenen_per_item' | 'afrekenen_bundel', items: unknown[]) =>
    db.prisma.$queryRawUnsafe<Rij[]>(`SELECT * FROM ${functie}($1::jsonb) ORDER BY r_nr`, JSON.stringify(items));

  /** Everything a settlement leaves behind for one account. */
  async function sporen(accountId: string) {
    const sleutels = (await db.prisma.apiKey.findMany({ where: { accountId }, select: { id: true } })).map((s) => s.id);
    return {
      saldo: await leesSaldo(db.prisma, accountId),
      grootboek: await grootboekSom(db.prisma, accountId),
      verbruik: (await db.prisma.usageRecord.findMany({ where: { accountId }, select: { credits: true, status: true }, orderBy: { credits: 'asc' } })).map((v) => [v.status, v.credits]),
      afschrijvingen: await db.prisma.ledgerEntry.count({ where: { accountId, soort: 'afschrijving' } }),
      opgeslagen: (await db.prisma.idempotencyRecord.findMany({ where: { keyId: { in: sleutels } }, select: { sleutel: true, toestand: true, antwoord: true } })).sort((a, b) => (a.antwoord as { n: number }).n - (b.antwoord as { n: number }).n),
    };
  }

  it('item by item: a call refused for its balance and one refused by its key\'s monthly cap keep no stored answer and leave no trace; ok calls around them store and pay', async () => {
    const accountId = await account(10);
    const vrij = await sleutel(accountId);
    const begrensd = await sleutel(accountId, 2);
    const v = [vastlegging(), vastlegging(), vastlegging(), vastlegging()];
    const rijen = await voer('afrekenen_per_item', [
      item(accountId, vrij, 3, v[0], 0), // ok: 10 -> 7
      item(accountId, vrij, 8, v[1], 1), // 402: 8 > 7
      item(accountId, begrensd, 3, v[2], 2), // the cap: 3 > 2 this month, although the balance could pay
      item(accountId, vrij, 1, v[3], 3), // ok after the refusals: 7 -> 6
    ]);
    expect(rijen.map((r) => [r.r_ok, r.r_saldo, r.r_limiet, r.r_herhaald, r.r_fout])).toEqual([
      [true, 7, false, false, null],
      [false, 7, false, false, null],
      [false, 7, true, false, null],
      [true, 6, false, false, null],
    ]);
    expect(await sporen(accountId)).toEqual({
      saldo: 6,
      grootboek: 6,
      verbruik: [
        [200, 1],
        [200, 3],
      ],
      afschrijvingen: 2,
      opgeslagen: [
        { sleutel: v[0].sleutel, toestand: 'klaar', antwoord: { n: 0 } },
        { sleutel: v[3].sleutel, toestand: 'klaar', antwoord: { n: 3 } },
      ],
    });
    // The refused charge did not count towards the cap either.
    expect((await db.prisma.apiKey.findUniqueOrThrow({ where: { id: begrensd } })).maandVerbruikt).toBe(0);
  });

  it('item by item: the identical call after a refused one is refused itself, not a replay', async () => {
    const accountId = await account(5);
    const keyId = await sleutel(accountId);
    const v = vastlegging();
    const rijen = await voer('afrekenen_per_item', [item(accountId, keyId, 8, v, 0), item(accountId, keyId, 8, v, 1)]);
    expect(rijen.map((r) => [r.r_ok, r.r_saldo, r.r_limiet, r.r_herhaald])).toEqual([
      [false, 5, false, false],
      [false, 5, false, false],
    ]);
    expect(await sporen(accountId)).toEqual({ saldo: 5, grootboek: 5, verbruik: [], afschrijvingen: 0, opgeslagen: [] });
  });

  for (const reden of ['balance', 'monthly cap'] as const) {
    it(`in one batch: the copy of a call refused for its ${reden} is not charged and keeps no stored answer`, async () => {
      // The first item (another call) spends what the balance or the cap allows; the two identical ones after it are refused.
      const accountId = await account(reden === 'balance' ? 1 : 100);
      const keyId = await sleutel(accountId, reden === 'balance' ? undefined : 1);
      const [ander, v] = [vastlegging(), vastlegging()];
      const rijen = await voer('afrekenen_bundel', [item(accountId, keyId, 1, ander, 0), item(accountId, keyId, 1, v, 1), item(accountId, keyId, 1, v, 2)]);
      expect(rijen.map((r) => [r.r_ok, r.r_limiet, r.r_herhaald, r.r_fout])).toEqual([
        [true, false, false, null],
        [false, reden === 'monthly cap', false, null],
        // Refused as itself, not a replay of its refused original (which would send it round again in Node).
        [false, reden === 'monthly cap', false, null],
      ]);
      expect(await sporen(accountId)).toEqual({
        saldo: reden === 'balance' ? 0 : 99,
        grootboek: reden === 'balance' ? 0 : 99,
        verbruik: [[200, 1]],
        afschrijvingen: 1,
        opgeslagen: [{ sleutel: ander.sleutel, toestand: 'klaar', antwoord: { n: 0 } }],
      });
    });
  }
});

describe(`identical MCP tool calls, the first refused at the settlement (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_MCP_TOOLS_PER_MIN: '1000' });
  });
  afterAll(async () => t?.close());

  type ToolUitkomst = { http: number; isError: boolean; inhoud: { fout?: string; status?: number; meta?: { cached: boolean; gefactureerd_cent: number } } };

  async function roep(key: string, name: string, args: Record<string, unknown>): Promise<ToolUitkomst> {
    const r = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
    const body = r.json() as { result?: { isError?: boolean; structuredContent: ToolUitkomst['inhoud'] } };
    return { http: r.statusCode, isError: body.result?.isError ?? false, inhoud: body.result?.structuredContent ?? (body as ToolUitkomst['inhoud']) };
  }

  for (const reden of ['balance', 'monthly cap'] as const) {
    it(`the copy gets its own 402 (${reden}), not 409: it finds no stored answer and settles alone; nothing charged`, async () => {
      const { accountId, key } = await t.klant(reden === 'balance' ? 1 : 1000);
      const keyId = (await t.db.prisma.apiKey.findFirstOrThrow({ where: { accountId } })).id;
      if (reden === 'monthly cap') await zetMaandlimiet(t.db.prisma, { accountId, keyId, credits: 1 });
      const a = await maakVolledigAdres(t.db.prisma);
      const args = { postcode: a.postcode, huisnummer: a.huisnummer };
      // All three pass the 402 check before their work (1 credit left, or 1 of the cap); at the gate property_address
      // settles first and spends it, then the two identical woz calls settle together in one batch.
      poort.uitkomsten = [];
      poort.gesloten = { aantal: 3, eerst: (x) => x.voorziening === 'adres', wachtend: [] };
      const [adres, woz1, woz2] = await Promise.all([roep(key, 'property_address', args), roep(key, 'woz', args), roep(key, 'woz', args)]);
      expect(poort.gesloten).toBeUndefined();

      expect(adres).toMatchObject({ http: 200, isError: false, inhoud: { meta: { cached: false, gefactureerd_cent: 5 } } });
      const melding = reden === 'balance' ? /^Onvoldoende tegoed: deze opvraging kost 1 credit \(/ : /maandlimiet van deze sleutel is bereikt/;
      for (const woz of [woz1, woz2]) {
        expect(woz.http).toBe(200);
        expect(woz.isError).toBe(true);
        expect(woz.inhoud.status).toBe(402);
        expect(woz.inhoud.fout).toMatch(melding);
        expect(woz.inhoud.fout).not.toMatch(/wordt nog verwerkt/);
      }
      // The path under test was taken: both woz copies settled in one batch, each refused there.
      const weigering = reden === 'balance' ? 'onvoldoende' : 'maandlimiet';
      expect(poort.uitkomsten.filter((u) => u.a.voorziening === 'woz').map((u) => u.soort)).toEqual([weigering, weigering]);

      expect(await leesSaldo(t.db.prisma, accountId)).toBe(reden === 'balance' ? 0 : 999);
      expect(await t.db.prisma.usageRecord.findMany({ where: { accountId }, select: { voorziening: true, status: true, credits: true }, orderBy: { status: 'asc' } })).toEqual(
        // A cap refusal is in the usage list (402, 0 credits), one per refused call; a lack of balance leaves none.
        [{ voorziening: 'adres', status: 200, credits: 1 }, ...(reden === 'monthly cap' ? [1, 2].map(() => ({ voorziening: 'woz', status: 402, credits: 0 })) : [])],
      );
      // Only property_address's answer is stored: the refused woz calls left nothing to replay.
      expect(await t.db.prisma.idempotencyRecord.findMany({ where: { keyId }, select: { scope: true, status: true } })).toEqual([{ scope: 'mcp', status: 200 }]);
      // With room again the same call is done and charged: no refusal (nor unpaid answer) was kept for it.
      if (reden === 'balance') await waardeerOp(t.db.prisma, { accountId, credits: 1 });
      else await zetMaandlimiet(t.db.prisma, { accountId, keyId, credits: 2 });
      expect(await roep(key, 'woz', args)).toMatchObject({ http: 200, isError: false, inhoud: { meta: { cached: false, gefactureerd_cent: 5 } } });
    });
  }

  /** Twelve identical woz calls that all pass the 402 check before their work, and property_address settling first at the gate. */
  async function kopieen() {
    const { accountId, key } = await t.klant(1);
    const a = await maakVolledigAdres(t.db.prisma);
    const args = { postcode: a.postcode, huisnummer: a.huisnummer };
    poort.gesloten = { aantal: 13, eerst: (x) => x.voorziening === 'adres', wachtend: [] };
    const [adres, ...woz] = await Promise.all([roep(key, 'property_address', args), ...Array.from({ length: 12 }, () => roep(key, 'woz', args))]);
    expect(poort.gesloten).toBeUndefined();
    expect(adres.http).toBe(200);
    return { accountId, woz: woz.map((w) => [w.http, w.inhoud.status ?? null]) };
  }

  it('twelve identical calls refused at the settlement: none charged, none replayed, none 409', async () => {
    const { accountId, woz } = await kopieen();
    for (const w of woz) expect([[200, 402], [503, null]]).toContainEqual(w);
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(0);
    expect(await t.db.prisma.usageRecord.count({ where: { accountId } })).toBe(1);
  });

  // Before the batch refused a copy of a refused item as itself, it marked it r_herhaald; each round of
  // src/core/afrekening.ts then refused only a few, and 6 or 7 of the 12 were answered 503, not 402.
  it('twelve identical calls refused at the settlement all get 402, none 503', async () => {
    const { woz } = await kopieen();
    expect(woz).toEqual(woz.map(() => [200, 402]));
  });
});
