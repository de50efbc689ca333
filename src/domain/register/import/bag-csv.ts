/** `insight import bag-csv`: NLExtract's bagadres-full.csv or bagadresplus.csv (docs/import-formaten.md). */
import { andereSoortHint, bestanden, beschrijfKop, kopVanEerste, type Bron, type BronItem } from './bron.ts';
import type { Readable } from 'node:stream';
import { eersteRegel, leesCsvRecords } from './csv.ts';
import { controleerUtf8 } from './utf8.ts';
import { EINDSTATUS, ruimBeeindigdeOp } from './opruimen.ts';
import { SchijfSet } from './schijf-set.ts';
import { geldigLonLat, geldigRd, rdNaarLonLat } from './geo.ts';
import { invloedenNaBag } from './invloeden-na.ts';
import { type ImportRecord, type LeesContext, VerkeerdFormaatFout, bagSoort, bouwjaarOfNull } from './types.ts';
import { citeer, geldigePostcode } from '../../begrippen.ts';

const VERWACHT =
  "een NLExtract-adresbestand bagadres-full.csv (';'-gescheiden, kopregel openbareruimte;huisnummer;huisletter;huisnummertoevoeging;postcode;woonplaats;gemeente;provincie;nummeraanduiding;verblijfsobjectgebruiksdoel;...;x;y;lon;lat), los of gezipt";

interface Variant {
  naam: 'bagadres-full' | 'bagadresplus';
  bron: string;
  kolommen: Record<string, string>;
  verplicht: string[];
}

const FULL: Variant = {
  naam: 'bagadres-full',
  bron: 'NLExtract bagadres-full',
  kolommen: {
    straat: 'openbareruimte',
    huisnummer: 'huisnummer',
    huisletter: 'huisletter',
    toevoeging: 'huisnummertoevoeging',
    postcode: 'postcode',
    woonplaats: 'woonplaats',
    gemeente: 'gemeente',
    id: 'nummeraanduiding',
    gebruiksdoel: 'verblijfsobjectgebruiksdoel',
    oppervlakte: 'oppervlakteadresseerbaarobject',
    status: 'verblijfsobjectstatus',
    object_id: 'object_id',
    object_type: 'object_type',
    pand_id: 'pandid',
    pandstatus: 'pandstatus',
    bouwjaar: 'pandbouwjaar',
    x: 'x',
    y: 'y',
    lon: 'lon',
    lat: 'lat',
  },
  verplicht: ['openbareruimte', 'huisnummer', 'postcode', 'woonplaats', 'nummeraanduiding', 'object_type'],
};

const GEBRUIKSDOELEN = [
  'woonfunctie',
  'bijeenkomstfunctie',
  'celfunctie',
  'gezondheidszorgfunctie',
  'industriefunctie',
  'kantoorfunctie',
  'logiesfunctie',
  'onderwijsfunctie',
  'sportfunctie',
  'winkelfunctie',
  'overige_gebruiksfunctie',
];

const PLUS: Variant = {
  naam: 'bagadresplus',
  bron: 'NLExtract bagadresplus',
  kolommen: {
    straat: 'openbareruimtenaam',
    huisnummer: 'huisnummer',
    huisletter: 'huisletter',
    toevoeging: 'huisnummertoevoeging',
    postcode: 'postcode',
    woonplaats: 'woonplaats',
    gemeente: 'gemeente',
    gemeente_code: 'gemeentecode',
    id: 'nummeraanduiding_id',
    oppervlakte: 'opp_adresseerbaarobject_m2',
    status: 'adresseerbaarobject_status',
    object_id: 'adresseerbaarobject_id',
    object_type: 'typeadresseerbaarobject',
    pand_id: 'pand_id',
    pandstatus: 'pandstatus',
    bouwjaar: 'bouwjaar',
    x: 'x',
    y: 'y',
    lon: 'lon',
    lat: 'lat',
    woningtype: 'woningtype',
  },
  verplicht: ['openbareruimtenaam', 'huisnummer', 'postcode', 'woonplaats', 'nummeraanduiding_id', 'typeadresseerbaarobject'],
};

export const NLEXTRACT_WONINGTYPE: Record<string, string> = {
  appartement: 'appartement',
  'vrijstaande woning': 'vrijstaand',
  tweeonder1kap: 'twee-onder-een-kap',
  hoekwoning: 'hoekwoning',
  'tussen of geschakelde woning': 'tussenwoning',
};

