/**
 * The price model behind the synthetic sales and WOZ values, and the monthly price index.
 *
 *   ln(prijs) = ln(basisPrijs)                       reference home at index 100 (2015)
 *             + buurteffect + ruimtelijk veld(x, y)   location
 *             + woningtype + 0.75 · ln(opp / 100)     type, living area (elasticity 0.75)
 *             + 0.08 · ln(perceel / typisch perceel)  plot (ground-bound homes only)
 *             + bouwjaarklasse + energieklasse        build year, energy label
 *             + invloeden                             near high-voltage line (-), near nature (+)
 *             + ln(index(maand) / 100)                time: CBS 83906NED, extrapolated after 2021
 *             + κ + ε                                 log-normal noise, ~10 % in total:
 *                                                     κ ~ N(0, 0.05²) per address (hidden quality,
 *                                                     shared by its sales and WOZ values),
 *                                                     ε ~ N(0, 0.085²) per sale (0.05² per WOZ value)
 *
 * Reference home: tussenwoning, 100 m2, built 1991–2010, label C, average location.
 *
 * Index: the monthly CBS series 83906NED (2015 = 100) up to 2021MM12, read from the CSV with the
 * prijsindex parser. After that the series is EXTRAPOLATED with an assumption, not CBS figures:
 * +1.2 %/month 2022-01..2022-07 (the last months of the boom), -0.8 %/month 2022-08..2023-05 (the
 * correction after the interest-rate rise), +0.65 %/month from 2023-06 (recovery, ~8 %/year),
 * up to 2026-11. Shape loosely follows the published market movement of those years; the levels
 * are synthetic.
 */
import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parsePrijsindex } from '../parsers/prijsindex.ts';

export const CBS_CSV_PAD = fileURLToPath(new URL('./bronnen/83906NED_UntypedDataSet_05022022_160508.csv', import.meta.url));

export const INDEX_EXTRAPOLATIE: readonly { vanaf: string; totEnMet: string; perMaand: number }[] = [
  { vanaf: '2022-01', totEnMet: '2022-07', perMaand: 0.012 },
  { vanaf: '2022-08', totEnMet: '2023-05', perMaand: -0.008 },
  { vanaf: '2023-06', totEnMet: '2026-11', perMaand: 0.0065 },
];

export const DEMO_PRIJSMODEL = {
  basisPrijs: 190_000,
  oppervlakteElasticiteit: 0.75,
  perceelElasticiteit: 0.08,
  /** Per-address hidden quality (log sd), shared by sales and WOZ. */
  kwaliteit: 0.05,
  /** Per-sale noise (log sd); total with kwaliteit ~0.099. */
  ruis: 0.085,
  wozRuis: 0.05,
  /** WOZ is set somewhat below market value (valuation lag / prudence). */
  wozFactor: 0.97,
  woningtype: {
    vrijstaand: 0.22,
    'twee-onder-een-kap': 0.1,
    hoekwoning: 0.04,
    tussenwoning: 0,
    appartement: -0.06,
    overig: 0,
  } as Record<string, number>,
  typischPerceel: {
    vrijstaand: 650,
    'twee-onder-een-kap': 330,
    hoekwoning: 200,
    tussenwoning: 150,
  } as Record<string, number>,
  bouwjaar: [
    [0, 1905, 0.04],
    [1906, 1930, 0.06],
    [1931, 1945, 0.02],
    [1946, 1970, -0.07],
    [1971, 1990, -0.04],
    [1991, 2010, 0],
    [2011, 9999, 0.05],
  ] as [number, number, number][],
  energieklasse: {
    'A+++++': 0.06,
    'A++++': 0.06,
    'A+++': 0.06,
    'A++': 0.06,
    'A+': 0.06,
    A: 0.04,
    B: 0.02,
    C: 0,
    D: -0.02,
    E: -0.04,
    F: -0.06,
    G: -0.08,
  } as Record<string, number>,
  hoogspanningBinnen100m: -0.04,
  natuurBinnen250m: 0.03,
};

export function bouwjaarEffect(bouwjaar: number): number {
  for (const [a, b, e] of DEMO_PRIJSMODEL.bouwjaar) if (bouwjaar >= a && bouwjaar <= b) return e;
  return 0;
}

/** Smooth spatial price field (log), ±~5 %, from RD offsets in metres to the town centre. */
export function ruimtelijkVeld(dx: number, dy: number, fase: readonly [number, number, number]): number {
  return (
    0.03 * Math.sin((2 * Math.PI * dx) / 3000 + fase[0]) * Math.cos((2 * Math.PI * dy) / 2500 + fase[1]) +
    0.02 * Math.sin((2 * Math.PI * (dx + dy)) / 5000 + fase[2])
  );
}

function maandSleutel(j: number, m: number): string {
  return `${j}-${String(m).padStart(2, '0')}`;
}

/** 'YYYY-MM' -> index (2015 = 100), 1995-01 .. 2026-11: CBS up to 2021-12, then INDEX_EXTRAPOLATIE. */
export async function leesDemoPrijsindex(pad = CBS_CSV_PAD): Promise<Map<string, number>> {
  const reeks = new Map<string, number>();
  for await (const r of parsePrijsindex(createReadStream(pad))) {
    if (!r.ok) throw new Error(`CBS-prijsindex voor de demo is onleesbaar: regel ${r.regel}: ${r.reden}`);
    const d = r.rij.periode;
    reeks.set(maandSleutel(d.getUTCFullYear(), d.getUTCMonth() + 1), r.rij.index);
  }
  if (!reeks.has('2021-12')) throw new Error('CBS-prijsindex voor de demo loopt niet tot 2021-12');
  let j = 2021;
  let m = 12;
  let waarde = reeks.get('2021-12')!;
  for (const stap of INDEX_EXTRAPOLATIE) {
    for (;;) {
      m++;
      if (m > 12) {
        m = 1;
        j++;
      }
      const k = maandSleutel(j, m);
      waarde *= 1 + stap.perMaand;
      reeks.set(k, Math.round(waarde * 10) / 10);
      if (k === stap.totEnMet) break;
    }
  }
  return reeks;
}

export function indexOp(reeks: ReadonlyMap<string, number>, d: Date): number {
  const k = maandSleutel(d.getUTCFullYear(), d.getUTCMonth() + 1);
  const v = reeks.get(k);
  if (v === undefined) throw new Error(`geen prijsindex voor ${k}`);
  return v;
}
