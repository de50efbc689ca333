import { beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_ADRESSEN,
  DEMO_BRON,
  DEMO_PRIJSMODEL,
  type DemoDataset,
  demoHash,
  generateDemoDataset,
  kiesDemoAdressen,
  loadDemoDataset,
} from '../../src/domain/register/demo/index.ts';
import { bouwjaarEffect } from '../../src/domain/register/demo/prijsmodel.ts';
import { computeInvloeden } from '../../src/domain/register/invloeden.ts';
import { resolveAdresId, resolveAdresIds } from '../../src/domain/register/parsers/gedeeld.ts';
import { useTestDatabase } from '../support/db.ts';

let ds: DemoDataset;
beforeAll(async () => {
  ds = await generateDemoDataset(1);
}, 60_000);

function haversine(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(a));
}

/** Least squares by the normal equations (small k). */
function ols(X: number[][], y: number[]): { beta: number[]; sd: number } {
  const k = X[0].length;
  const A = Array.from({ length: k }, () => new Array<number>(k + 1).fill(0));
  for (let i = 0; i < X.length; i++) {
    for (let a = 0; a < k; a++) {
      A[a][k] += X[i][a] * y[i];
      for (let b = 0; b < k; b++) A[a][b] += X[i][a] * X[i][b];
    }
  }
  for (let c = 0; c < k; c++) {
    let p = c;
    for (let r = c + 1; r < k; r++) if (Math.abs(A[r][c]) > Math.abs(A[p][c])) p = r;
    [A[c], A[p]] = [A[p], A[c]];
    for (let r = 0; r < k; r++) {
      if (r === c) continue;
      const f = A[r][c] / A[c][c];
      for (let j = c; j <= k; j++) A[r][j] -= f * A[c][j];
    }
  }
  const beta = A.map((row, i) => row[k] / row[i]);
  let ss = 0;
  for (let i = 0; i < X.length; i++) ss += (y[i] - X[i].reduce((s, x, j) => s + x * beta[j], 0)) ** 2;
  return { beta, sd: Math.sqrt(ss / (X.length - k)) };
}

