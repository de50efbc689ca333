import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakAdres, maakVolledigAdres, uniekePostcode } from './support/register.ts';
import { expectFout, lookup, LOOKUPS, saldo, sporen, type Lookup } from './support/http.ts';

/** The five REST lookups (decisions sections 1, 2, 3 and 8): fields, address resolution, 404, empty data, 400. */
describe(`insight lookups over REST (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    // Rate limits are tested in ratelimit.test.ts; here they must not interfere with many calls.
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '100000', RATE_LIMIT_INVLOEDEN_PER_MIN: '100000' });
  });
  afterAll(async () => t?.close());

  function weergave(postcode: string, nummer: string) {
    return `Teststraat ${nummer}, ${postcode.slice(0, 4)} ${postcode.slice(4)} Proefdorp`;
  }

  /** The common envelope of every lookup: data.adres first, meta with every field. */
  function expectEnvelope(body: any, voorziening: Lookup, adres: { postcode: string; huisnummer: number; toevoeging: string | null; nummer: string }, cent: number) {
    expect(Object.keys(body)).toEqual(['data', 'meta']);
    expect(Object.keys(body.data)[0]).toBe('adres');
    expect(body.data.adres).toStrictEqual({
      weergave: weergave(adres.postcode, adres.nummer),
      postcode: adres.postcode,
      huisnummer: adres.huisnummer,
      toevoeging: adres.toevoeging,
    });
    expect(Number.isInteger(body.data.adres.huisnummer)).toBe(true);
    expect(body.meta).toMatchObject({ schema_versie: '1.0', voorziening, cached: false, gefactureerd_cent: cent });
    expect(typeof body.meta.schema).toBe('string');
    expect(body.meta.schema).toMatch(/\/inzicht$/);
    expect(Number.isInteger(body.meta.gefactureerd_cent)).toBe(true);
    expect('bron' in body.meta).toBe(true);
  }

  describe('happy path: every field with its type', () => {
    let key: string;
    let accountId: string;
    let a: Awaited<ReturnType<typeof maakVolledigAdres>>;
    beforeAll(async () => {
      ({ key, accountId } = await t.klant(1000));
      a = await maakVolledigAdres(t.db.prisma);
    });
    const plain = () => ({ postcode: a.postcode, huisnummer: 12, toevoeging: null, nummer: '12' });

    it('adres: BAG characteristics', async () => {
      const voor = await saldo(t, accountId);
      const res = await lookup(t, 'adres', key, adresBody(a));
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expectEnvelope(body, 'adres', plain(), 5);
      expect(body.data).toStrictEqual({
        adres: body.data.adres,
        bag_nummeraanduiding_id: a.id,
        bag_verblijfsobject_id: `${a.id}v`,
        bag_pand_id: `${a.id}p`,
        objecttype: 'verblijfsobject',
        gebruiksdoelen: ['woonfunctie'],
        oppervlakte: 120,
        bouwjaar: 1975,
        status: 'Verblijfsobject in gebruik',
        straat: 'Teststraat',
        woonplaats: 'Proefdorp',
        gemeente: 'Proefgemeente',
        buurt: { code: 'BU99990101', naam: 'Centrum' },
        wijk: { code: 'WK999901', naam: 'Oud' },
        coordinaten: { lat: 52.1, lon: 5.1 },
      });
      expect(body.meta.bron).toStrictEqual({ naam: 'testdata', datum: null });
      expect(await saldo(t, accountId)).toBe(voor - 1);
    });

    it('woz: the series newest first, whole euros, Y-m-d dates', async () => {
      const voor = await saldo(t, accountId);
      const res = await lookup(t, 'woz', key, adresBody(a));
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expectEnvelope(body, 'woz', plain(), 5);
      expect(body.data).toStrictEqual({
        adres: body.data.adres,
        waarden: [
          { peildatum: '2025-01-01', waarde: 425000 },
          { peildatum: '2024-01-01', waarde: 400000 },
        ],
      });
      expect(body.meta.bron).toMatchObject({ naam: 'testdata' });
      expect(body.meta.bron.datum === null || /^\d{4}-\d{2}-\d{2}$/.test(body.meta.bron.datum)).toBe(true);
      expect(await saldo(t, accountId)).toBe(voor - 1);
    });

    it('energielabel: label, dates, opnametype, energie_index', async () => {
      const voor = await saldo(t, accountId);
      const res = await lookup(t, 'energielabel', key, adresBody(a));
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expectEnvelope(body, 'energielabel', plain(), 5);
      expect(body.data).toStrictEqual({
        adres: body.data.adres,
        label: 'B',
        registratiedatum: '2021-03-04',
        geldig_tot: '2031-03-04',
        opnametype: 'Basisopname',
        energie_index: 1.23,
      });
      expect(body.meta.bron).toMatchObject({ naam: 'testdata' });
      expect(await saldo(t, accountId)).toBe(voor - 1);
    });

    it('woningtype: the type and how it was derived', async () => {
      const voor = await saldo(t, accountId);
      const res = await lookup(t, 'woningtype', key, adresBody(a));
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expectEnvelope(body, 'woningtype', plain(), 5);
      expect(body.data).toStrictEqual({ adres: body.data.adres, woningtype: 'tussenwoning', afgeleid_uit: 'test' });
      expect(await saldo(t, accountId)).toBe(voor - 1);
    });

    it('invloeden: the core set natura2000 and hoogspanning without types, 16 credits', async () => {
      const voor = await saldo(t, accountId);
      const res = await lookup(t, 'invloeden', key, adresBody(a));
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expectEnvelope(body, 'invloeden', plain(), 80);
      expect(Object.keys(body.data)).toEqual(['adres', 'invloeden']);
      expect(body.data.invloeden).toHaveLength(2);
      expect(body.data.invloeden).toEqual(
        expect.arrayContaining([
          { type: 'natura2000', indicator: 'groen', afstand_m: 1800, omschrijving: 'Ver van Natura 2000.' },
          { type: 'hoogspanning', indicator: 'oranje', afstand_m: 120, omschrijving: 'Hoogspanningslijn op 120 m.' },
        ]),
      );
      for (const i of body.data.invloeden) expect(Object.keys(i).sort()).toEqual(['afstand_m', 'indicator', 'omschrijving', 'type']);
      expect(await saldo(t, accountId)).toBe(voor - 16);
    });

    it('invloeden: a subset of types returns only those types', async () => {
      const res = await lookup(t, 'invloeden', key, { ...adresBody(a), types: ['hoogspanning'] });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.invloeden).toStrictEqual([{ type: 'hoogspanning', indicator: 'oranje', afstand_m: 120, omschrijving: 'Hoogspanningslijn op 120 m.' }]);
      expect(res.json().meta.gefactureerd_cent).toBe(80);
    });

    it('invloeden: an unknown type, or an empty list of types, is a 400 and not charged', async () => {
      const voor = await sporen(t, accountId);
      expect(expectFout(await lookup(t, 'invloeden', key, { ...adresBody(a), types: ['natura2000', 'kerncentrale'] }), 400)).toMatch(/type/);
      expectFout(await lookup(t, 'invloeden', key, { ...adresBody(a), types: [] }), 400);
      expectFout(await lookup(t, 'invloeden', key, { ...adresBody(a), types: 'natura2000' }), 400);
      expect(await sporen(t, accountId)).toEqual(voor);
    });
  });

  describe('address resolution (decisions section 8)', () => {
    let key: string;
    let accountId: string;
    let postcode: string;
    beforeAll(async () => {
      ({ key, accountId } = await t.klant(1000));
      postcode = uniekePostcode();
      // Number 12 has only additions: 12A, 12A-2 and 12-2. Number 14 is plain beside 14B.
      await maakAdres(t.db.prisma, { postcode, huisnummer: 12, huisletter: 'A' });
      await maakAdres(t.db.prisma, { postcode, huisnummer: 12, huisletter: 'A', toevoeging: '2' });
      await maakAdres(t.db.prisma, { postcode, huisnummer: 12, toevoeging: '2' });
      await maakAdres(t.db.prisma, { postcode, huisnummer: 14 });
      await maakAdres(t.db.prisma, { postcode, huisnummer: 14, huisletter: 'B' });
    });

    const body = (pc: string, nr: string, toevoeging?: string | null) => ({ adres: { postcode: pc, huisnummer: nr, ...(toevoeging !== undefined ? { toevoeging } : {}) } });

    it('a postcode with a space and lower case letters is normalised', async () => {
      const spaced = `${postcode.slice(0, 4)} ${postcode.slice(4).toLowerCase()}`;
      const res = await lookup(t, 'adres', key, body(spaced, '14'));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.adres).toStrictEqual({ weergave: weergave(postcode, '14'), postcode, huisnummer: 14, toevoeging: null });
    });

    it.each([
      ['A', '12A', 'A'],
      ['a', '12A', 'A'],
      ['A-2', '12A-2', 'A-2'],
      ['A 2', '12A-2', 'A-2'],
      ['a2', '12A-2', 'A-2'],
      ['-2', '12-2', '-2'],
      ['2', '12-2', '-2'],
    ])('toevoeging %j resolves to %s', async (toevoeging, nummer, getoond) => {
      const res = await lookup(t, 'adres', key, body(postcode, '12', toevoeging));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.adres).toStrictEqual({ weergave: weergave(postcode, nummer), postcode, huisnummer: 12, toevoeging: getoond });
    });

    it('several additions at one number without toevoeging -> 404 listing the valid additions, not charged', async () => {
      const voor = await sporen(t, accountId);
      for (const v of LOOKUPS) {
        for (const zonder of [undefined, null, '']) {
          const fout = expectFout(await lookup(t, v, key, body(postcode, '12', zonder)), 404, `${v} ${zonder}`);
          for (const optie of ['A', 'A-2', '2']) expect(fout, `${v}: ${fout}`).toContain(optie);
          expect(fout).toMatch(/toevoeging/i);
        }
      }
      const na = await sporen(t, accountId);
      expect(na.credits).toBe(voor.credits);
      expect(na.ledger).toBe(voor.ledger);
    });

    it('the plain number resolves when it exists beside additions', async () => {
      for (const zonder of [undefined, null, '']) {
        const res = await lookup(t, 'adres', key, body(postcode, '14', zonder));
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().data.adres).toMatchObject({ weergave: weergave(postcode, '14'), huisnummer: 14, toevoeging: null });
      }
      const b = await lookup(t, 'adres', key, body(postcode, '14', 'b'));
      expect(b.json().data.adres).toMatchObject({ weergave: weergave(postcode, '14B'), toevoeging: 'B' });
    });

    it('an unknown address, number or addition -> 404 on every lookup, not charged', async () => {
      const voor = await sporen(t, accountId);
      const onbekend = [body(uniekePostcode(), '12'), body(postcode, '99999'), body(postcode, '12', 'Z'), body(postcode, '14', 'A')];
      for (const v of LOOKUPS) {
        for (const b of onbekend) expect(expectFout(await lookup(t, v, key, b), 404, `${v} ${JSON.stringify(b)}`)).toMatch(/niet gevonden|onbekend/i);
      }
      const na = await sporen(t, accountId);
      expect(na.credits).toBe(voor.credits);
      expect(na.ledger).toBe(voor.ledger);
      const usage = await t.db.prisma.usageRecord.findMany({ where: { accountId, status: 404 } });
      expect(usage.every((u) => u.credits === 0 && u.gefactureerdCent === 0)).toBe(true);
    });
  });

  describe('an address known to the register, a lookup that holds nothing for it', () => {
    it('200 with null / empty data, gefactureerd_cent 0 and an unchanged balance', async () => {
      const { key, accountId } = await t.klant(100);
      const a = await maakAdres(t.db.prisma);
      const adres = { weergave: weergave(a.postcode, '12'), postcode: a.postcode, huisnummer: 12, toevoeging: null };
      const verwacht: Record<Exclude<Lookup, 'adres'>, Record<string, unknown>> = {
        woz: { adres, waarden: [] },
        energielabel: { adres, label: null, registratiedatum: null, geldig_tot: null, opnametype: null, energie_index: null },
        woningtype: { adres, woningtype: null, afgeleid_uit: null },
        invloeden: {
          adres,
          invloeden: expect.arrayContaining([
            expect.objectContaining({ type: 'natura2000', indicator: null, afstand_m: null }),
            expect.objectContaining({ type: 'hoogspanning', indicator: null, afstand_m: null }),
          ]),
        },
      };
      const voor = await sporen(t, accountId);
      for (const [v, data] of Object.entries(verwacht)) {
        const res = await lookup(t, v, key, adresBody(a));
        expect(res.statusCode, `${v}: ${res.body}`).toBe(200);
        const b = res.json();
        expect(b.data, v).toEqual(data);
        expect(b.meta, v).toMatchObject({ voorziening: v, cached: false, gefactureerd_cent: 0, schema_versie: '1.0' });
      }
      const na = await sporen(t, accountId);
      expect(na.credits).toBe(voor.credits);
      expect(na.ledger).toBe(voor.ledger);
    });

    it('invloeden for held data but only of unasked types is free too', async () => {
      const { key, accountId } = await t.klant(100);
      const a = await maakVolledigAdres(t.db.prisma);
      const res = await lookup(t, 'invloeden', key, { ...adresBody(a), types: ['geluid', 'overstroming'] });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.invloeden.map((i: { indicator: unknown }) => i.indicator)).toEqual([null, null]);
      expect(res.json().meta.gefactureerd_cent).toBe(0);
      expect(await saldo(t, accountId)).toBe(100);
    });
  });

  describe('400 for bad input, on every lookup, never charged', () => {
    const goed = { postcode: '1234AB', huisnummer: '12' };
    const slecht: [string, unknown][] = [
      ['postcode beginning with 0', { adres: { ...goed, postcode: '0123AB' } }],
      ['postcode without letters', { adres: { ...goed, postcode: '1234' } }],
      ['postcode letters first', { adres: { ...goed, postcode: 'ABCD12' } }],
      ['empty postcode', { adres: { ...goed, postcode: '' } }],
      ['huisnummer 0', { adres: { ...goed, huisnummer: '0' } }],
      ['huisnummer -1', { adres: { ...goed, huisnummer: '-1' } }],
      ['huisnummer 12x', { adres: { ...goed, huisnummer: '12x' } }],
      ['huisnummer 100000', { adres: { ...goed, huisnummer: '100000' } }],
      ['toevoeging over 6 characters', { adres: { ...goed, toevoeging: 'ABCDEFG' } }],
      ['unknown types', { adres: goed, types: ['onbekend'] }],
      ['huisnummer 0 as a JSON number', { adres: { ...goed, huisnummer: 0 } }],
      ['huisnummer as a JSON fraction', { adres: { ...goed, huisnummer: 12.5 } }],
      ['postcode as a JSON number', { adres: { ...goed, postcode: 1234 } }],
      ['adres as a string', { adres: '1234AB 12' }],
      ['adres as an array', { adres: ['1234AB', '12'] }],
      ['adres null', { adres: null }],
      ['nested object in postcode', { adres: { postcode: { x: 1 }, huisnummer: '12' } }],
      ['unknown top-level field', { adres: goed, straat: 'Teststraat' }],
      ['unknown field in adres', { adres: { ...goed, straat: 'Teststraat' } }],
      ['missing adres', {}],
      ['body is an array', [goed]],
      ['malformed JSON', '{"adres": {"postcode": "1234AB", '],
    ];

    it.each(LOOKUPS)('%s answers 400 {"fout"} in Dutch for each bad input', async (v) => {
      const { key, accountId } = await t.klant(100);
      // The address exists, so any bad input that slipped through would be answered (and charged).
      await maakVolledigAdres(t.db.prisma, { postcode: uniekePostcode() });
      const voor = await sporen(t, accountId);
      for (const [naam, payload] of slecht) {
        const fout = expectFout(await lookup(t, v, key, payload), 400, `${v}: ${naam}`);
        expect(fout, `${v}: ${naam}`).toMatch(/ongeldig|verwacht|onbekend|JSON/i);
      }
      expect(await sporen(t, accountId)).toEqual(voor);
    });

    it('the messages say what is wrong and where', async () => {
      const { key } = await t.klant(10);
      expect(expectFout(await lookup(t, 'woz', key, { adres: { ...goed, postcode: '0123AB' } }), 400)).toMatch(/postcode/);
      expect(expectFout(await lookup(t, 'woz', key, { adres: { ...goed, huisnummer: '100000' } }), 400)).toMatch(/huisnummer/);
      expect(expectFout(await lookup(t, 'woz', key, { adres: { ...goed, toevoeging: 'ABCDEFG' } }), 400)).toMatch(/toevoeging/);
      expect(expectFout(await lookup(t, 'woz', key, { adres: goed, straat: 'x' }), 400)).toMatch(/straat/);
      expect(expectFout(await lookup(t, 'woz', key, '{nope'), 400)).toMatch(/JSON/);
    });
  });
});
