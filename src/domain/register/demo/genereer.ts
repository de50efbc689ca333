/**
 * Deterministic synthetic demo dataset: the fictional municipality Fictiedal (town Verzonnenveen
 * plus the hamlet Nergenshuizen), ~24 000 addresses with BAG-like fields, panden with footprints,
 * house types, energy labels, WOZ series, influence objects with their adres_invloed rows and six
 * years of sales priced by the model in prijsmodel.ts. Same seed -> identical rows.
 *
 * Every row carries bron = DEMO_BRON. Ids use gemeente code 9999 (which does not exist), in the
 * BAG form: nummeraanduiding 9999 20 nnnnnnnnnn, verblijfsobject 9999 01 ..., pand 9999 10 ...
 */
import proj4 from 'proj4';
import type { Polygon, Position } from 'geojson';
import { RD_PROJ4 } from '../parsers/invloeden.ts';
import type { EnergielabelRij, InvloedObjectRij, PrijsindexRij, VerkoopRij, WozRij } from '../parsers/gedeeld.ts';
import { type AdresInvloedRij, computeInvloeden } from '../invloeden.ts';
import { type AppStijl, type Bouwsoort, type BuurtDef, BUURTEN, CENTRUM_RD, DEMO_BRON, DEMO_INDEX_REGIO, GEHUCHT, GEMEENTE, INVLOED_DEFS } from './opzet.ts';
import { CBS_CSV_PAD, DEMO_PRIJSMODEL, bouwjaarEffect, indexOp, leesDemoPrijsindex, ruimtelijkVeld } from './prijsmodel.ts';
import { type Rng, stroom } from './rng.ts';
import { ENERGIELABELS, type Woningtype } from '../../begrippen.ts';
import type { AdresRij as RegisterAdresRij } from '../adressen.ts';

export type { Woningtype };

export interface AdresRij extends RegisterAdresRij {
  gemeente: string | null;
  gemeente_code: string | null;
  buurt_code: string | null;
  buurt_naam: string | null;
  wijk_code: string | null;
  wijk_naam: string | null;
  object_type: string;
  object_id: string | null;
  pand_id: string | null;
  gebruiksdoelen: string[];
  oppervlakte: number | null;
  bouwjaar: number | null;
  status: string | null;
  rd_x: number | null;
  rd_y: number | null;
  lat: number | null;
  lon: number | null;
  bron: string;
  bron_datum: Date | null;
}

export interface PandRij {
  id: string;
  bouwjaar: number | null;
  status: string | null;
  geometrie: Polygon;
  bron: string;
}

export interface WoningtypeRij {
  adres_id: string;
  woningtype: Woningtype;
  afgeleid_uit: string;
  bron: string;
}

export interface DemoDataset {
  adres: AdresRij[];
  pand: PandRij[];
  woningtype: WoningtypeRij[];
  energielabel: EnergielabelRij[];
  woz_waarde: WozRij[];
  invloed_object: InvloedObjectRij[];
  adres_invloed: AdresInvloedRij[];
  verkoop: VerkoopRij[];
  prijsindex: PrijsindexRij[];
}

export interface DemoOpties {
  /** CBS 83906NED StatLine CSV for the time trend (default: the copy in demo/bronnen). */
  cbsCsv?: string;
}

export const DEMO_BRON_DATUM = new Date(Date.UTC(2026, 10, 1));
export const VERKOOP_VANAF = new Date(Date.UTC(2020, 8, 1));
export const VERKOOP_TOT_EN_MET = new Date(Date.UTC(2026, 7, 31));
/** WOZ peildata, newest first (WOZ years 2026 .. 2021). */
export const WOZ_PEILDATA = [2025, 2024, 2023, 2022, 2021, 2020].map((j) => new Date(Date.UTC(j, 0, 1)));

const rdNaarWgs = proj4(RD_PROJ4, 'WGS84');
const r7 = (x: number) => Math.round(x * 1e7) / 1e7;
const r3 = (x: number) => Math.round(x * 1e3) / 1e3;

function wgs(x: number, y: number): [number, number] {
  const [lon, lat] = rdNaarWgs.forward([x, y]);
  return [r7(lon), r7(lat)];
}

interface Eenheid {
  huisnummer: number;
  huisletter: string | null;
  toevoeging: string | null;
  woningtype: Woningtype;
  gebruiksdoelen: string[];
  oppervlakte: number;
  perceel: number | null;
  lx: number;
  ly: number;
}