describe('generateDemoDataset', () => {
  it('is deterministic: the same seed gives the same hash, another seed another', async () => {
    const h = demoHash(ds);
    expect(demoHash(await generateDemoDataset(1))).toBe(h);
    expect(demoHash(await generateDemoDataset(2))).not.toBe(h);
  }, 60_000);

  it('has >= 20 000 fictional addresses with BAG-like fields and bron on every row', () => {
    expect(ds.adres.length).toBeGreaterThanOrEqual(20_000);
    expect(ds.adres.length).toBeLessThanOrEqual(27_000);
    for (const [tabel, rijen] of Object.entries(ds)) {
      expect(rijen.length, tabel).toBeGreaterThan(0);
      for (const r of rijen as { bron: string }[]) expect(r.bron).toBe(DEMO_BRON);
    }
    const ids = new Set(ds.adres.map((a) => a.id));
    expect(ids.size).toBe(ds.adres.length);
    for (const a of ds.adres) {
      expect(a.id).toMatch(/^9999200\d{9}$/);
      expect(a.postcode).toMatch(/^[1-9]\d{3}(SA|SD|SS)$/);
      expect(a.lat).toBeGreaterThan(50.7);
      expect(a.lat).toBeLessThan(53.6);
      expect(a.lon).toBeGreaterThan(3.3);
      expect(a.lon).toBeLessThan(7.3);
      expect(a.rd_x).toBeGreaterThan(0);
      expect(a.gebruiksdoelen.length).toBeGreaterThan(0);
      expect(a.oppervlakte).toBeGreaterThan(0);
      expect(a.buurt_code).toMatch(/^BU9999\d{4}$/);
    }
    expect(new Set(ds.adres.map((a) => a.status))).toEqual(new Set(['Verblijfsobject in gebruik', 'Verblijfsobject in gebruik (niet ingemeten)', 'Verblijfsobject gevormd']));
    const pandIds = new Set(ds.pand.map((p) => p.id));
    expect(ds.adres.every((a) => pandIds.has(a.pand_id!))).toBe(true);
    expect(ds.woningtype.every((w) => w.afgeleid_uit === 'synthetisch')).toBe(true);
  });

  it('covers every house type and the addition variants (12A, 12-2, ambiguous ones)', () => {
    const per = new Map<string, number>();
    for (const w of ds.woningtype) per.set(w.woningtype, (per.get(w.woningtype) ?? 0) + 1);
    for (const t of ['vrijstaand', 'twee-onder-een-kap', 'hoekwoning', 'tussenwoning', 'appartement', 'overig']) expect(per.get(t) ?? 0, t).toBeGreaterThan(100);
    expect(ds.adres.some((a) => a.huisletter !== null && a.toevoeging === null)).toBe(true);
    expect(ds.adres.some((a) => a.huisletter === null && /^\d+$/.test(a.toevoeging ?? ''))).toBe(true);
    const perNummer = new Map<string, number>();
    for (const a of ds.adres) perNummer.set(`${a.postcode}|${a.huisnummer}`, (perNummer.get(`${a.postcode}|${a.huisnummer}`) ?? 0) + 1);
    expect([...perNummer.values()].filter((n) => n > 1).length).toBeGreaterThan(50);
    const keys = new Set(ds.adres.map((a) => `${a.postcode}|${a.huisnummer}|${a.huisletter}|${a.toevoeging}`));
    expect(keys.size).toBe(ds.adres.length);
  });

  it('has every influence colour for both core types, equal to computeInvloeden', () => {
    const kleuren = new Set(ds.adres_invloed.map((r) => `${r.type}:${r.indicator}`));
    for (const t of ['natura2000', 'hoogspanning']) for (const k of ['rood', 'oranje', 'groen']) expect(kleuren.has(`${t}:${k}`), `${t}:${k}`).toBe(true);
    expect(ds.adres_invloed).toHaveLength(2 * ds.adres.length);
    const steekproef = ds.adres.filter((_, i) => i % 97 === 0);
    const opnieuw = computeInvloeden(ds.invloed_object, steekproef);
    const bekend = new Map(ds.adres_invloed.map((r) => [`${r.adres_id}|${r.type}`, r]));
    for (const r of opnieuw) expect(bekend.get(`${r.adres_id}|${r.type}`)).toMatchObject({ indicator: r.indicator, afstand_m: r.afstand_m });
    expect(ds.adres_invloed.filter((r) => r.indicator === 'rood' && r.type === 'natura2000').every((r) => r.afstand_m === 0)).toBe(true);
  });

  it('leaves gaps: homes without a label, without WOZ; WOZ series newest first', () => {
    const label = new Set(ds.energielabel.map((r) => r.adres_id));
    const woz = new Set(ds.woz_waarde.map((r) => r.adres_id));
    const woningen = ds.woningtype.filter((w) => w.woningtype !== 'overig').map((w) => w.adres_id);
    expect(woningen.filter((id) => !label.has(id)).length).toBeGreaterThan(1000);
    expect(woningen.filter((id) => !woz.has(id)).length).toBeGreaterThan(200);
    expect(new Set(ds.energielabel.map((r) => r.label))).toEqual(new Set(['A++++', 'A+++', 'A++', 'A+', 'A', 'B', 'C', 'D', 'E', 'F', 'G']));
    let vorige = '';
    let datum = Infinity;
    let meerdere = 0;
    for (const w of ds.woz_waarde) {
      if (w.adres_id === vorige) {
        expect(w.peildatum.getTime()).toBeLessThan(datum);
        meerdere++;
      }
      vorige = w.adres_id!;
      datum = w.peildatum.getTime();
    }
    expect(meerdere).toBeGreaterThan(ds.woz_waarde.length / 2);
  });

  it('has six years of sales up to late summer 2026, both segments, and a hamlet with 2 sales > 10 km away', () => {
    const datums = ds.verkoop.map((v) => v.transactiedatum.getTime());
    expect(new Date(Math.min(...datums)).toISOString().slice(0, 10) <= '2021-09-01').toBe(true);
    expect(new Date(Math.max(...datums)).toISOString().slice(0, 10)).toMatch(/^2026-0[6-8]/);
    expect((Math.max(...datums) - Math.min(...datums)) / (365.25 * 86_400_000)).toBeGreaterThan(5);
    const app = ds.verkoop.filter((v) => v.woningtype === 'appartement').length;
    expect(app).toBeGreaterThan(1500);
    expect(ds.verkoop.length - app).toBeGreaterThan(1500);
    const gehucht = ds.adres.filter((a) => a.woonplaats === 'Nergenshuizen');
    const stad = ds.adres.filter((a) => a.woonplaats !== 'Nergenshuizen');
    const gehuchtIds = new Set(gehucht.map((a) => a.id));
    expect(ds.verkoop.filter((v) => gehuchtIds.has(v.adres_id!)).length).toBe(2);
    let min = Infinity;
    for (const g of gehucht) for (const s of stad) min = Math.min(min, haversine(g.lat!, g.lon!, s.lat!, s.lon!));
    expect(min).toBeGreaterThan(10_000);
  });

  it('prices follow the model: area elasticity ~0.75, type order, noise ~10 %', () => {
    const buurt = new Map(ds.adres.map((a) => [a.id, a.buurt_code!]));
    const buurten = [...new Set(ds.adres.map((a) => a.buurt_code!))].sort();
    const index = new Map(ds.prijsindex.map((p) => [p.periode.toISOString().slice(0, 7), p.index]));
    const typen = ['vrijstaand', 'twee-onder-een-kap', 'hoekwoning', 'appartement'];
    const X: number[][] = [];
    const y: number[] = [];
    for (const v of ds.verkoop) {
      const idx = index.get(v.transactiedatum.toISOString().slice(0, 7))!;
      y.push(Math.log(v.koopsom) - Math.log(idx / 100) - bouwjaarEffect(v.bouwjaar!));
      X.push([
        1,
        Math.log(v.oppervlakte! / 100),
        ...typen.map((t) => (v.woningtype === t ? 1 : 0)),
        ...buurten.slice(1).map((b) => (buurt.get(v.adres_id!) === b ? 1 : 0)),
      ]);
    }
    const { beta, sd } = ols(X, y);
    expect(beta[1]).toBeGreaterThan(0.65);
    expect(beta[1]).toBeLessThan(0.85);
    expect(beta[2]).toBeGreaterThan(beta[3]); // vrijstaand > twee-onder-een-kap
    expect(beta[3]).toBeGreaterThan(beta[4]); // > hoekwoning
    expect(sd).toBeGreaterThan(0.08);
    expect(sd).toBeLessThan(0.14);
    const prijzen2025 = ds.verkoop.filter((v) => v.transactiedatum.getUTCFullYear() === 2025).map((v) => v.koopsom).sort((a, b) => a - b);
    const mediaan = prijzen2025[prijzen2025.length >> 1];
    expect(mediaan).toBeGreaterThan(250_000);
    expect(mediaan).toBeLessThan(550_000);
    expect(DEMO_PRIJSMODEL.oppervlakteElasticiteit).toBe(0.75);
  });

  it('carries the CBS index to 2021-12 and the documented extrapolation to 2026-11', () => {
    const p = new Map(ds.prijsindex.map((r) => [r.periode.toISOString().slice(0, 7), r]));
    expect(p.get('1995-01')!.index).toBe(41.3);
    expect(p.get('2021-12')!.index).toBe(175.8);
    expect(p.get('2022-07')!.index).toBeGreaterThan(190);
    expect(p.get('2023-05')!.index).toBeLessThan(p.get('2022-07')!.index);
    expect(p.has('2026-11')).toBe(true);
    // Under its own regio: a real CBS import ('NL') and the demo never overwrite each other's months.
    expect(ds.prijsindex.every((r) => r.tabel === '83906NED' && r.regio === 'NL-demo')).toBe(true);
  });

  it('DEMO_ADRESSEN are the curated picks for seed 1 and each shows its case', () => {
    expect(kiesDemoAdressen(ds)).toEqual(DEMO_ADRESSEN);
    const sleutel = (p: string, n: number, l: string | null, t: string | null) => `${p}|${n}|${l}|${t}`;
    const adres = new Map(ds.adres.map((a) => [sleutel(a.postcode, a.huisnummer, a.huisletter, a.toevoeging), a]));
    const label = new Set(ds.energielabel.map((r) => r.adres_id));
    const woz = new Set(ds.woz_waarde.map((r) => r.adres_id));
    const invloed = new Map(ds.adres_invloed.map((r) => [`${r.adres_id}|${r.type}`, r.indicator]));
    const geval = (g: string) => DEMO_ADRESSEN.find((d) => d.geval === g)!;
    const vind = (g: string) => {
      const d = geval(g);
      return adres.get(sleutel(d.postcode, d.huisnummer, d.huisletter, d.toevoeging))!;
    };
    expect(new Set(DEMO_ADRESSEN.map((d) => d.geval)).size).toBe(12);
    expect(label.has(vind('geen-energielabel').id)).toBe(false);
    expect(woz.has(vind('geen-woz').id)).toBe(false);
    expect(vind('te-weinig-verkopen').woonplaats).toBe('Nergenshuizen');
    expect(vind('appartement').toevoeging).not.toBeNull();
    expect(invloed.get(`${vind('natura2000-rood').id}|natura2000`)).toBe('rood');
    expect(invloed.get(`${vind('natura2000-oranje').id}|natura2000`)).toBe('oranje');
    expect(invloed.get(`${vind('hoogspanning-rood').id}|hoogspanning`)).toBe('rood');
    expect(invloed.get(`${vind('hoogspanning-oranje').id}|hoogspanning`)).toBe('oranje');
    expect(invloed.get(`${vind('invloeden-groen').id}|natura2000`)).toBe('groen');
    expect(invloed.get(`${vind('invloeden-groen').id}|hoogspanning`)).toBe('groen');
    const m = geval('meerduidige-toevoeging');
    expect(adres.has(sleutel(m.postcode, m.huisnummer, null, null))).toBe(false);
    expect(ds.adres.filter((a) => a.postcode === m.postcode && a.huisnummer === m.huisnummer).length).toBeGreaterThan(5);
  });
});

