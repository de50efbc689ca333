import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakAdres } from './support/register.ts';
import { maakVerkopen } from './support/verkopen.ts';

const URL = '/api/v1/inzicht/waarde';

describe(`POST /api/v1/inzicht/waarde (${dialect})`, () => {
  let t: TestApp;
  let subject: Awaited<ReturnType<typeof maakAdres>>;
  let afgelegen: Awaited<ReturnType<typeof maakAdres>>;
  let oudste: string;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '1000' });
    const verkopen = await maakVerkopen(t.db.prisma, { lat: 52.1, lon: 5.1, n: 600, van: '2020-01-01', tot: '2026-10-31' });
    oudste = verkopen.map((v) => v.transactiedatum.toISOString().slice(0, 10)).sort()[0];
    subject = await maakAdres(t.db.prisma, { lat: 52.1, lon: 5.1, oppervlakte: 110 });
    await t.db.prisma.woningtype.create({ data: { adresId: subject.id, woningtype: 'tussenwoning', afgeleidUit: 'test', bron: 'testdata' } });
    afgelegen = await maakAdres(t.db.prisma, { lat: 53.4, lon: 6.8, oppervlakte: 110 });
  });
  afterAll(async () => t?.close());

  async function post(key: string, body: unknown, headers: Record<string, string> = {}) {
    return t.app.inject({ method: 'POST', url: URL, headers: { authorization: `Bearer ${key}`, ...headers }, payload: body as object });
  }

  it('answers every contract field with the right type and charges 90 cent', async () => {
    const { accountId, key } = await t.klant(100);
    const res = await post(key, adresBody(subject));
    expect(res.statusCode, res.body).toBe(200);
    const { data, meta } = res.json();
    expect(Object.keys(data)).toEqual(['adres', 'marktwaarde', 'min', 'max', 'betrouwbaarheid', 'kans_binnen_10_procent', 'peildatum', 'valuta']);
    expect(data.kans_binnen_10_procent).toBeGreaterThanOrEqual(0);
    expect(data.kans_binnen_10_procent).toBeLessThanOrEqual(1);
    expect(data.betrouwbaarheid === 'hoog').toBe(data.kans_binnen_10_procent >= 0.9);
    expect(data.adres).toEqual({ weergave: expect.stringMatching(/^Teststraat 12, \d{4} [A-Z]{2} Proefdorp$/), postcode: subject.postcode, huisnummer: 12, toevoeging: null });
    for (const k of ['marktwaarde', 'min', 'max']) expect(Number.isInteger(data[k])).toBe(true);
    expect(data.min).toBeLessThanOrEqual(data.marktwaarde);
    expect(data.marktwaarde).toBeLessThanOrEqual(data.max);
    expect(['hoog', 'normaal', 'laag']).toContain(data.betrouwbaarheid);
    expect(data.peildatum).toBe('2026-11-22');
    expect(data.valuta).toBe('EUR');
    expect(meta).toMatchObject({ schema: expect.stringMatching(/\/inzicht$/), schema_versie: '1.0', voorziening: 'waarde', cached: false, gefactureerd_cent: 90 });
    expect(meta.model_versie).toEqual(expect.any(String));
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(82);
    // A value in the range the synthetic market implies (~4,000 €/m² at 80 m², growing).
    expect(data.marktwaarde).toBeGreaterThan(250_000);
    expect(data.marktwaarde).toBeLessThan(700_000);
  });

  it('a peildatum in the past changes the answer; a future one is 400 and free', async () => {
    const { accountId, key } = await t.klant(100);
    const nu = (await post(key, adresBody(subject))).json().data;
    const toen = await post(key, { ...adresBody(subject), peildatum: '2022-06-30' });
    expect(toen.statusCode, toen.body).toBe(200);
    expect(toen.json().data.peildatum).toBe('2022-06-30');
    expect(toen.json().data.marktwaarde).not.toBe(nu.marktwaarde);
    const voor = (await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits;
    const toekomst = await post(key, { ...adresBody(subject), peildatum: '2026-11-23' });
    expect(toekomst.statusCode).toBe(400);
    expect(toekomst.json().fout).toMatch(/toekomst/);
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(voor);
  });

  it('woonoppervlakte: 19, 2001, "abc", 20.5 and "100" are 400; 20 and 2000 are accepted and change the value', async () => {
    const { key } = await t.klant(200);
    for (const w of [19, 2001, 'abc', 20.5, '100', null]) {
      const res = await post(key, { ...adresBody(subject), woonoppervlakte: w });
      expect(res.statusCode, `${w}: ${res.body}`).toBe(400);
      expect(res.json().fout).toMatch(/woonoppervlakte/);
    }
    const klein = await post(key, { ...adresBody(subject), woonoppervlakte: 60 });
    const groot = await post(key, { ...adresBody(subject), woonoppervlakte: 200 });
    expect(klein.statusCode, klein.body).toBe(200);
    expect(groot.json().data.marktwaarde).toBeGreaterThan(klein.json().data.marktwaarde);
    for (const w of [20, 2000]) {
      const res = await post(key, { ...adresBody(subject), woonoppervlakte: w });
      expect([200, 422], `${w}: ${res.body}`).toContain(res.statusCode);
    }
  });

  it('too few comparable sales: 422 with no number, charged 18 credits', async () => {
    const { accountId, key } = await t.klant(100);
    const res = await post(key, adresBody(afgelegen));
    expect(res.statusCode, res.body).toBe(422);
    expect(Object.keys(res.json())).toEqual(['fout']);
    expect(res.body).not.toMatch(/marktwaarde|"min"|"max"/);
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(82);
    const usage = await t.db.prisma.usageRecord.findFirstOrThrow({ where: { accountId } });
    expect(usage).toMatchObject({ voorziening: 'waarde', status: 422, credits: 18, gefactureerdCent: 90 });
  });

  async function credits(accountId: string) {
    return (await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits;
  }

  it('an address without woonfunctie (shop, office, berth) is a free 422 saying it is not a dwelling, also with woonoppervlakte', async () => {
    const { accountId, key } = await t.klant(100);
    const winkel = await maakAdres(t.db.prisma, { lat: 52.1, lon: 5.1, oppervlakte: 110, gebruiksdoelen: ['winkelfunctie'] });
    await t.db.prisma.woningtype.create({ data: { adresId: winkel.id, woningtype: 'overig', afgeleidUit: 'test', bron: 'testdata' } });
    const kantoor = await maakAdres(t.db.prisma, { lat: 52.1, lon: 5.1, oppervlakte: 302, gebruiksdoelen: ['kantoorfunctie', 'bijeenkomstfunctie'] });
    const ligplaats = await maakAdres(t.db.prisma, { lat: 52.1, lon: 5.1, oppervlakte: null, objectType: 'ligplaats', gebruiksdoelen: [] });
    for (const [a, body, wat] of [
      [winkel, adresBody(winkel), /gebruiksdoel winkelfunctie/],
      [kantoor, adresBody(kantoor), /gebruiksdoel kantoorfunctie, bijeenkomstfunctie/],
      [kantoor, { ...adresBody(kantoor), woonoppervlakte: 120 }, /kantoorfunctie/],
      [ligplaats, { ...adresBody(ligplaats), woonoppervlakte: 80 }, /een ligplaats/],
    ] as const) {
      const res = await post(key, body);
      expect(res.statusCode, `${a.postcode}: ${res.body}`).toBe(422);
      expect(res.json().fout).toMatch(/^Dit adres is geen woning: /);
      expect(res.json().fout).toMatch(wat);
      expect(res.json().fout).toMatch(/geen woonfunctie/);
      expect(res.headers['insight-gefactureerd-cent']).toBe('0');
    }
    expect(await credits(accountId)).toBe(100);
    // A home with a second use is a home.
    const metPraktijk = await maakAdres(t.db.prisma, { lat: 52.1, lon: 5.1, oppervlakte: 110, gebruiksdoelen: ['woonfunctie', 'kantoorfunctie'] });
    expect((await post(key, adresBody(metPraktijk))).statusCode).toBe(200);
  });

  it('a held area below 20 m² (a BAG placeholder such as 1) counts as unknown: free 422 asking for woonoppervlakte, which then values it', async () => {
    const { accountId, key } = await t.klant(100);
    for (const oppervlakte of [1, 19, null]) {
      const a = await maakAdres(t.db.prisma, { lat: 52.1, lon: 5.1, oppervlakte });
      const res = await post(key, adresBody(a));
      expect(res.statusCode, `${oppervlakte}: ${res.body}`).toBe(422);
      expect(res.json().fout).toMatch(/^De woonoppervlakte van dit adres is onbekend.*geef woonoppervlakte mee \(20 tot en met 2000 m²\)\.$/);
      if (oppervlakte) expect(res.json().fout).toContain(`de BAG vermeldt ${oppervlakte} m²`);
      expect(res.headers['insight-gefactureerd-cent']).toBe('0');
      expect((await post(key, { ...adresBody(a), woonoppervlakte: 100 })).statusCode).toBe(200);
    }
    expect(await credits(accountId)).toBe(100 - 3 * 18);
  });

  it('a home not built at the peildatum, or never or no longer there, is a free 422', async () => {
    const { accountId, key } = await t.klant(100);
    const nieuwbouw = await maakAdres(t.db.prisma, { lat: 52.1, lon: 5.1, bouwjaar: 2026 });
    const gevormd = await maakAdres(t.db.prisma, { lat: 52.1, lon: 5.1, bouwjaar: 2026, status: 'Verblijfsobject gevormd' });
    const nooit = await maakAdres(t.db.prisma, { lat: 52.1, lon: 5.1, status: 'Niet gerealiseerd verblijfsobject' });
    const weg = await maakAdres(t.db.prisma, { lat: 52.1, lon: 5.1, status: 'Verblijfsobject ingetrokken' });
    for (const [body, fout] of [
      [{ ...adresBody(nieuwbouw), peildatum: '2021-06-01' }, /^Deze woning is volgens de BAG gebouwd in 2026, na de peildatum 2021-06-01: op die datum bestond ze nog niet\.$/],
      [adresBody(gevormd), /^Deze woning is volgens de BAG nog niet gebouwd \(status 'Verblijfsobject gevormd'\)/],
      [adresBody(nooit), /^Deze woning bestaat volgens de BAG niet of niet meer \(status 'Niet gerealiseerd verblijfsobject'\)/],
      [adresBody(weg), /status 'Verblijfsobject ingetrokken'/],
    ] as const) {
      const res = await post(key, body);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().fout).toMatch(fout);
      expect(res.headers['insight-gefactureerd-cent']).toBe('0');
    }
    expect(await credits(accountId)).toBe(100);
    // Built in the peildatum's year: valued.
    expect((await post(key, { ...adresBody(nieuwbouw), peildatum: '2026-06-01' })).statusCode).toBe(200);
  });

  it('a peildatum on or before the oldest held sale is a free 422 naming that sale date', async () => {
    const { accountId, key } = await t.klant(100);
    for (const peildatum of ['1975-01-01', '2019-01-01', oudste]) {
      const res = await post(key, { ...adresBody(subject), peildatum });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().fout).toBe(`Voor peildatum ${peildatum} zijn geen verkopen bekend: de oudste verkoop in de gegevens is van ${oudste}. Kies een peildatum na die datum.`);
      expect(res.headers['insight-gefactureerd-cent']).toBe('0');
    }
    expect(await credits(accountId)).toBe(100);
  });

  it('an unknown address is 404 and not charged', async () => {
    const { accountId, key } = await t.klant(100);
    const res = await post(key, { adres: { postcode: '9999ZZ', huisnummer: '1' } });
    expect(res.statusCode).toBe(404);
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(100);
  });

  it('an idempotent replay returns the stored answer without charging again', async () => {
    const { accountId, key } = await t.klant(100);
    const eerste = await post(key, adresBody(subject), { 'idempotency-key': 'waarde-1' });
    const tweede = await post(key, adresBody(subject), { 'idempotency-key': 'waarde-1' });
    expect(tweede.statusCode).toBe(200);
    expect(tweede.headers['idempotent-replayed']).toBe('true');
    expect(tweede.json().data).toEqual(eerste.json().data);
    expect(tweede.json().meta).toMatchObject({ cached: true, gefactureerd_cent: 0 });
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(82);
  });

  it('the 402 comes before any work when the balance is below 18 credits', async () => {
    const { accountId, key } = await t.klant(17);
    const res = await post(key, adresBody(subject));
    expect(res.statusCode).toBe(402);
    expect(res.json().fout).toMatch(/18 credits.*17 credits/);
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(17);
  });
});