interface PandPlan {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  bouwjaar: number;
  eenheden: Eenheid[];
  /** Whole building in its own postcode (large apartment buildings). */
  eigenPostcode: boolean;
}

interface Straatzijde {
  straat: string;
  panden: PandPlan[];
}

const TOEVOEGING_LETTERS = ['A', 'B', 'C', 'D'];

function lognormaal(rng: Rng, mediaan: number, sd: number): number {
  return mediaan * Math.exp(sd * rng.normaal());
}

function bouwjaarVoor(rng: Rng, b: BuurtDef): number {
  const [a, z] = b.bouwjaar;
  if (b.code === '0302') {
    // Villapark: most villas from the 1930s and 1990s–2010s.
    return rng.kans(0.45) ? rng.geheel(1925, 1939) : rng.geheel(1950, 2020);
  }
  return rng.geheel(a, z);
}

function oppGrondgebonden(rng: Rng, type: Woningtype, bouwjaar: number, villapark: boolean): number {
  let basis: number;
  if (type === 'vrijstaand') basis = villapark ? 195 : 165;
  else if (type === 'twee-onder-een-kap') basis = 140;
  else basis = bouwjaar < 1970 ? 86 : bouwjaar < 1991 ? 104 : bouwjaar < 2011 ? 116 : 124;
  if (type === 'hoekwoning') basis *= 1.05;
  return Math.max(45, Math.round(lognormaal(rng, basis, 0.11)));
}