describe('loadDemoDataset into PGlite', () => {
  const db = useTestDatabase();

  it('writes every table in well under a minute; counts match; loading again replaces', async () => {
    const r = await loadDemoDataset(db, { dataset: ds });
    console.log(`demo geladen in ${r.ms} ms`, r.aantallen);
    expect(r.ms).toBeLessThan(60_000);
    for (const [tabel, rijen] of Object.entries(ds)) {
      const [{ n }] = await db.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${tabel}`);
      expect(n, tabel).toBe(rijen.length);
      expect(r.aantallen[tabel as keyof DemoDataset]).toBe(rijen.length);
    }
    const tweede = await loadDemoDataset(db, { dataset: ds });
    expect(tweede.aantallen).toEqual(r.aantallen);
    expect(await db.prisma.adres.count()).toBe(ds.adres.length);
    const pand = await db.prisma.pand.findFirst({ where: { id: ds.pand[0].id } });
    expect(pand?.geometrie).toEqual(ds.pand[0].geometrie);
  }, 120_000);

  it('the demo addresses resolve (or are ambiguous) in the loaded database', async () => {
    const geval = (g: string) => DEMO_ADRESSEN.find((d) => d.geval === g)!;
    const w = geval('waardering');
    expect(await resolveAdresId(db.prisma, w.postcode, w.huisnummer, w.huisletter, w.toevoeging)).toMatch(/^9999200/);
    const a = geval('appartement');
    expect(await resolveAdresId(db.prisma, a.postcode, a.huisnummer, a.huisletter, a.toevoeging)).toMatch(/^9999200/);
    const m = geval('meerduidige-toevoeging');
    const l = geval('letter-of-toevoeging');
    const [rm, rl] = await resolveAdresIds(db.prisma, [
      { postcode: m.postcode, huisnummer: m.huisnummer, huisletter: null, toevoeging: null, gecombineerd: true, verblijfsobjectId: null },
      { postcode: l.postcode, huisnummer: l.huisnummer, huisletter: null, toevoeging: 'A', gecombineerd: true, verblijfsobjectId: null },
    ]);
    expect(rm).toMatchObject({ adresId: null, reden: 'meerduidig' });
    expect((rm as { opties: string[] }).opties.length).toBeGreaterThan(1);
    expect(rl).toEqual({ adresId: null, reden: 'meerduidig', opties: expect.arrayContaining([`${l.huisnummer}A`, `${l.huisnummer}-A`]) });
  });
});
