/** Seeded synthetic sales around a point, for valuation endpoint tests (not the demo dataset). */
import type { Db } from '../../src/db/client.ts';
import { Rng } from '../../src/domain/register/demo/rng.ts';


/**
 * `n` sales within ~1.5 km of (lat, lon) between `van` and `tot`: price = 4,000 €/m² · area^0.8-ish,
 * +0.4 %/month, ±8 % noise. Ids are prefixed so tests can find them.
 */
export async function maakVerkopen(db: Db, o: { lat: number; lon: number; n: number; van: string; tot: string; seed?: number; prefix?: string; woningtype?: string }) {
  const rng = new Rng(o.seed ?? 7);
  const r = () => rng.next();
  const van = Date.parse(o.van);
  const tot = Date.parse(o.tot);
  const rows = Array.from({ length: o.n }, (_, i) => {
    const t = van + r() * (tot - van);
    const maanden = (t - van) / (30.44 * 86_400_000);
    const opp = Math.round(70 + r() * 110);
    const prijs = Math.round(4000 * 80 * (opp / 80) ** 0.8 * 1.004 ** maanden * (1 + (r() - 0.5) * 0.16));
    return {
      id: `${o.prefix ?? 'v'}-${i}`,
      transactiedatum: new Date(new Date(t).toISOString().slice(0, 10)),
      koopsom: prijs,
      oppervlakte: opp,
      bouwjaar: 1960 + Math.floor(r() * 50),
      woningtype: o.woningtype ?? 'tussenwoning',
      lat: o.lat + (r() - 0.5) * 0.02,
      lon: o.lon + (r() - 0.5) * 0.03,
      bron: 'testdata',
    };
  });
  await db.verkoop.createMany({ data: rows });
  return rows;
}
