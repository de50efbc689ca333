/**
 * The batched statements of the hot path (src/db/bundel.ts; SQL functions snelheid_controleer with a
 * count and afrekenen_bundel, migrations 20261122224500_bundels and 20261123010000_afrekenen_in_een_keer,
 * and their batches over keys and accounts, 20261123020000_bundels_over_sleutels): requests that arrive
 * together share one statement, whatever their keys and accounts, and each is still settled exactly as
 * if it were alone.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rekenAf, type Afrekening } from '../src/domain/billing/afrekenen.ts';
import { maakAccount, leesSaldo } from '../src/domain/billing/tegoed.ts';
import { maakSleutel } from '../src/domain/keys/sleutels.ts';
import { controleerLimiet } from '../src/domain/limits/snelheid.ts';
import { energielabel, registerKandidaten, woningtype, wozWaarden } from '../src/domain/register/opvragen.ts';
import { dialect, useTestDatabase } from './support/db.ts';
import { maakAdres, maakVolledigAdres } from './support/register.ts';

const statements: string[] = [];
const db = useTestDatabase({ onQuery: (sql) => statements.push(sql) });
const aantal = (woord: string) => statements.filter((q) => q.includes(woord)).length;

async function klant(credits: number) {
  const acc = await maakAccount(db.prisma, { naam: `bundel ${randomUUID()}`, credits });
  const key = await maakSleutel(db.prisma, { accountId: acc.id, naam: 'bundel' });
  const rij = await db.prisma.apiKey.findFirstOrThrow({ where: { accountId: acc.id } });
  return { accountId: acc.id, keyId: rij.id, voorvoegsel: key.key.slice(0, 12) };
}

function afrekening(k: { accountId: string; keyId: string; voorvoegsel: string }, credits: number): Afrekening {
  return { ...k, kanaal: 'rest', voorziening: 'woz', status: 200, credits, adres: { postcode: '1234AB', huisnummer: 1 }, now: new Date() };
}

async function grootboekKlopt(accountId: string) {
  const [r] = await db.prisma.$queryRaw<{ credits: number; som: number; verbruik: number; afschrijvingen: number }[]>`
    SELECT a.credits,
           (SELECT COALESCE(SUM(g.credits), 0)::int FROM grootboek g WHERE g.account_id = a.id) AS som,
           (SELECT count(*)::int FROM verbruik v WHERE v.account_id = a.id) AS verbruik,
           (SELECT count(*)::int FROM grootboek g WHERE g.account_id = a.id AND g.soort = 'afschrijving') AS afschrijvingen
    FROM account a WHERE a.id = ${accountId}::uuid`;
  expect(r.som).toBe(r.credits);
  expect(r.credits).toBeGreaterThanOrEqual(0);
  return r;
}

describe(`batched hot-path statements (${dialect})`, () => {
  it('charges of one account that arrive together: balance spent first come, first served; never below zero', async () => {
    const k = await klant(5);
    const uit = await Promise.all(Array.from({ length: 6 }, () => rekenAf(db.prisma, afrekening(k, 2))));
    expect(uit.map((u) => u.soort)).toEqual(['ok', 'ok', 'onvoldoende', 'onvoldoende', 'onvoldoende', 'onvoldoende']);
    expect(uit.map((u) => u.saldo)).toEqual([3, 1, 1, 1, 1, 1]);
    const r = await grootboekKlopt(k.accountId);
    expect(r).toMatchObject({ credits: 1, verbruik: 2, afschrijvingen: 2 });
  });

  it('usage and ledger rows get time-ordered keys (UUID version 7), alone and in a batch', async () => {
    const k = await klant(100);
    const voor = Date.now();
    await rekenAf(db.prisma, afrekening(k, 1));
    await Promise.all(Array.from({ length: 4 }, () => rekenAf(db.prisma, afrekening(k, 1))));
    const rijen = await db.prisma.$queryRaw<{ v: string; g: string }[]>`
      SELECT v.id::text AS v, g.id::text AS g FROM verbruik v JOIN grootboek g ON g.usage_id = v.id WHERE v.account_id = ${k.accountId}::uuid`;
    expect(rijen).toHaveLength(5);
    for (const id of rijen.flatMap((r) => [r.v, r.g])) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const ms = Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
      expect(ms).toBeGreaterThanOrEqual(voor - 1000);
      expect(ms).toBeLessThanOrEqual(Date.now() + 1000);
    }
  });

  it('one broken charge in a batch is undone alone: the others in the same statement commit', async () => {
    const k = await klant(100);
    const eerste = rekenAf(db.prisma, afrekening(k, 3));
    // These two go together in the next statement; the middle one carries a claim id that is no uuid.
    const kapot = rekenAf(db.prisma, { ...afrekening(k, 3), idempotentie: { id: 'geen-uuid', antwoord: {} } });
    const derde = rekenAf(db.prisma, afrekening(k, 3));
    expect((await eerste).soort).toBe('ok');
    await expect(kapot).rejects.toThrow(/afrekenen:/);
    expect(await derde).toMatchObject({ soort: 'ok', saldo: 94 });
    const r = await grootboekKlopt(k.accountId);
    expect(r).toMatchObject({ credits: 94, verbruik: 2, afschrijvingen: 2 });
  });

  it('rate-limit checks of one key that arrive together: exactly the limit is admitted, each with its own count', async () => {
    const k = await klant(0);
    const nu = new Date();
    const uit = await Promise.all(Array.from({ length: 12 }, () => controleerLimiet(db.prisma, k.keyId, [{ naam: 'rest', limiet: 5 }], nu)));
    expect(uit.filter((u) => u.toegestaan)).toHaveLength(5);
    expect(uit.filter((u) => u.toegestaan).map((u) => u.standen[0].resterend)).toEqual([4, 3, 2, 1, 0]);
    for (const u of uit.filter((x) => !x.toegestaan)) {
      expect(u.sleutelGeldig).toBe(true);
      expect(u.standen[0].resterend).toBe(0);
      expect(u.retryAfter).toBeGreaterThanOrEqual(1);
      expect(u.retryAfter).toBeLessThanOrEqual(60);
    }
    // The refused ones spent nothing: the window holds exactly 5.
    const [st] = await db.prisma.$queryRaw<{ som: number }[]>`
      SELECT (SELECT sum(x) FROM unnest(tellingen) x)::int AS som FROM snelheid_stand WHERE key_id = ${k.keyId}::uuid AND emmer = 'rest'`;
    expect(st.som).toBe(5);
  });

  it('two buckets: a batch is admitted as far as the fuller bucket allows, and counted in both', async () => {
    const k = await klant(0);
    const nu = new Date();
    const emmers = [
      { naam: 'rest', limiet: 10 },
      { naam: 'rest:invloeden', limiet: 3 },
    ];
    const uit = await Promise.all(Array.from({ length: 6 }, () => controleerLimiet(db.prisma, k.keyId, emmers, nu)));
    expect(uit.filter((u) => u.toegestaan)).toHaveLength(3);
    const rijen = await db.prisma.$queryRaw<{ emmer: string; som: number }[]>`
      SELECT emmer, (SELECT sum(x) FROM unnest(tellingen) x)::int AS som FROM snelheid_stand WHERE key_id = ${k.keyId}::uuid ORDER BY emmer`;
    expect(rijen).toEqual([
      { emmer: 'rest', som: 3 },
      { emmer: 'rest:invloeden', som: 3 },
    ]);
  });

  it('checks of several keys that arrive together share one statement, each key counted against its own rows', async () => {
    const klanten = await Promise.all([klant(0), klant(0), klant(0)]);
    const nu = new Date();
    // One check goes alone first; the 12 that arrive while it is in flight go together next.
    statements.length = 0;
    const eerste = controleerLimiet(db.prisma, klanten[0].keyId, [{ naam: 'rest', limiet: 3 }], nu);
    const uit = await Promise.all(
      Array.from({ length: 12 }, (_, i) => controleerLimiet(db.prisma, klanten[i % 3].keyId, [{ naam: 'rest', limiet: 3 }], nu)),
    );
    await eerste;
    // The first alone, the other 12 (three keys) in one.
    expect(aantal('snelheid_controleer_bundel')).toBe(2);
    // Key 0 had one admitted before: 2 more of its 4; keys 1 and 2: 3 of 4 each.
    const toegelaten = [0, 1, 2].map((k) => uit.filter((u, i) => i % 3 === k && u.toegestaan).length);
    expect(toegelaten).toEqual([2, 3, 3]);
    const rijen = await db.prisma.$queryRaw<{ key_id: string; som: number }[]>`
      SELECT key_id::text, (SELECT sum(x) FROM unnest(tellingen) x)::int AS som FROM snelheid_stand
      WHERE key_id = ANY(${klanten.map((k) => k.keyId)}::uuid[]) AND emmer = 'rest'`;
    expect(rijen.map((r) => r.som)).toEqual([3, 3, 3]);
  });

  it('charges of several accounts that arrive together share one statement; each balance is spent alone, a broken one fails alone', async () => {
    const [a, b, c] = await Promise.all([klant(4), klant(100), klant(100)]);
    statements.length = 0;
    const eerste = rekenAf(db.prisma, afrekening(c, 1));
    const uit = await Promise.all([
      rekenAf(db.prisma, afrekening(a, 3)),
      rekenAf(db.prisma, afrekening(b, 3)),
      rekenAf(db.prisma, afrekening(a, 3)),
      rekenAf(db.prisma, { ...afrekening(c, 3), idempotentie: { id: 'geen-uuid', antwoord: {} } }).catch((e: Error) => e),
      rekenAf(db.prisma, afrekening(c, 3)),
    ]);
    await eerste;
    // The first alone, the other 5 (three accounts) in one.
    expect(aantal('afrekenen_bundels')).toBe(2);
    expect(uit[0]).toMatchObject({ soort: 'ok', saldo: 1 });
    expect(uit[1]).toMatchObject({ soort: 'ok', saldo: 97 });
    expect(uit[2]).toMatchObject({ soort: 'onvoldoende', saldo: 1 });
    expect(String(uit[3])).toMatch(/afrekenen:/);
    expect(uit[4]).toMatchObject({ soort: 'ok', saldo: 96 });
    expect(await grootboekKlopt(a.accountId)).toMatchObject({ credits: 1, verbruik: 1 });
    expect(await grootboekKlopt(b.accountId)).toMatchObject({ credits: 97, verbruik: 1 });
    expect(await grootboekKlopt(c.accountId)).toMatchObject({ credits: 96, verbruik: 2 });
  });

  it('balances asked for together are read in one statement; an unknown or malformed account fails alone', async () => {
    const [a, b] = await Promise.all([klant(7), klant(11)]);
    statements.length = 0;
    const eerste = leesSaldo(db.prisma, a.accountId);
    const uit = await Promise.all([
      leesSaldo(db.prisma, b.accountId),
      leesSaldo(db.prisma, randomUUID()).catch((e: Error) => e),
      leesSaldo(db.prisma, a.accountId.toUpperCase()),
      leesSaldo(db.prisma, 'geen-uuid').catch((e: Error) => e),
      leesSaldo(db.prisma, b.accountId),
    ]);
    expect(await eerste).toBe(7);
    // The first alone, the other four valid ids together; the malformed one never reaches the database.
    expect(aantal('FROM account WHERE id = k.id')).toBe(2);
    expect(uit[0]).toBe(11);
    expect(String(uit[1])).toMatch(/bestaat niet/);
    expect(uit[2]).toBe(7);
    expect(String(uit[3])).toMatch(/bestaat niet/);
    expect(uit[4]).toBe(11);
  });

  it('WOZ values, labels and house types of lookups in flight are read with their addresses, together, each address its own rows', async () => {
    const [vol, kaal] = [await maakVolledigAdres(db.prisma), await maakAdres(db.prisma)];
    statements.length = 0;
    const lees = async (a: { postcode: string; huisnummer: number }) => {
      const [r] = await registerKandidaten(db.prisma, a.postcode, a.huisnummer, null);
      return r;
    };
    const eerste = lees(kaal);
    const rijen = await Promise.all([lees(vol), lees(kaal), lees(vol)]);
    expect(wozWaarden(await eerste).waarden).toEqual([]);
    // The first goes alone and what arrives while it is in flight goes together next: one statement reads the address and its rows.
    expect(aantal('FROM woz_waarde')).toBe(2);
    expect(aantal('FROM energielabel')).toBe(2);
    expect(aantal('FROM woningtype')).toBe(2);
    const woz = rijen.map(wozWaarden);
    const reeks = [
      { peildatum: '2025-01-01', waarde: 425000 },
      { peildatum: '2024-01-01', waarde: 400000 },
    ];
    expect(woz.map((w) => w.waarden)).toEqual([reeks, [], reeks]);
    expect(woz[0].bron).toEqual({ naam: 'testdata', datum: '2025-01-01' });
    expect(woz[1].bron).toBeNull();
    const labels = rijen.map(energielabel);
    expect(labels[0].label).toMatchObject({ label: 'B', registratiedatum: '2021-03-04', geldig_tot: '2031-03-04' });
    expect(labels[1].label).toBeNull();
    expect(labels[2]).toEqual(labels[0]);
    expect(rijen.map((r) => woningtype(r).woningtype?.woningtype ?? null)).toEqual(['tussenwoning', null, 'tussenwoning']);
  });
});