/** Plans the buildings along one side of a street, from local x = a to b. */
function planStraatzijde(rng: Rng, b: BuurtDef, straat: string, yStraat: number, zijde: 1 | -1, a: number, z: number): Straatzijde {
  const panden: PandPlan[] = [];
  let nr = zijde === 1 ? 1 : 2;
  let x = a;
  let totZijstraat = rng.tussen(150, 260);
  const voorgevel = yStraat + zijde * rng.tussen(5, 8);
  const rect = (x0: number, x1: number, diepte: number): Pick<PandPlan, 'x0' | 'x1' | 'y0' | 'y1'> => {
    const ya = voorgevel;
    const yb = voorgevel + zijde * diepte;
    return { x0, x1, y0: Math.min(ya, yb), y1: Math.max(ya, yb) };
  };
  const midden = (p: Pick<PandPlan, 'x0' | 'x1' | 'y0' | 'y1'>) => [(p.x0 + p.x1) / 2, (p.y0 + p.y1) / 2] as const;
  const volgend = () => {
    const n = nr;
    nr += 2;
    return n;
  };
  const villapark = b.code === '0302';
  while (x < z) {
    const soort = rng.gewogen<Bouwsoort>(b.mix);
    const bouwjaar = bouwjaarVoor(rng, b);
    let breedte = 0;
    if (soort === 'rij') {
      const k = rng.geheel(4, 8);
      const w = rng.tussen(5.4, 6.6);
      breedte = k * w;
      if (x + breedte > z) break;
      const diepte = rng.tussen(8.5, 11);
      const tuin = rng.tussen(24, 34);
      for (let i = 0; i < k; i++) {
        const r = rect(x + i * w, x + (i + 1) * w, diepte);
        const hoek = i === 0 || i === k - 1;
        const type: Woningtype = hoek ? 'hoekwoning' : 'tussenwoning';
        const [lx, ly] = midden(r);
        panden.push({
          ...r,
          bouwjaar,
          eigenPostcode: false,
          eenheden: [
            {
              huisnummer: volgend(),
              huisletter: null,
              toevoeging: null,
              woningtype: type,
              gebruiksdoelen: ['woonfunctie'],
              oppervlakte: oppGrondgebonden(rng, type, bouwjaar, false),
              perceel: Math.round(w * tuin + (hoek ? rng.tussen(25, 90) : 0)),
              lx,
              ly,
            },
          ],
        });
      }
      x += breedte + rng.tussen(4, 8);
    } else if (soort === 'twee') {
      const w = rng.tussen(8, 10.5);
      breedte = 2 * w;
      if (x + breedte > z) break;
      const diepte = rng.tussen(9, 12);
      for (let i = 0; i < 2; i++) {
        const r = rect(x + i * w, x + (i + 1) * w, diepte);
        const [lx, ly] = midden(r);
        panden.push({
          ...r,
          bouwjaar,
          eigenPostcode: false,
          eenheden: [
            {
              huisnummer: volgend(),
              huisletter: null,
              toevoeging: null,
              woningtype: 'twee-onder-een-kap',
              gebruiksdoelen: rng.kans(0.04) ? ['woonfunctie', 'kantoorfunctie'] : ['woonfunctie'],
              oppervlakte: oppGrondgebonden(rng, 'twee-onder-een-kap', bouwjaar, villapark),
              perceel: Math.round((w + rng.tussen(3, 6)) * rng.tussen(28, 40)),
              lx,
              ly,
            },
          ],
        });
      }
      x += breedte + rng.tussen(6, 10);
    } else if (soort === 'vrij') {
      const w = villapark ? rng.tussen(13, 20) : rng.tussen(10, 15);
      const kavel = w + (villapark ? rng.tussen(12, 26) : rng.tussen(8, 14));
      breedte = kavel;
      if (x + breedte > z) break;
      const r = rect(x + (kavel - w) / 2, x + (kavel + w) / 2, rng.tussen(10, 15));
      const [lx, ly] = midden(r);
      const bedrijfswoning = b.code === '0403';
      panden.push({
        ...r,
        bouwjaar,
        eigenPostcode: false,
        eenheden: [
          {
            huisnummer: volgend(),
            huisletter: null,
            toevoeging: null,
            woningtype: 'vrijstaand',
            gebruiksdoelen: ['woonfunctie'],
            oppervlakte: oppGrondgebonden(rng, 'vrijstaand', bouwjaar, villapark),
            perceel: Math.round(kavel * rng.tussen(bedrijfswoning ? 30 : 35, villapark ? 60 : 45)),
            lx,
            ly,
          },
        ],
      });
      x += breedte;
    } else if (soort === 'app') {
      const w = rng.tussen(28, 60);
      breedte = w;
      if (x + breedte > z) break;
      const diepte = rng.tussen(11, 16);
      const r = rect(x, x + w, diepte);
      const lagen = rng.geheel(b.lagen[0], b.lagen[1]);
      const perLaag = Math.max(2, Math.round(w / 9));
      const n = lagen * perLaag;
      const eenheden: Eenheid[] = [];
      const stijl: AppStijl = b.appStijl;
      const plaats = (i: number): [number, number] => {
        const kolom = i % perLaag;
        return [r.x0 + ((kolom + 0.5) * w) / perLaag, (r.y0 + r.y1) / 2 + rng.tussen(-2, 2)];
      };
      const app = (huisnummer: number, huisletter: string | null, toevoeging: string | null, i: number): Eenheid => {
        const [lx, ly] = plaats(i);
        return {
          huisnummer,
          huisletter,
          toevoeging,
          woningtype: 'appartement',
          gebruiksdoelen: ['woonfunctie'],
          oppervlakte: Math.round(rng.tussen(b.appOpp[0], b.appOpp[1])),
          perceel: null,
          lx,
          ly,
        };
      };
      if (stijl === 'toevoeging') {
        const hn = volgend();
        for (let i = 0; i < Math.min(n, 99); i++) eenheden.push(app(hn, null, String(i + 1), i));
      } else if (stijl === 'portiek') {
        // One huisnummer per stairwell of two homes per floor: toevoegingen 1, 2, 3, ...
        const portieken = Math.max(1, Math.round(perLaag / 2));
        let i = 0;
        for (let p = 0; p < portieken; p++) {
          const hn = volgend();
          for (let t = 1; t <= lagen * 2; t++) eenheden.push(app(hn, null, String(t), i++));
        }
      } else {
        for (let i = 0; i < n; i++) eenheden.push(app(volgend(), null, null, i));
      }
      panden.push({ ...r, bouwjaar, eigenPostcode: eenheden.length >= 12, eenheden });
      x += breedte + rng.tussen(10, 20);
    } else if (soort === 'winkel') {
      const w = rng.tussen(6, 11);
      breedte = w;
      if (x + breedte > z) break;
      const r = rect(x, x + w, rng.tussen(12, 18));
      const [lx, ly] = midden(r);
      const hn = volgend();
      const eenheden: Eenheid[] = [];
      const winkel = rng.kans(0.7);
      if (winkel) {
        const doel = rng.gewogen({ winkelfunctie: 6, bijeenkomstfunctie: 2, kantoorfunctie: 2 });
        eenheden.push({
          huisnummer: hn,
          huisletter: null,
          toevoeging: null,
          woningtype: 'overig',
          gebruiksdoelen: [doel],
          oppervlakte: Math.round(lognormaal(rng, 85, 0.4)),
          perceel: null,
          lx,
          ly,
        });
      }
      const boven = rng.geheel(winkel ? 1 : 2, 3);
      for (let i = 0; i < boven; i++) {
        // Upstairs homes: 12A, 12B, ...; without a shop the ground floor is 12 itself.
        const letter = !winkel && i === 0 ? null : TOEVOEGING_LETTERS[winkel ? i : i - 1];
        eenheden.push({
          huisnummer: hn,
          huisletter: letter,
          toevoeging: null,
          woningtype: letter === null ? 'tussenwoning' : 'appartement',
          gebruiksdoelen: ['woonfunctie'],
          oppervlakte: letter === null ? oppGrondgebonden(rng, 'tussenwoning', bouwjaar, false) : Math.round(rng.tussen(b.appOpp[0], b.appOpp[1])),
          perceel: letter === null ? Math.round(w * rng.tussen(12, 20)) : null,
          lx: lx + rng.tussen(-1, 1),
          ly: ly + rng.tussen(-1, 1),
        });
      }
      panden.push({ ...r, bouwjaar, eigenPostcode: false, eenheden });
      x += breedte;
    } else {
      const groot = b.code === '0403';
      const w = groot ? rng.tussen(25, 80) : rng.tussen(10, 25);
      breedte = w;
      if (x + breedte > z) break;
      const r = rect(x, x + w, groot ? rng.tussen(20, 50) : rng.tussen(12, 20));
      const [lx, ly] = midden(r);
      const doel = groot ? rng.gewogen({ industriefunctie: 6, kantoorfunctie: 3, winkelfunctie: 1 }) : rng.gewogen({ kantoorfunctie: 3, winkelfunctie: 3, bijeenkomstfunctie: 2, gezondheidszorgfunctie: 1 });
      const hn = volgend();
      const delen = groot && rng.kans(0.2) ? 2 : 1;
      const eenheden: Eenheid[] = [];
      for (let i = 0; i < delen; i++) {
        eenheden.push({
          huisnummer: hn,
          huisletter: delen > 1 ? TOEVOEGING_LETTERS[i] : null,
          toevoeging: null,
          woningtype: 'overig',
          gebruiksdoelen: [doel],
          oppervlakte: Math.round(lognormaal(rng, groot ? 900 : 180, 0.5)),
          perceel: null,
          lx: lx + i * 3,
          ly,
        });
      }
      panden.push({ ...r, bouwjaar, eigenPostcode: false, eenheden });
      x += breedte + rng.tussen(8, 20);
    }
    totZijstraat -= breedte;
    if (totZijstraat <= 0) {
      x += rng.tussen(12, 18);
      totZijstraat = rng.tussen(150, 260);
    }
  }
  return { straat, panden };
}

