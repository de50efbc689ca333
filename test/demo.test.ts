import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { seedDemo } from '../src/seed.ts';
import { DEMO_ADRESSEN, type DemoGeval } from '../src/domain/register/demo/index.ts';

/**
 * What a newcomer sees after the first `npm start`: the same seed path the server runs, then every
 * lookup for the README's demo addresses answers as the README says.
 */
describe(`demo dataset on first start (${dialect})`, () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '1000', RATE_LIMIT_INVLOEDEN_PER_MIN: '1000', DATA_DIR: '.tmp/demo-test' });
    await seedDemo(t.services, t.services.config, t.db);
    key = (await t.klant(10_000)).key;
  }, 300_000);
  afterAll(async () => t?.close());

  const adres = (g: DemoGeval) => {
    const a = DEMO_ADRESSEN.find((x) => x.geval === g)!;
    const toevoeging = a.huisletter && a.toevoeging ? `${a.huisletter}-${a.toevoeging}` : (a.huisletter ?? a.toevoeging);
    return { postcode: a.postcode, huisnummer: String(a.huisnummer), ...(toevoeging ? { toevoeging } : {}) };
  };
  const post = (pad: string, body: object) => t.app.inject({ method: 'POST', url: `/api/v1/inzicht/${pad}`, headers: { authorization: `Bearer ${key}` }, payload: body });

  it('seeding twice changes nothing', async () => {
    const voor = await t.db.prisma.adres.count();
    await seedDemo(t.services, t.services.config, t.db);
    expect(await t.db.prisma.adres.count()).toBe(voor);
    expect(voor).toBeGreaterThanOrEqual(20_000);
    expect(await t.db.prisma.account.count({ where: { naam: 'Demo-account' } })).toBe(1);
  });

  it('every lookup answers for the standard demo address', async () => {
    for (const pad of ['waarde', 'adres', 'woz', 'energielabel', 'woningtype', 'invloeden']) {
      const res = await post(pad, { adres: adres('waardering') });
      expect(res.statusCode, `${pad}: ${res.body}`).toBe(200);
      expect(res.json().meta.bron?.naam ?? '').toMatch(pad === 'waarde' ? /^synthetisch demo-dataset \(fictief\) v1: verkopen \(\d+\)$/ : /synthetisch/);
    }
  });

  it('the apartment is valued in its segment; the hamlet is refused with 422', async () => {
    const app = await post('waarde', { adres: adres('appartement') });
    expect(app.statusCode, app.body).toBe(200);
    const woningtype = await post('woningtype', { adres: adres('appartement') });
    expect(woningtype.json().data.woningtype).toBe('appartement');
    expect((await post('waarde', { adres: adres('te-weinig-verkopen') })).statusCode).toBe(422);
  });

  it('empty answers, ambiguous additions and every influence colour occur', async () => {
    expect((await post('energielabel', { adres: adres('geen-energielabel') })).json().data.label).toBeNull();
    expect((await post('woz', { adres: adres('geen-woz') })).json().data.waarden).toEqual([]);
    const dubbel = await post('adres', { adres: adres('meerduidige-toevoeging') });
    expect(dubbel.statusCode).toBe(404);
    expect(dubbel.json().fout).toMatch(/meerdere adressen/);
    // `A` as huisletter and `A` as toevoeging at one number: the way it is written decides.
    const letter = DEMO_ADRESSEN.find((x) => x.geval === 'letter-of-toevoeging')!;
    const viaLetter = await post('adres', { adres: { postcode: letter.postcode, huisnummer: String(letter.huisnummer), toevoeging: 'A' } });
    const viaToevoeging = await post('adres', { adres: { postcode: letter.postcode, huisnummer: String(letter.huisnummer), toevoeging: '-A' } });
    expect(viaLetter.json().data.adres.weergave).toMatch(new RegExp(`${letter.huisnummer}A,`));
    expect(viaToevoeging.json().data.adres.weergave).toMatch(new RegExp(`${letter.huisnummer}-A,`));
    const kleur = async (g: DemoGeval, type: string) =>
      (await post('invloeden', { adres: adres(g), types: [type] })).json().data.invloeden[0].indicator;
    expect(await kleur('natura2000-rood', 'natura2000')).toBe('rood');
    expect(await kleur('natura2000-oranje', 'natura2000')).toBe('oranje');
    expect(await kleur('hoogspanning-rood', 'hoogspanning')).toBe('rood');
    expect(await kleur('hoogspanning-oranje', 'hoogspanning')).toBe('oranje');
    expect(await kleur('invloeden-groen', 'natura2000')).toBe('groen');
    expect(await kleur('invloeden-groen', 'hoogspanning')).toBe('groen');
  });
});