const OBJECT_TYPE: Record<string, string> = {
  vbo: 'verblijfsobject',
  verblijfsobject: 'verblijfsobject',
  lig: 'ligplaats',
  ligplaats: 'ligplaats',
  sta: 'standplaats',
  standplaats: 'standplaats',
};

const isCsv = (i: BronItem) => /\.(csv|txt)$/i.test(i.basis) && !i.basis.startsWith('._');

function kiesVariant(kopregel: string): { variant: Variant; index: Map<string, number> } {
  const namen = kopregel.split(';').map((n) => n.trim().replace(/^"|"$/g, '').toLowerCase());
  const index = new Map<string, number>();
  namen.forEach((n, i) => {
    if (!index.has(n)) index.set(n, i);
  });
  for (const v of [FULL, PLUS]) {
    if (v.verplicht.every((c) => index.has(c))) return { variant: v, index };
  }
  if (index.has('object_id') && index.has('openbareruimte') && !index.has('nummeraanduiding')) {
    throw new VerkeerdFormaatFout(
      `Dit is NLExtract bagadres.csv zonder nummeraanduiding-id's; die kan niet idempotent worden geïmporteerd. Gebruik bagadres-full.csv. Verwacht: ${VERWACHT}.`,
    );
  }
  const ontbreekt = FULL.verplicht.filter((c) => !index.has(c));
  throw new VerkeerdFormaatFout(
    `Dit is geen NLExtract bagadres-full CSV: kolom(men) ${ontbreekt.join(', ')} ontbreken in de kopregel "${kopregel.slice(0, 120)}".` +
      `${andereSoortHint(kopregel)} Verwacht: ${VERWACHT}.`,
  );
}

async function controleer(bron: Bron): Promise<void> {
  if (bron.soort === 'bestand') {
    const b = beschrijfKop(bron.kop);
    if (b.soort === 'sqlite') throw new VerkeerdFormaatFout(`Dit is ${b.tekst}, geen CSV. Voor PDOK bag-light.gpkg: gebruik \`insight import bag-gpkg\`. Verwacht: ${VERWACHT}.`);
    if (b.soort === 'xml') throw new VerkeerdFormaatFout(`Dit is ${b.tekst}, geen CSV. Voor het LVBAG-extract: gebruik \`insight import bag-xml\`. Verwacht: ${VERWACHT}.`);
    if (b.soort !== 'tekst') throw new VerkeerdFormaatFout(`Dit is ${b.tekst}, geen CSV. Verwacht: ${VERWACHT}.`);
    kiesVariant(eersteRegel(bron.kop));
    return controleerUtf8(bron, () => true);
  }
  const eerste = await kopVanEerste(bron, isCsv);
  if (!eerste) {
    throw new VerkeerdFormaatFout(`In ${bron.soort === 'zip' ? 'deze zip' : 'deze map'} staat geen .csv-bestand. Verwacht: ${VERWACHT}.`);
  }
  kiesVariant(eersteRegel(eerste.kop));
  await controleerUtf8(bron, isCsv);
}

const NUMMERAANDUIDING = /^\d{16}$/;

function getal(v: string | null): number | null | undefined {
  if (v === null) return null;
  const n = Number(v.replace(',', '.'));
  return Number.isFinite(n) ? n : undefined;
}

function geheel(v: string | null): number | null | undefined {
  if (v === null) return null;
  return /^-?\d{1,9}$/.test(v) ? Number(v) : undefined;
}

/** A trimmed field or null (empty or no such column). */
function veld(v: string[], i: number | undefined): string | null {
  if (i === undefined) return null;
  const w = v[i];
  if (w === '') return null;
  const c0 = w.charCodeAt(0);
  const c1 = w.charCodeAt(w.length - 1);
  if (c0 > 32 && c1 > 32) return w;
  const t = w.trim();
  return t === '' ? null : t;
}

interface CsvStaat {
  variant: Variant;
  idx: Record<string, number | undefined>;
  aantalKolommen: number;
  doelKolommen: [string, number][];
  /** Ended objects and panden, deleted after the writes (opruimen.ts). */
  weg: SchijfSet;
  overgeslagen: (reden: string) => void;
  /** The export lists a pand's addresses one after another. */
  vorigPand: { id: string; bouwjaar: number | null; status: string | null } | null;
}