const KLASSEN = ENERGIELABELS;

/** The home's real energy class (latent; a registered label shows it). */
function latenteKlasse(rng: Rng, bouwjaar: number): string {
  let w: Partial<Record<(typeof KLASSEN)[number], number>>;
  if (bouwjaar < 1931) w = { B: 4, C: 14, D: 22, E: 22, F: 20, G: 18 };
  else if (bouwjaar < 1946) w = { B: 5, C: 18, D: 25, E: 22, F: 18, G: 12 };
  else if (bouwjaar < 1975) w = { A: 4, B: 10, C: 30, D: 26, E: 16, F: 10, G: 4 };
  else if (bouwjaar < 1992) w = { A: 8, B: 22, C: 38, D: 20, E: 8, F: 3, G: 1 };
  else if (bouwjaar < 2006) w = { 'A+': 3, A: 30, B: 40, C: 22, D: 5 };
  else if (bouwjaar < 2015) w = { 'A+': 10, A: 60, B: 25, C: 5 };
  else if (bouwjaar < 2021) w = { 'A+++': 10, 'A++': 35, 'A+': 35, A: 20 };
  else w = { 'A++++': 25, 'A+++': 45, 'A++': 25, 'A+': 5 };
  return rng.gewogen(w);
}

/** Energy index of the pre-2021 method, consistent with the class. */
function energieIndex(rng: Rng, klasse: string): number {
  const band: Record<string, [number, number]> = {
    'A++++': [0.2, 0.4],
    'A+++': [0.3, 0.45],
    'A++': [0.4, 0.5],
    'A+': [0.51, 0.7],
    A: [0.71, 1.05],
    B: [1.06, 1.3],
    C: [1.31, 1.6],
    D: [1.61, 2.0],
    E: [2.01, 2.4],
    F: [2.41, 2.9],
    G: [2.91, 3.6],
  };
  const [a, b] = band[klasse];
  return Math.round(rng.tussen(a, b) * 100) / 100;
}

