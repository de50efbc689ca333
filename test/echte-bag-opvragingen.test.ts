import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { XML_MAP } from './support/hulp.ts';
import { lookup, LOOKUPS } from './support/http.ts';
import { voerImportUit } from '../src/domain/register/import/runner.ts';

/**
 * Every lookup on every address of the real Doesburg BAG sample (test/fixtures/SOURCES.md): houseboats
 * (ligplaats) and caravan pitches (standplaats) have no gebruiksdoelen in the BAG, which the demo data
 * never lacks — `adres` answered 500 on them (its output schema wants an array).
 */
describe(`lookups on the real BAG sample (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '1000', RATE_LIMIT_INVLOEDEN_PER_MIN: '1000' });
    await voerImportUit(t.db, 'bag-xml', XML_MAP);
  });
  afterAll(async () => t?.close());

  it('adres of a ligplaats and a standplaats: 200 with gebruiksdoelen [] (none in the BAG), a verblijfsobject\'s as registered', async () => {
    const { key } = await t.klant(1000);
    const adres = async (postcode: string, huisnummer: string) => {
      const r = await lookup(t, 'adres', key, { adres: { postcode, huisnummer } });
      expect(r.statusCode, r.body).toBe(200);
      return r.json().data;
    };
    expect(await adres('6982CZ', '2')).toMatchObject({ objecttype: 'ligplaats', gebruiksdoelen: [] });
    expect(await adres('6981ED', '1')).toMatchObject({ objecttype: 'standplaats', gebruiksdoelen: [] });
    expect((await adres('6981CH', '4')).gebruiksdoelen.length).toBeGreaterThan(0);
  });

  it('no lookup answers 500 on any address of the sample', async () => {
    const { key } = await t.klant(1000);
    for (const [postcode, huisnummer] of [['6982CZ', '2'], ['6982CZ', '20'], ['6981ED', '1'], ['6981ED', '4'], ['6981CH', '4']]) {
      for (const soort of LOOKUPS) {
        const r = await lookup(t, soort, key, { adres: { postcode, huisnummer } });
        expect(r.statusCode, `${soort} ${postcode} ${huisnummer}: ${r.body}`).toBeLessThan(500);
        expect(r.json().fout ?? 'ok', `${soort} ${postcode} ${huisnummer}`).toMatch(/^[A-Za-z]/);
      }
    }
  });
});