function verwerkRij(v: string[], regel: number, st: CsvStaat, uit: ImportRecord[]): void {
  const fout = (reden: string): ImportRecord => ({ ok: false, regel, reden });
  if (v.length !== st.aantalKolommen) {
    uit.push(fout(`verwacht ${st.aantalKolommen} velden, gevonden ${v.length}`));
    return;
  }
  const i = st.idx;
  const id = veld(v, i.id);
  if (!id || !NUMMERAANDUIDING.test(id)) {
    uit.push(fout(id ? `ongeldige nummeraanduiding ${citeer(id)} (16 cijfers verwacht)` : 'nummeraanduiding ontbreekt'));
    return;
  }
  const status = veld(v, i.status);
  if (status && EINDSTATUS.has(status.toLowerCase())) {
    st.overgeslagen(`status ${citeer(status)}`);
    const obj = veld(v, i.object_id);
    if (obj) st.weg.zet(`a:${id}`, obj);
    return;
  }
  const pcRuw = veld(v, i.postcode);
  const postcode = geldigePostcode(pcRuw);
  if (!postcode) {
    uit.push(fout(pcRuw ? `ongeldige postcode ${citeer(pcRuw)}` : 'postcode ontbreekt'));
    return;
  }
  const hnRuw = veld(v, i.huisnummer);
  const huisnummer = hnRuw && /^\d{1,5}$/.test(hnRuw) ? Number(hnRuw) : 0;
  if (huisnummer < 1) {
    uit.push(fout(hnRuw ? `ongeldig huisnummer ${citeer(hnRuw)}` : 'huisnummer ontbreekt'));
    return;
  }
  const straat = veld(v, i.straat);
  const woonplaats = veld(v, i.woonplaats);
  if (!straat || !woonplaats) {
    uit.push(fout(!straat ? 'straatnaam (openbareruimte) ontbreekt' : 'woonplaats ontbreekt'));
    return;
  }
  const otRuw = veld(v, i.object_type);
  const objectType = otRuw ? OBJECT_TYPE[otRuw.toLowerCase()] : undefined;
  if (!objectType) {
    uit.push(fout(otRuw ? `onbekend objecttype ${citeer(otRuw)} (VBO, LIG of STA verwacht)` : 'objecttype ontbreekt'));
    return;
  }
  const oppervlakte = geheel(veld(v, i.oppervlakte));
  const bouwjaarRuw = geheel(veld(v, i.bouwjaar));
  const bouwjaar = bouwjaarRuw === undefined ? undefined : bouwjaarOfNull(bouwjaarRuw, new Date().getUTCFullYear());
  const x = getal(veld(v, i.x));
  const y = getal(veld(v, i.y));
  let lon = getal(veld(v, i.lon));
  let lat = getal(veld(v, i.lat));
  if (oppervlakte === undefined) {
    uit.push(fout(`ongeldige oppervlakte ${citeer(veld(v, i.oppervlakte))}`));
    return;
  }
  if (bouwjaar === undefined) {
    uit.push(fout(`ongeldig bouwjaar ${citeer(veld(v, i.bouwjaar))}`));
    return;
  }
  if (x === undefined || y === undefined || lon === undefined || lat === undefined) {
    uit.push(fout(`ongeldige coördinaat (x ${citeer(veld(v, i.x))}, y ${citeer(veld(v, i.y))}, lon ${citeer(veld(v, i.lon))}, lat ${citeer(veld(v, i.lat))})`));
    return;
  }
  if ((x === null) !== (y === null) || (lon === null) !== (lat === null)) {
    uit.push(fout('onvolledige coördinaat (x/y of lon/lat half ingevuld)'));
    return;
  }
  if (x !== null && y !== null && !geldigRd(x, y)) {
    uit.push(fout(`RD-coördinaat buiten Nederland (${x}, ${y})`));
    return;
  }
  if (lon === null && x !== null && y !== null) [lon, lat] = rdNaarLonLat(x, y);
  if (lon !== null && lat !== null && !geldigLonLat(lon, lat)) {
    uit.push(fout(`coördinaat buiten Nederland (lon ${lon}, lat ${lat})`));
    return;
  }
  const pandId = veld(v, i.pand_id);
  if (pandId && !NUMMERAANDUIDING.test(pandId)) {
    uit.push(fout(`ongeldig pand-id ${citeer(pandId)} (16 cijfers verwacht)`));
    return;
  }
  let gebruiksdoelen: string[] | null;
  if (st.variant === PLUS) {
    const d = st.doelKolommen.filter(([, i]) => v[i].trim() === '1').map(([naam]) => naam.replace('_', ' '));
    gebruiksdoelen = d.length ? d : null;
  } else {
    const d = (veld(v, i.gebruiksdoel) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    gebruiksdoelen = d.length ? d : null;
  }
  const objectId = veld(v, i.object_id);
  uit.push({
    ok: true,
    tabel: 'adres',
    regel,
    rij: {
      id,
      postcode,
      huisnummer,
      huisletter: veld(v, i.huisletter),
      toevoeging: veld(v, i.toevoeging),
      straat,
      woonplaats,
      gemeente: veld(v, i.gemeente),
      ...(i.gemeente_code !== undefined ? { gemeente_code: veld(v, i.gemeente_code) } : {}),
      object_type: objectType,
      object_id: objectId,
      pand_id: pandId,
      gebruiksdoelen,
      oppervlakte,
      bouwjaar,
      status,
      rd_x: x,
      rd_y: y,
      lat,
      lon,
      bron: st.variant.bron,
      bron_datum: null,
    },
  });
  if (pandId) {
    // Every address repeats its pand's bouwjaar and status: an identical repeat of the pand just emitted
    // would only be dropped by the writer, so it is not emitted. A pand that differs is, so later rows win.
    const pandStatus = veld(v, i.pandstatus);
    const vorig = st.vorigPand;
    if (pandStatus && EINDSTATUS.has(pandStatus.toLowerCase())) st.weg.zet(`p:${pandId}`);
    else if (!vorig || vorig.id !== pandId || vorig.bouwjaar !== bouwjaar || vorig.status !== pandStatus) {
      st.vorigPand = { id: pandId, bouwjaar, status: pandStatus };
      uit.push({ ok: true, tabel: 'pand', regel, bijproduct: true, rij: { id: pandId, bouwjaar, status: pandStatus, bron: st.variant.bron } });
    }
  }
  if (st.variant === PLUS) {
    const wtRuw = veld(v, i.woningtype);
    const wt = wtRuw ? NLEXTRACT_WONINGTYPE[wtRuw.toLowerCase()] : undefined;
    if (wt) {
      uit.push({
        ok: true,
        tabel: 'woningtype',
        regel,
        bijproduct: true,
        rij: { adres_id: id, woningtype: wt, afgeleid_uit: `NLExtract bagadresplus: ${wtRuw}`, bron: st.variant.bron },
      });
    }
  }
}

async function* leesBestand(stroom: Readable, ctx: LeesContext, weg: SchijfSet): AsyncGenerator<ImportRecord[]> {
  let st: CsvStaat | null = null;
  for await (const items of leesCsvRecords(stroom, ';')) {
    const uit: ImportRecord[] = [];
    for (const item of items) {
      if (item.fout !== undefined) uit.push({ ok: false, regel: item.regel, reden: item.fout });
      else if (st) verwerkRij(item.velden, item.regel, st, uit);
      else {
        const k = kiesVariant(item.velden.join(';'));
        st = {
          variant: k.variant,
          aantalKolommen: item.velden.length,
          idx: Object.fromEntries(Object.entries(k.variant.kolommen).map(([ons, csv]) => [ons, k.index.get(csv)])),
          doelKolommen:
            k.variant === PLUS ? GEBRUIKSDOELEN.map((d) => [d, k.index.get(d)] as [string, number]).filter(([, i]) => i !== undefined) : [],
          vorigPand: null,
          weg,
          overgeslagen: (r) => ctx.overgeslagen(r),
        };
        ctx.extra.csvVariant = k.variant.naam;
      }
    }
    if (uit.length) yield uit;
  }
  if (!st) throw new VerkeerdFormaatFout(`Het bestand is leeg of heeft geen kopregel. Verwacht: ${VERWACHT}.`);
}

async function* lees(bron: Bron | null, ctx: LeesContext): AsyncGenerator<ImportRecord[]> {
  const weg = new SchijfSet();
  let overgedragen = false;
  try {
    for await (const b of bestanden(bron!, { filter: (i) => i.isZip || bron!.soort === 'bestand' || isCsv(i) })) {
      for await (const deel of leesBestand(await b.open(), ctx, weg)) {
        yield bron!.soort === 'bestand' ? deel : deel.map((r) => (r.ok ? r : { ...r, reden: `${b.naam}: ${r.reden}` }));
      }
    }
    overgedragen = true;
    ctx.naSchrijven({ voer: (db) => ruimBeeindigdeOp(db, weg, new Date().toISOString().slice(0, 10)), sluit: () => weg.sluit() });
  } finally {
    if (!overgedragen) weg.sluit();
  }
}

export const bagCsv = bagSoort({
  naam: 'bag-csv',
  omschrijving: 'NLExtract bagadres-full.csv (ook bagadresplus.csv): adressen en panden (zonder geometrie)',
  verwacht: VERWACHT,
  controleer,
  lees,
  na: invloedenNaBag,
});