function dag(rng: Rng, van: Date, tot: Date): Date {
  const a = van.getTime() / 86_400_000;
  const b = tot.getTime() / 86_400_000;
  return new Date(Math.floor(rng.tussen(a, b + 1)) * 86_400_000);
}

function ring(midden: [number, number], straal: number, harm: [number, number, number][], ccw: boolean): Position[] {
  const n = 72;
  const punten: Position[] = [];
  for (let i = 0; i < n; i++) {
    const phi = ((ccw ? i : n - i) / n) * 2 * Math.PI;
    let r = 1;
    for (const [k, a, p] of harm) r += a * Math.sin(k * phi + p);
    const x = CENTRUM_RD[0] + midden[0] + straal * r * Math.cos(phi);
    const y = CENTRUM_RD[1] + midden[1] + straal * r * Math.sin(phi);
    punten.push(wgs(x, y));
  }
  punten.push(punten[0]);
  return punten;
}

export function demoInvloedObjecten(): InvloedObjectRij[] {
  return INVLOED_DEFS.map((d) => {
    if (d.lijn) {
      return {
        id: d.id,
        type: d.type,
        naam: d.naam,
        geometrie: { type: 'LineString', coordinates: d.lijn.map(([x, y]) => wgs(CENTRUM_RD[0] + x, CENTRUM_RD[1] + y)) },
        bron: DEMO_BRON,
      };
    }
    const vlakken = d.vlakken!.map((v) => {
      const ringen = [ring(v.midden, v.straal, v.harmonischen, true)];
      if (v.gat) ringen.push(ring(v.midden, v.gat, [], false));
      return ringen;
    });
    return {
      id: d.id,
      type: d.type,
      naam: d.naam,
      geometrie: vlakken.length === 1 ? { type: 'Polygon', coordinates: vlakken[0] } : { type: 'MultiPolygon', coordinates: vlakken },
      bron: DEMO_BRON,
    };
  });
}

interface Model {
  adres: AdresRij;
  woningtype: Woningtype;
  perceel: number | null;
  klasse: string | null;
  effect: number;
  dx: number;
  dy: number;
  kwaliteit: number;
  label: EnergielabelRij | null;
  gehucht: boolean;
}

function postcodeReeks() {
  const letters = ['SA', 'SD', 'SS'];
  let i = 0;
  return () => {
    const pc = `${7731 + Math.floor(i / 3)}${letters[i % 3]}`;
    i++;
    return pc;
  };
}

const pad10 = (n: number) => String(n).padStart(10, '0');

export async function generateDemoDataset(seed = 1, opts: DemoOpties = {}): Promise<DemoDataset> {
  const reeks = await leesDemoPrijsindex(opts.cbsCsv ?? CBS_CSV_PAD);
  const opzet = stroom(seed, 'opzet');
  const kenmerk = stroom(seed, 'kenmerken');
  const prijs = stroom(seed, 'prijzen');
  const verkoopRng = stroom(seed, 'verkopen');
  const fase: [number, number, number] = [prijs.tussen(0, 6.283), prijs.tussen(0, 6.283), prijs.tussen(0, 6.283)];

  const adressen: Model[] = [];
  const panden: PandRij[] = [];
  let nAdres = 0;
  let nPand = 0;
  const volgendePostcode = postcodeReeks();

  const voegToe = (
    b: { code: string; naam: string; wijk: string; wijkNaam: string; woonplaats: string; effect: number },
    midden: readonly [number, number],
    hoek: number,
    zijden: Straatzijde[],
  ) => {
    const cos = Math.cos(hoek);
    const sin = Math.sin(hoek);
    const naarRd = (lx: number, ly: number): [number, number] => [
      CENTRUM_RD[0] + midden[0] + lx * cos - ly * sin,
      CENTRUM_RD[1] + midden[1] + lx * sin + ly * cos,
    ];
    for (const z of zijden) {
      let postcode = volgendePostcode();
      let inPostcode = 0;
      for (const p of z.panden) {
        if (p.eigenPostcode || inPostcode + p.eenheden.length > 30) {
          if (inPostcode > 0) postcode = volgendePostcode();
          inPostcode = 0;
        }
        const pandId = `${GEMEENTE.code}10${pad10(++nPand)}`;
        const bouwjaar = p.bouwjaar;
        const inAanbouw = bouwjaar >= 2026;
        const hoeken = [naarRd(p.x0, p.y0), naarRd(p.x1, p.y0), naarRd(p.x1, p.y1), naarRd(p.x0, p.y1)];
        const ringWgs = hoeken.map(([x, y]) => wgs(x, y));
        ringWgs.push(ringWgs[0]);
        panden.push({
          id: pandId,
          bouwjaar,
          status: inAanbouw ? 'Bouw gestart' : 'Pand in gebruik',
          geometrie: { type: 'Polygon', coordinates: [ringWgs] },
          bron: DEMO_BRON,
        });
        for (const e of p.eenheden) {
          const n = ++nAdres;
          const [x, y] = naarRd(e.lx, e.ly);
          const [lon, lat] = wgs(x, y);
          const status = inAanbouw ? 'Verblijfsobject gevormd' : kenmerk.kans(0.01) ? 'Verblijfsobject in gebruik (niet ingemeten)' : 'Verblijfsobject in gebruik';
          const rij: AdresRij = {
            id: `${GEMEENTE.code}20${pad10(n)}`,
            postcode,
            huisnummer: e.huisnummer,
            huisletter: e.huisletter,
            toevoeging: e.toevoeging,
            straat: z.straat,
            woonplaats: b.woonplaats,
            gemeente: GEMEENTE.naam,
            gemeente_code: GEMEENTE.code,
            buurt_code: `BU${GEMEENTE.code}${b.code}`,
            buurt_naam: b.naam,
            wijk_code: `WK${GEMEENTE.code}${b.wijk}`,
            wijk_naam: b.wijkNaam,
            object_type: 'verblijfsobject',
            object_id: `${GEMEENTE.code}01${pad10(n)}`,
            pand_id: pandId,
            gebruiksdoelen: e.gebruiksdoelen,
            oppervlakte: e.oppervlakte,
            bouwjaar,
            status,
            rd_x: r3(x),
            rd_y: r3(y),
            lat,
            lon,
            bron: DEMO_BRON,
            bron_datum: DEMO_BRON_DATUM,
          };
          inPostcode++;
          adressen.push({
            adres: rij,
            woningtype: e.woningtype,
            perceel: e.perceel,
            klasse: e.woningtype === 'overig' ? null : latenteKlasse(kenmerk, bouwjaar),
            effect: b.effect,
            dx: x - CENTRUM_RD[0],
            dy: y - CENTRUM_RD[1],
            kwaliteit: DEMO_PRIJSMODEL.kwaliteit * prijs.normaal(),
            label: null,
            gehucht: b.code === GEHUCHT.code,
          });
        }
      }
    }
  };

  for (const b of BUURTEN) {
    const hoek = (opzet.tussen(-4, 4) * Math.PI) / 180;
    const n = Math.floor(b.hoogte / b.straatAfstand);
    const zijden: Straatzijde[] = [];
    for (let i = 0; i < n; i++) {
      const straat = b.straten[i % b.straten.length] + (i >= b.straten.length ? ` ${Math.floor(i / b.straten.length) + 1}` : '');
      const y = -b.hoogte / 2 + b.straatAfstand * (i + 0.5);
      const a = -b.breedte / 2 + 10;
      const z = b.breedte / 2 - 10;
      zijden.push(planStraatzijde(opzet, b, straat, y, 1, a, z));
      zijden.push(planStraatzijde(opzet, b, straat, y, -1, a, z));
    }
    // One corner building with both 14A (huisletter) and 14-A (toevoeging): ambiguous on purpose.
    if (b.code === '0101') {
      const p = zijden[0].panden.find((q) => q.eenheden.some((e) => e.huisletter === 'A') && q.eenheden.length <= 3);
      if (p) {
        const basis = p.eenheden.find((e) => e.huisletter === 'A')!;
        p.eenheden.push({ ...basis, huisletter: null, toevoeging: 'A', oppervlakte: basis.oppervlakte + 7, lx: basis.lx + 1.5 });
      }
    }
    voegToe(b, b.midden, hoek, zijden);
  }

  // The hamlet: farmhouses along the dike.
  {
    const g = GEHUCHT;
    const panden: PandPlan[] = [];
    let nr = 1;
    for (let i = 0; i < g.aantal; i++) {
      const lx = -700 + i * opzet.tussen(60, 80);
      const ly = (i % 2 === 0 ? 1 : -1) * opzet.tussen(15, 30);
      const bouwjaar = opzet.geheel(g.bouwjaar[0], g.bouwjaar[1]);
      const w = opzet.tussen(12, 20);
      panden.push({
        x0: lx - w / 2,
        x1: lx + w / 2,
        y0: ly - 8,
        y1: ly + 8,
        bouwjaar,
        eigenPostcode: false,
        eenheden: [
          {
            huisnummer: nr++,
            huisletter: null,
            toevoeging: null,
            woningtype: 'vrijstaand',
            gebruiksdoelen: ['woonfunctie'],
            oppervlakte: oppGrondgebonden(opzet, 'vrijstaand', bouwjaar, true),
            perceel: Math.round(opzet.tussen(1500, 5000)),
            lx,
            ly,
          },
        ],
      });
    }
    voegToe({ ...g }, g.midden, (opzet.tussen(-4, 4) * Math.PI) / 180, [{ straat: g.straat, panden }]);
  }

  // Influence objects and their per-address rows.
  const invloedObjecten = demoInvloedObjecten();
  const adresInvloed = computeInvloeden(
    invloedObjecten,
    adressen.map((m) => ({ id: m.adres.id, lat: m.adres.lat, lon: m.adres.lon })),
  ).map((r) => ({ ...r, bron: DEMO_BRON }));
  const afstand = new Map<string, { natura2000?: number; hoogspanning?: number }>();
  for (const r of adresInvloed) {
    let a = afstand.get(r.adres_id);
    if (!a) afstand.set(r.adres_id, (a = {}));
    a[r.type as 'natura2000' | 'hoogspanning'] = r.afstand_m ?? Infinity;
  }

  const woningtypen: WoningtypeRij[] = [];
  const energielabels: EnergielabelRij[] = [];
  const labelTot = new Date(Date.UTC(2026, 9, 31));
  for (const m of adressen) {
    woningtypen.push({ adres_id: m.adres.id, woningtype: m.woningtype, afgeleid_uit: 'synthetisch', bron: DEMO_BRON });
    const bj = m.adres.bouwjaar!;
    if (bj >= 2026) continue;
    const woning = m.woningtype !== 'overig';
    const kans = !woning ? 0.35 : bj >= 2015 ? 0.95 : 0.74;
    if (!kenmerk.kans(kans)) continue;
    const klasse = m.klasse ?? latenteKlasse(kenmerk, bj);
    const van = new Date(Date.UTC(Math.max(2010, bj + 1), 0, 1));
    if (van > labelTot) continue;
    const registratiedatum = dag(kenmerk, van, labelTot);
    const nta = registratiedatum >= new Date(Date.UTC(2021, 0, 1));
    const geldigTot = new Date(Date.UTC(registratiedatum.getUTCFullYear() + 10, registratiedatum.getUTCMonth(), registratiedatum.getUTCDate()));
    const rij: EnergielabelRij = {
      adres_id: m.adres.id,
      label: klasse,
      registratiedatum,
      geldig_tot: geldigTot,
      opnametype: kenmerk.kans(0.82) ? 'Basis' : 'Detail',
      energie_index: nta ? null : energieIndex(kenmerk, klasse),
      bron: DEMO_BRON,
    };
    m.label = rij;
    energielabels.push(rij);
  }

  // Log value without noise and time: location, type, size, age, label, influences.
  const P = DEMO_PRIJSMODEL;
  const structureel = (m: Model): number => {
    const a = m.adres;
    let v = Math.log(P.basisPrijs) + m.effect + ruimtelijkVeld(m.dx, m.dy, fase) + m.kwaliteit;
    v += P.woningtype[m.woningtype] ?? 0;
    v += P.oppervlakteElasticiteit * Math.log(a.oppervlakte! / 100);
    const typisch = P.typischPerceel[m.woningtype];
    if (typisch && m.perceel) v += P.perceelElasticiteit * Math.log(m.perceel / typisch);
    v += bouwjaarEffect(a.bouwjaar!);
    v += P.energieklasse[m.klasse ?? 'C'] ?? 0;
    const af = afstand.get(a.id);
    if (af?.hoogspanning !== undefined && af.hoogspanning < 100) v += P.hoogspanningBinnen100m;
    if (af?.natura2000 !== undefined && af.natura2000 < 250) v += P.natuurBinnen250m;
    return v;
  };

  // WOZ series: residential homes in use, built before the peildatum; ~2.5 % without any WOZ.
  const woz: WozRij[] = [];
  for (const m of adressen) {
    if (m.woningtype === 'overig' || m.adres.bouwjaar! >= 2026) continue;
    if (kenmerk.kans(0.025)) continue;
    const s = structureel(m);
    for (const pd of WOZ_PEILDATA) {
      if (m.adres.bouwjaar! >= pd.getUTCFullYear()) continue;
      const v = Math.exp(s + Math.log(indexOp(reeks, pd) / 100) + P.wozRuis * prijs.normaal()) * P.wozFactor;
      woz.push({ adres_id: m.adres.id, peildatum: pd, waarde: Math.round(v / 1000) * 1000, bron: DEMO_BRON });
    }
  }

  // Sales: ~4.5 % of homes a year (apartments 5.5 %), six years; the hamlet exactly two.
  const verkopen: VerkoopRij[] = [];
  const verkoop = (m: Model, datum: Date) => {
    const a = m.adres;
    const v = Math.exp(structureel(m) + Math.log(indexOp(reeks, datum) / 100) + P.ruis * prijs.normaal());
    const toon = m.label && m.label.registratiedatum! <= datum ? m.label.label : null;
    const toev = [a.huisletter, a.toevoeging].filter((x) => x !== null).join('-') || null;
    verkopen.push({
      id: '',
      adres_id: a.id,
      postcode: a.postcode,
      huisnummer: a.huisnummer,
      toevoeging: toev,
      transactiedatum: datum,
      koopsom: Math.round(v / 500) * 500,
      oppervlakte: a.oppervlakte,
      perceel: m.perceel,
      bouwjaar: a.bouwjaar,
      woningtype: m.woningtype,
      energielabel: toon,
      lat: a.lat,
      lon: a.lon,
      bron: DEMO_BRON,
    });
  };
  const jaar = 365.25 * 86_400_000;
  for (const m of adressen) {
    if (m.woningtype === 'overig' || m.gehucht || m.adres.bouwjaar! >= 2026) continue;
    const lambda = m.woningtype === 'appartement' ? 0.055 : 0.045;
    const vroegst = new Date(Date.UTC(m.adres.bouwjaar! + 1, 0, 1));
    for (let k = 0; k < 6; k++) {
      if (!verkoopRng.kans(lambda)) continue;
      const van = new Date(VERKOOP_VANAF.getTime() + k * jaar);
      const tot = k === 5 ? VERKOOP_TOT_EN_MET : new Date(VERKOOP_VANAF.getTime() + (k + 1) * jaar - 86_400_000);
      const d = dag(verkoopRng, new Date(Date.UTC(van.getUTCFullYear(), van.getUTCMonth(), van.getUTCDate())), tot);
      if (d < vroegst) continue;
      verkoop(m, d);
    }
  }
  const gehucht = adressen.filter((m) => m.gehucht);
  verkoop(gehucht[3], new Date(Date.UTC(2022, 4, 17)));
  verkoop(gehucht[9], new Date(Date.UTC(2025, 2, 8)));
  verkopen.sort((a, b) => a.transactiedatum.getTime() - b.transactiedatum.getTime() || (a.adres_id! < b.adres_id! ? -1 : 1));
  verkopen.forEach((v, i) => (v.id = `demo-vk-${String(i + 1).padStart(6, '0')}`));

  // Price index rows: CBS 83906NED up to 2021-12 and the documented extrapolation, under the demo's
  // own regio so a real CBS import and the demo never overwrite each other's months.
  const prijsindex: PrijsindexRij[] = [...reeks.entries()].map(([k, index]) => ({
    tabel: '83906NED',
    regio: DEMO_INDEX_REGIO,
    periode: new Date(Date.UTC(+k.slice(0, 4), +k.slice(5, 7) - 1, 1)),
    index,
    bron: DEMO_BRON,
  }));

  return {
    adres: adressen.map((m) => m.adres),
    pand: panden,
    woningtype: woningtypen,
    energielabel: energielabels,
    woz_waarde: woz,
    invloed_object: invloedObjecten,
    adres_invloed: adresInvloed,
    verkoop: verkopen,
    prijsindex,
  };
}
