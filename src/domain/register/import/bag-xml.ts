/**
 * `insight import bag-xml`: the LVBAG 2.0 standlevering (docs/import-formaten.md). Files come in any order
 * and a national extract holds ~10M objects per kind, so each object is staged in a temporary SQLite
 * database on disk and the joins run there, streaming out by id: Node's heap stays flat.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { MultiPolygon, Polygon, Position } from 'geojson';
import { SaxesParser } from 'saxes';
import { beschrijfKop, bestanden, kopVanEerste, lijstItems, type Bron, type BronItem } from './bron.ts';
import { beterPand, geoJsonPolygonen, pandKandidaat, type PandKandidaat, geldigRd, rdNaarLonLat, rdPolygonenNaarGeoJson, ringZwaartepunt, zwaartepunt, leesPosList } from './geo.ts';
import { type FoutRecord, type ImportRecord, type LeesContext, VerkeerdFormaatFout, bagSoort, bouwjaarOfNull } from './types.ts';
import { gemeenteNaam } from './gemeenten.ts';
import { EINDSTATUS, verwijderAdressen, verwijderPanden } from './opruimen.ts';
import { tijdelijkeMap } from './tijdelijk.ts';
import { StrikteDecoder } from './utf8.ts';
import { woningtypeNa } from './woningtype-soort.ts';
import type { Database } from '../../../db/client.ts';
import { DEMO_BRON } from '../demo/opzet.ts';
import { citeer, normaliseerPostcode, POSTCODE_RE } from '../../begrippen.ts';

const VERWACHT =
  'een LVBAG 2.0-extract (BAG 2.0 Extract, standlevering): een zip of map met XML-bestanden als 9999NUM08012021-000001.xml, ...VBO..., ...PND..., ...OPR..., ...WPL..., ...LIG..., ...STA... (bij het landelijke extract zips in een zip)';

type ObjectSoort = 'WPL' | 'OPR' | 'NUM' | 'PND' | 'VBO' | 'LIG' | 'STA';

const OBJECT_ELEMENT: Record<string, ObjectSoort> = {
  Woonplaats: 'WPL',
  OpenbareRuimte: 'OPR',
  Nummeraanduiding: 'NUM',
  Pand: 'PND',
  Verblijfsobject: 'VBO',
  Ligplaats: 'LIG',
  Standplaats: 'STA',
};

const NIET_ACTUEEL = new Set([...EINDSTATUS, 'woonplaats ingetrokken']);

type Rol = ObjectSoort | 'GEM' | 'LEV' | 'OVERSLAAN' | 'ONBEKEND';

export function rolVan(item: BronItem): Rol {
  const b = item.basis;
  if (/inactief|inonderzoek|nietbag/i.test(item.naam)) return 'OVERSLAAN';
  if (/GEM-WPL-RELATIE/i.test(b)) return 'GEM';
  if (/leveringsdocument/i.test(b) && /\.xml$/i.test(b)) return 'LEV';
  if (!item.isZip && !/\.xml$/i.test(b)) return 'OVERSLAAN';
  const m = /(LIG|NUM|OPR|PND|STA|VBO|WPL)(?=\d{8})/.exec(b) ?? /(LIG|NUM|OPR|PND|STA|VBO|WPL)/.exec(b);
  if (m) return m[1] as ObjectSoort;
  return item.isZip ? 'ONBEKEND' : 'OVERSLAAN';
}

const leesbaar = (i: BronItem) => {
  const r = rolVan(i);
  return r !== 'OVERSLAAN' && (i.isZip || r !== 'ONBEKEND');
};

async function controleer(bron: Bron): Promise<void> {
  if (bron.soort === 'bestand') {
    const b = beschrijfKop(bron.kop);
    const hint =
      b.soort === 'tekst'
        ? ' Voor een NLExtract-CSV: gebruik `insight import bag-csv`.'
        : b.soort === 'sqlite'
          ? ' Voor PDOK bag-light.gpkg: gebruik `insight import bag-gpkg`.'
          : b.soort === 'xml'
            ? ' Geef de hele extract-zip of de map met alle XML-bestanden, niet één los bestand.'
            : '';
    throw new VerkeerdFormaatFout(`Dit is ${b.tekst}, geen LVBAG-extract.${hint} Verwacht: ${VERWACHT}.`);
  }
  const items = await lijstItems(bron);
  const rollen = new Set(items.map(rolVan));
  const zipsOnbekend = items.some((i) => i.isZip && rolVan(i) === 'ONBEKEND');
  if (!zipsOnbekend && !(rollen.has('NUM') && (rollen.has('VBO') || rollen.has('LIG') || rollen.has('STA')))) {
    const gevonden = items.slice(0, 8).map((i) => i.naam).join(', ');
    throw new VerkeerdFormaatFout(
      `Dit is geen LVBAG-extract: ${bron.soort === 'zip' ? 'de zip' : 'de map'} bevat geen NUM- en VBO/LIG/STA-bestanden (gevonden: ${gevonden || 'niets'}${items.length > 8 ? ', ...' : ''}). Verwacht: ${VERWACHT}.`,
    );
  }
  // Not a mutation file or another XML.
  const eerste = await kopVanEerste(bron, (i) => !i.isZip && ['NUM', 'VBO', 'PND', 'OPR', 'WPL', 'LIG', 'STA'].includes(rolVan(i)), 8192);
  if (!eerste) throw new VerkeerdFormaatFout(`Geen BAG-objectbestanden gevonden. Verwacht: ${VERWACHT}.`);
  const b = beschrijfKop(eerste.kop);
  if (b.soort !== 'xml' || !/bagStand/.test(b.tekst)) {
    throw new VerkeerdFormaatFout(
      `${eerste.item.naam} is ${b.tekst}, geen BAG 2.0-standlevering (hoofdelement bagStand; mutatiebestanden worden niet ondersteund). Verwacht: ${VERWACHT}.`,
    );
  }
}

const SCHEMA = `
CREATE TABLE wpl (id TEXT PRIMARY KEY, naam TEXT, begin TEXT, vk INTEGER) WITHOUT ROWID;
CREATE TABLE gem (wpl TEXT PRIMARY KEY, gem TEXT, begin TEXT, definitief INTEGER) WITHOUT ROWID;
CREATE TABLE opr (id TEXT PRIMARY KEY, naam TEXT, wpl TEXT, begin TEXT, vk INTEGER) WITHOUT ROWID;
CREATE TABLE num (id TEXT PRIMARY KEY, postcode TEXT, huisnummer INTEGER, huisletter TEXT, toevoeging TEXT, opr TEXT, wpl TEXT,
  fout TEXT, weg INTEGER, begin TEXT, vk INTEGER) WITHOUT ROWID;
CREATE TABLE pnd (id TEXT PRIMARY KEY, bouwjaar INTEGER, status TEXT, geom TEXT, regel TEXT, weg INTEGER, begin TEXT, vk INTEGER) WITHOUT ROWID;
CREATE TABLE ao (id TEXT PRIMARY KEY, soort TEXT, hoofd TEXT, neven TEXT, pand TEXT, panden TEXT, doelen TEXT, opp INTEGER, status TEXT,
  x REAL, y REAL, regel TEXT, weg INTEGER, begin TEXT, vk INTEGER) WITHOUT ROWID;
CREATE TABLE geweigerd (id TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE gezien (id TEXT PRIMARY KEY) WITHOUT ROWID;
`;

const LAATSTE_WINT = (t: string, kolommen: string[]) =>
  `ON CONFLICT(id) DO UPDATE SET ${kolommen.map((c) => `${c} = excluded.${c}`).join(', ')}, begin = excluded.begin, vk = excluded.vk ` +
  `WHERE excluded.begin > ${t}.begin OR (excluded.begin = ${t}.begin AND excluded.vk > ${t}.vk)`;

class Staging {
  readonly db: DatabaseSync;
  readonly dir: string;
  readonly st: Record<string, StatementSync>;
  #inTx = 0;

  constructor() {
    this.dir = tijdelijkeMap('insight-bagxml-');
    this.db = new DatabaseSync(path.join(this.dir, 'staging.sqlite'));
    this.db.exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -65536; PRAGMA temp_store = FILE;');
    this.db.exec(SCHEMA);
    const ins = (t: string, kolommen: string[]) =>
      this.db.prepare(
        `INSERT INTO ${t} (id, ${kolommen.join(', ')}, begin, vk) VALUES (?, ${kolommen.map(() => '?').join(', ')}, ?, ?) ${LAATSTE_WINT(t, kolommen)}`,
      );
    this.st = {
      wpl: ins('wpl', ['naam']),
      opr: ins('opr', ['naam', 'wpl']),
      num: ins('num', ['postcode', 'huisnummer', 'huisletter', 'toevoeging', 'opr', 'wpl', 'fout', 'weg']),
      pnd: ins('pnd', ['bouwjaar', 'status', 'geom', 'regel', 'weg']),
      ao: ins('ao', ['soort', 'hoofd', 'neven', 'pand', 'panden', 'doelen', 'opp', 'status', 'x', 'y', 'regel', 'weg']),
      geweigerd: this.db.prepare('INSERT OR IGNORE INTO geweigerd (id) VALUES (?)'),
      gem: this.db.prepare(
        `INSERT INTO gem (wpl, gem, begin, definitief) VALUES (?, ?, ?, ?) ON CONFLICT(wpl) DO UPDATE SET gem = excluded.gem, begin = excluded.begin,
         definitief = excluded.definitief WHERE (excluded.definitief, excluded.begin) > (gem.definitief, gem.begin)`,
      ),
    };
  }

  tel(): void {
    if (this.#inTx === 0) this.db.exec('BEGIN');
    if (++this.#inTx >= 10_000) {
      this.db.exec('COMMIT');
      this.#inTx = 0;
    }
  }

  commit(): void {
    if (this.#inTx > 0) this.db.exec('COMMIT');
    this.#inTx = 0;
  }

  sluit(): void {
    try {
      this.db.close();
    } catch {
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

interface BagObject {
  soort: ObjectSoort;
  regel: number;
  id: string | null;
  vk: number;
  begin: string | null;
  eind: string | null;
  velden: Record<string, string>;
  doelen: string[];
  hoofd: string | null;
  neven: string[];
  panden: string[];
  opr: string | null;
  wpl: string | null;
  punt: Position | null;
  polygonen: Position[][][];
  fout: string | null;
}

interface GemWpl {
  begin: string | null;
  eind: string | null;
  wpl: string | null;
  gem: string | null;
  status: string | null;
}

const local = (naam: string) => {
  const i = naam.indexOf(':');
  return i >= 0 ? naam.slice(i + 1) : naam;
};

const VELD_ELEMENTEN = new Set([
  'naam',
  'status',
  'huisnummer',
  'huisletter',
  'huisnummertoevoeging',
  'postcode',
  'typeAdresseerbaarObject',
  'oorspronkelijkBouwjaar',
  'oppervlakte',
]);

interface XmlUitkomst {
  peildatum: string | null;
  gemeenten: Map<string, string>;
  /** The Leveringsdocument's area: the whole country or these gemeenten. */
  gebied: 'NLD' | Set<string> | null;
}

async function parseXml(
  stroom: Readable,
  bestand: string,
  object: (o: BagObject) => void,
  gemWpl: (g: GemWpl) => void,
  uit: XmlUitkomst,
): Promise<void> {
  const p = new SaxesParser({ position: true });
  const stack: string[] = [];
  const dims: number[] = [];
  let tekst = '';
  let obj: BagObject | null = null;
  let objDiepte = 0;
  let poly: Position[][] | null = null;
  let gem: GemWpl | null = null;
  let gemDiepte = 0;
  let levGemeente: string | null = null;
  let overslaanTekst = false;

  p.on('opentag', (tag) => {
    const naam = local(tag.name);
    const ouder = stack[stack.length - 1];
    stack.push(naam);
    const srs = tag.attributes.srsDimension;
    dims.push(typeof srs === 'string' && /^[23]$/.test(srs) ? Number(srs) : (dims[dims.length - 1] ?? 2));
    tekst = '';
    if (!obj && ouder === 'bagObject' && OBJECT_ELEMENT[naam]) {
      obj = {
        soort: OBJECT_ELEMENT[naam],
        regel: p.line,
        id: null,
        vk: 0,
        begin: null,
        eind: null,
        velden: {},
        doelen: [],
        hoofd: null,
        neven: [],
        panden: [],
        opr: null,
        wpl: null,
        punt: null,
        polygonen: [],
        fout: null,
      };
      objDiepte = stack.length;
    } else if (obj && naam === 'Polygon') {
      poly = [];
    } else if (obj && naam === 'geometrie' && obj.soort === 'WPL') {
      overslaanTekst = true; // woonplaats outlines are large and not needed
    } else if (!obj && naam === 'GemeenteWoonplaatsRelatie') {
      gem = { begin: null, eind: null, wpl: null, gem: null, status: null };
      gemDiepte = stack.length;
    }
  });
  p.on('text', (t) => {
    if (!overslaanTekst) tekst += t;
  });
  p.on('closetag', (tag) => {
    const naam = local(tag.name);
    const ouder = stack[stack.length - 2];
    const waarde = tekst.trim();
    const dim = dims[dims.length - 1];
    if (obj) {
      if (stack.length === objDiepte) {
        object(obj);
        obj = null;
      } else if (naam === 'identificatie' && stack.length === objDiepte + 1) {
        obj.id = waarde;
      } else if (naam === 'voorkomenidentificatie') {
        obj.vk = Number(waarde) || 0;
      } else if (naam === 'beginGeldigheid') {
        obj.begin = waarde;
      } else if (naam === 'eindGeldigheid') {
        obj.eind = waarde;
      } else if (naam === 'NummeraanduidingRef') {
        if (ouder === 'heeftAlsHoofdadres') obj.hoofd = waarde;
        else if (ouder === 'heeftAlsNevenadres') obj.neven.push(waarde);
      } else if (naam === 'PandRef' && ouder === 'maaktDeelUitVan') {
        obj.panden.push(waarde);
      } else if (naam === 'OpenbareRuimteRef' && ouder === 'ligtAan') {
        obj.opr = waarde;
      } else if (naam === 'WoonplaatsRef' && ouder === 'ligtIn') {
        obj.wpl = waarde;
      } else if (naam === 'gebruiksdoel' && stack.length === objDiepte + 1) {
        obj.doelen.push(waarde);
      } else if (VELD_ELEMENTEN.has(naam) && stack.length === objDiepte + 1) {
        obj.velden[naam] = waarde;
      } else if (naam === 'pos' && !overslaanTekst) {
        const pts = leesPosList(waarde, dim);
        if (pts?.length === 1) obj.punt = pts[0];
        else obj.fout ??= `ongeldige coördinaat ${citeer(waarde)}`;
      } else if (naam === 'posList' && !overslaanTekst && poly) {
        const ring = leesPosList(waarde, dim);
        if (!ring || ring.length < 4) obj.fout ??= 'ongeldige geometrie (posList)';
        else if (ouder === 'LinearRing' && stack[stack.length - 3] === 'interior') poly.push(ring);
        else poly.unshift(ring);
      } else if (naam === 'Polygon' && poly) {
        if (poly.length) obj.polygonen.push(poly);
        poly = null;
      } else if (naam === 'geometrie') {
        overslaanTekst = false;
      }
    } else if (gem) {
      if (stack.length === gemDiepte) {
        gemWpl(gem);
        gem = null;
      } else if (naam === 'begindatumTijdvakGeldigheid') gem.begin = waarde;
      else if (naam === 'einddatumTijdvakGeldigheid') gem.eind = waarde;
      else if (naam === 'identificatie' && ouder === 'gerelateerdeWoonplaats') gem.wpl = waarde;
      else if (naam === 'identificatie' && ouder === 'gerelateerdeGemeente') gem.gem = waarde;
      else if (naam === 'status') gem.status = waarde;
    } else if (naam === 'StandTechnischeDatum') {
      if (/^\d{4}-\d{2}-\d{2}$/.test(waarde)) uit.peildatum ??= waarde;
    } else if (naam === 'Gebied-NLD') {
      uit.gebied = 'NLD';
    } else if (naam === 'GemeenteIdentificatie') {
      levGemeente = waarde;
      const g = uit.gebied ?? new Set<string>();
      if (stack.includes('Gebied-GEM') && g !== 'NLD') uit.gebied = g.add(waarde.padStart(4, '0'));
    } else if (naam === 'GemeenteNaam' && levGemeente) {
      uit.gemeenten.set(levGemeente, waarde);
    }
    stack.pop();
    dims.pop();
    tekst = '';
  });

  const decoder = new StrikteDecoder();
  try {
    for await (const chunk of stroom) {
      p.write(decoder.decode(chunk as Buffer));
    }
    p.write(decoder.decode());
    p.close();
  } catch (e) {
    stroom.destroy();
    const m = e instanceof Error ? e.message : String(e);
    throw new Error(`XML-fout in ${bestand}: ${m}. Het extract is onvolledig of beschadigd; er is niets geschreven.`);
  }
}

const huidig = (o: { begin: string | null; eind: string | null }, peil: string) =>
  o.begin !== null && o.begin.slice(0, 10) <= peil && (o.eind === null || o.eind.slice(0, 10) > peil);

function plausibelBouwjaar(v: string | undefined, peil: string): number | null {
  if (!v || !/^\d{3,4}$/.test(v)) return null;
  return bouwjaarOfNull(Number(v), Number(peil.slice(0, 4)));
}

const rond3 = (v: number) => Math.round(v * 1000) / 1000;

async function* lees(bron: Bron | null, ctx: LeesContext): AsyncGenerator<ImportRecord> {
  const staging = new Staging();
  const fouten: FoutRecord[] = [];
  const uit: XmlUitkomst = { peildatum: null, gemeenten: new Map(), gebied: null };
  let overgedragen = false;
  const vandaag = new Date().toISOString().slice(0, 10);
  let huidigBestand = '';
  const weiger = (o: BagObject, reden: string) => {
    if (o.id) staging.st.geweigerd.run(o.id); // its rows stay
    fouten.push({ ok: false, regel: o.regel, reden: `${huidigBestand}: ${reden}` });
  };

  const object = (o: BagObject) => {
    const peil = uit.peildatum ?? vandaag;
    if (!o.id || !/^\d{4,16}$/.test(o.id)) {
      weiger(o, `${o.soort}-object zonder geldige identificatie`);
      return;
    }
    if (!huidig(o, peil)) {
      ctx.overgeslagen('historische voorkomens');
      return;
    }
    const status = o.velden.status ?? null;
    const begin = o.begin ?? '';
    if (status && NIET_ACTUEEL.has(status.toLowerCase())) {
      ctx.overgeslagen(`status ${citeer(status)}`);
      // Staged as ended, so a later voorkomen still wins and the sweep deletes what it held.
      staging.tel();
      if (o.soort === 'NUM') staging.st.num.run(o.id, null, null, null, null, null, null, null, 1, begin, o.vk);
      else if (o.soort === 'PND') staging.st.pnd.run(o.id, null, status, null, null, 1, begin, o.vk);
      else if (o.soort === 'VBO' || o.soort === 'LIG' || o.soort === 'STA') staging.st.ao.run(o.id, o.soort, null, '[]', null, null, null, null, status, null, null, null, 1, begin, o.vk);
      return;
    }
    staging.tel();
    switch (o.soort) {
      case 'WPL':
        staging.st.wpl.run(o.id, o.velden.naam ?? null, begin, o.vk);
        break;
      case 'OPR':
        staging.st.opr.run(o.id, o.velden.naam ?? null, o.wpl, begin, o.vk);
        break;
      case 'NUM': {
        const hn = o.velden.huisnummer;
        const huisnummer = hn && /^\d{1,5}$/.test(hn) && Number(hn) >= 1 ? Number(hn) : null;
        const pc = o.velden.postcode ? normaliseerPostcode(o.velden.postcode) : null;
        let fout: string | null = null;
        if (huisnummer === null) fout = hn ? `ongeldig huisnummer ${citeer(hn)}` : 'huisnummer ontbreekt';
        else if (pc !== null && !POSTCODE_RE.test(pc)) fout = `ongeldige postcode ${citeer(o.velden.postcode)}`;
        else if (!o.opr) fout = 'openbare ruimte (ligtAan) ontbreekt';
        staging.st.num.run(o.id, pc, huisnummer, o.velden.huisletter ?? null, o.velden.huisnummertoevoeging ?? null, o.opr, o.wpl, fout, 0, begin, o.vk);
        break;
      }
      case 'PND': {
        if (o.fout || o.polygonen.length === 0) {
          weiger(o, `pand ${o.id}: ${o.fout ?? 'geometrie ontbreekt'}`);
          return;
        }
        const geom = rdPolygonenNaarGeoJson(o.polygonen);
        staging.st.pnd.run(o.id, plausibelBouwjaar(o.velden.oorspronkelijkBouwjaar, peil), status, JSON.stringify(geom), `${huidigBestand}:${o.regel}`, 0, begin, o.vk);
        break;
      }
      case 'VBO':
      case 'LIG':
      case 'STA': {
        if (!o.hoofd) {
          weiger(o, `${o.soort} ${o.id}: hoofdadres ontbreekt`);
          return;
        }
        if (o.fout) {
          weiger(o, `${o.soort} ${o.id}: ${o.fout}`);
          return;
        }
        let xy: { x: number; y: number } | null = o.punt ? { x: o.punt[0], y: o.punt[1] } : zwaartepunt(o.polygonen);
        if (xy && !geldigRd(xy.x, xy.y)) {
          weiger(o, `${o.soort} ${o.id}: coördinaat buiten Nederland (${xy.x}, ${xy.y})`);
          return;
        }
        let opp: number | null = null;
        if (o.soort === 'VBO') {
          const v = o.velden.oppervlakte;
          opp = v && /^\d{1,9}$/.test(v) ? Number(v) : null;
          if (v && opp === null) {
            weiger(o, `VBO ${o.id}: ongeldige oppervlakte ${citeer(v)}`);
            return;
          }
        } else if (o.polygonen.length) {
          opp = Math.round(o.polygonen.reduce((s, p) => s + Math.abs(ringZwaartepunt(p[0]).oppervlak), 0));
        }
        if (xy) xy = { x: rond3(xy.x), y: rond3(xy.y) };
        const pand = [...o.panden].sort()[0] ?? null;
        staging.st.ao.run(
          o.id,
          o.soort,
          o.hoofd,
          JSON.stringify(o.neven),
          pand,
          o.panden.length > 1 ? JSON.stringify(o.panden) : null,
          o.doelen.length ? JSON.stringify(o.doelen) : null,
          opp,
          status,
          xy?.x ?? null,
          xy?.y ?? null,
          `${huidigBestand}:${o.regel}`,
          0,
          begin,
          o.vk,
        );
        break;
      }
    }
  };
  const gemWpl = (g: GemWpl) => {
    const peil = uit.peildatum ?? vandaag;
    if (!g.wpl || !g.gem || !huidig(g, peil)) return;
    staging.tel();
    staging.st.gem.run(g.wpl, g.gem, g.begin ?? '', g.status === 'definitief' ? 1 : 0);
  };

  try {
    ctx.fase('lezen');
    for await (const b of bestanden(bron!, { filter: leesbaar })) {
      huidigBestand = b.naam;
      await parseXml(await b.open(), b.naam, object, gemWpl, uit);
      staging.commit();
      while (fouten.length) yield fouten.shift()!;
    }
    const peil = uit.peildatum ?? vandaag;
    const bronTekst = `BAG 2.0 Extract ${peil}`;
    ctx.extra.peildatum = peil;

    ctx.fase('panden');
    for (const r of staging.db.prepare('SELECT id, bouwjaar, status, geom FROM pnd WHERE weg = 0 ORDER BY id').iterate() as Iterable<{
      id: string;
      bouwjaar: number | null;
      status: string | null;
      geom: string;
    }>) {
      yield { ok: true, tabel: 'pand', rij: { id: r.id, bouwjaar: r.bouwjaar, status: r.status, geometrie: JSON.parse(r.geom), bron: bronTekst } };
    }

    kiesPanden(staging);

    ctx.fase('adressen');
    const adressen = staging.db.prepare(`
      WITH nad AS (
        SELECT hoofd AS nad, id AS ao, 0 AS neven FROM ao WHERE weg = 0
        UNION ALL SELECT j.value, ao.id, 1 FROM ao, json_each(ao.neven) j WHERE ao.weg = 0
      )
      SELECT nad.nad, nad.neven, ao.id AS ao_id, ao.soort, ao.pand, ao.doelen, ao.opp, ao.status, ao.x, ao.y, ao.regel,
        n.id AS num_id, n.postcode, n.huisnummer, n.huisletter, n.toevoeging, n.opr, n.fout,
        o.naam AS straat, COALESCE(n.wpl, o.wpl) AS wpl_id, w.naam AS woonplaats, g.gem, p.bouwjaar
      FROM nad JOIN ao ON ao.id = nad.ao
      LEFT JOIN num n ON n.id = nad.nad AND n.weg = 0
      LEFT JOIN opr o ON o.id = n.opr
      LEFT JOIN wpl w ON w.id = COALESCE(n.wpl, o.wpl)
      LEFT JOIN gem g ON g.wpl = COALESCE(n.wpl, o.wpl)
      LEFT JOIN pnd p ON p.id = ao.pand AND p.weg = 0
      ORDER BY nad.nad, nad.neven, ao.id`);
    let vorige = '';
    for (const r of adressen.iterate() as Iterable<Record<string, string | number | null>>) {
      const nad = String(r.nad);
      if (nad === vorige) continue; // a nummeraanduiding used by two objects: the hoofdadres wins
      vorige = nad;
      const [bestand, regelTekst] = String(r.regel).split(/:(?=\d+$)/);
      const regel = Number(regelTekst) || 0;
      const soortTekst = r.soort === 'VBO' ? 'verblijfsobject' : r.soort === 'LIG' ? 'ligplaats' : 'standplaats';
      const weigerAdres = (reden: string): FoutRecord => ({ ok: false, regel, reden: `${bestand}: ${soortTekst} ${r.ao_id}, ${r.neven ? 'nevenadres' : 'hoofdadres'} ${nad}: ${reden}` });
      if (r.num_id === null) {
        yield weigerAdres('nummeraanduiding ontbreekt in het extract of is niet actueel');
        continue;
      }
      if (r.fout) {
        yield weigerAdres(String(r.fout));
        continue;
      }
      if (r.postcode === null) {
        yield weigerAdres('nummeraanduiding heeft geen postcode');
        continue;
      }
      if (r.straat === null) {
        yield weigerAdres(`openbare ruimte ${r.opr} ontbreekt in het extract`);
        continue;
      }
      if (r.woonplaats === null) {
        yield weigerAdres(`woonplaats ${r.wpl_id ?? '(onbekend)'} ontbreekt in het extract`);
        continue;
      }
      const x = r.x as number | null;
      const y = r.y as number | null;
      const ll = x !== null && y !== null ? rdNaarLonLat(x, y) : null;
      const gemCode = r.gem === null ? null : String(r.gem).padStart(4, '0');
      yield {
        ok: true,
        tabel: 'adres',
        regel,
        rij: {
          id: nad,
          postcode: r.postcode,
          huisnummer: r.huisnummer,
          huisletter: r.huisletter,
          toevoeging: r.toevoeging,
          straat: r.straat,
          woonplaats: r.woonplaats,
          gemeente: gemCode ? (uit.gemeenten.get(gemCode) ?? gemeenteNaam(gemCode, peil)) : null,
          gemeente_code: gemCode,
          object_type: soortTekst,
          object_id: r.ao_id,
          pand_id: r.pand,
          gebruiksdoelen: r.doelen === null ? null : JSON.parse(String(r.doelen)),
          oppervlakte: r.opp,
          bouwjaar: r.bouwjaar,
          status: r.status,
          rd_x: x,
          rd_y: y,
          lon: ll?.[0] ?? null,
          lat: ll?.[1] ?? null,
          bron: bronTekst,
          bron_datum: peil,
        },
      };
    }
    overgedragen = true;
    ctx.naSchrijven({ voer: (db) => ruimOp(db, staging, peil, uit.gebied), sluit: () => staging.sluit() });
  } finally {
    if (!overgedragen) staging.sluit();
  }
}

/** A verblijfsobject in several panden: one pass over those objects, each pand looked up by id (geo.ts beterPand). */
function kiesPanden(staging: Staging): void {
  const sq = staging.db;
  sq.exec('CREATE TABLE keuze (id TEXT PRIMARY KEY, pand TEXT) WITHOUT ROWID');
  const geoms = sq.prepare('SELECT p.id, p.geom FROM json_each(?) j JOIN pnd p ON p.id = j.value AND p.weg = 0');
  const zet = sq.prepare('INSERT INTO keuze (id, pand) VALUES (?, ?)');
  const rijen = sq.prepare('SELECT id, panden, x, y FROM ao WHERE weg = 0 AND panden IS NOT NULL').iterate() as Iterable<{
    id: string;
    panden: string;
    x: number | null;
    y: number | null;
  }>;
  for (const r of rijen) {
    const punt = r.x !== null && r.y !== null ? rdNaarLonLat(r.x, r.y) : null;
    let beste: PandKandidaat | undefined;
    for (const p of geoms.all(r.panden) as { id: string; geom: string }[]) {
      const k = pandKandidaat(p.id, geoJsonPolygonen(JSON.parse(p.geom) as Polygon | MultiPolygon), punt);
      if (beterPand(k, beste)) beste = k;
    }
    if (beste) {
      staging.tel();
      zet.run(r.id, beste.id);
    }
  }
  staging.commit();
  sq.exec('UPDATE ao SET pand = (SELECT k.pand FROM keuze k WHERE k.id = ao.id) WHERE id IN (SELECT id FROM keuze)');
}

const PAGINA = 5000;

/**
 * After the writes: deletes the addresses and panden whose object this extract ends (ingetrokken, gesloopt, ...)
 * and, when the Leveringsdocument names the area, BAG-extract rows of that area it no longer holds. Rows from
 * a newer extract stay. One pass over the table by id, looked up in the staging file: flat memory.
 */
async function ruimOp(db: Database, staging: Staging, peil: string, gebied: 'NLD' | Set<string> | null): Promise<Record<string, unknown>> {
  const sq = staging.db;
  sq.exec(`INSERT OR IGNORE INTO gezien SELECT hoofd FROM ao WHERE weg = 0 AND hoofd IS NOT NULL;
    INSERT OR IGNORE INTO gezien SELECT j.value FROM ao, json_each(ao.neven) j WHERE ao.weg = 0;`);
  const een = (sql: string) => {
    const st = sq.prepare(sql);
    return (id: string | null) => id !== null && st.get(id) !== undefined;
  };
  // A page's ids in one statement each: a call per row cost more than the rest of the pass.
  const perPagina = (sql: string) => {
    const st = sq.prepare(sql);
    return (ids: string[]) => new Map((st.all(JSON.stringify(ids)) as { id: string; weg: number }[]).map((r) => [r.id, r.weg]));
  };
  const gezienIn = perPagina('SELECT g.id, 0 AS weg FROM json_each(?) j JOIN gezien g ON g.id = j.value');
  const pndIn = perPagina('SELECT p.id, p.weg FROM json_each(?) j JOIN pnd p ON p.id = j.value');
  const aoWeg = een('SELECT 1 FROM ao WHERE id = ? AND weg = 1');
  const numWeg = een('SELECT 1 FROM num WHERE id = ? AND weg = 1');
  const geweigerd = een('SELECT 1 FROM geweigerd WHERE id = ?');
  const binnen = (bron: string, gem: string | null) =>
    gebied !== null && bron.startsWith('BAG 2.0 Extract ') && (gebied === 'NLD' || (gem !== null && gebied.has(gem)));
  const t = { adressen: 0, ingetrokken: 0, nietInExtract: 0, panden: 0 };
  let ouderDanBestaand = 0;

  for (let na = ''; ; ) {
    const rijen = (await db.prisma.$queryRawUnsafe(
      `SELECT id, object_id, bron, to_char(bron_datum, 'YYYY-MM-DD') AS datum, gemeente_code FROM adres WHERE id > $1 AND bron <> $2 ORDER BY id LIMIT ${PAGINA}`,
      na,
      DEMO_BRON,
    )) as { id: string; object_id: string | null; bron: string; datum: string | null; gemeente_code: string | null }[];
    const weg: string[] = [];
    const gezien = gezienIn(rijen.map((r) => r.id));
    for (const r of rijen) {
      const nieuwer = r.datum !== null && r.datum > peil;
      if (gezien.has(r.id)) {
        if (nieuwer) ouderDanBestaand++;
      } else if (!nieuwer && (aoWeg(r.object_id) || numWeg(r.id))) {
        weg.push(r.id);
        t.ingetrokken++;
      } else if (!nieuwer && binnen(r.bron, r.gemeente_code) && !geweigerd(r.object_id)) {
        weg.push(r.id);
        t.nietInExtract++;
      }
    }
    if (weg.length) t.adressen += await verwijderAdressen(db, weg, peil);
    if (rijen.length < PAGINA) break;
    na = rijen[rijen.length - 1].id;
  }

  const panden = async (ids: string[]) => {
    t.panden += await verwijderPanden(db, ids, peil);
  };
  if (gebied === 'NLD') {
    for (let na = ''; ; ) {
      const rijen = (await db.prisma.$queryRawUnsafe(`SELECT id, bron FROM pand WHERE id > $1 AND bron <> $2 ORDER BY id LIMIT ${PAGINA}`, na, DEMO_BRON)) as { id: string; bron: string }[];
      const inExtract = pndIn(rijen.map((r) => r.id));
      await panden(rijen.filter((r) => inExtract.get(r.id) === 1 || (!inExtract.has(r.id) && binnen(r.bron, null) && !geweigerd(r.id))).map((r) => r.id));
      if (rijen.length < PAGINA) break;
      na = rijen[rijen.length - 1].id;
    }
  } else {
    let ids: string[] = [];
    for (const r of sq.prepare('SELECT id FROM pnd WHERE weg = 1').iterate() as Iterable<{ id: string }>) {
      ids.push(r.id);
      if (ids.length >= PAGINA) {
        await panden(ids);
        ids = [];
      }
    }
    await panden(ids);
  }
  return { verwijderd: t, gebied: gebied === null ? null : gebied === 'NLD' ? 'NLD' : [...gebied].sort(), ouderDanBestaand };
}

export const bagXml = bagSoort({
  naam: 'bag-xml',
  omschrijving: 'LVBAG 2.0-extract (XML, zip of map; landelijk: zips in een zip): adressen, panden met footprint; daarna woningtype afleiden',
  verwacht: VERWACHT,
  controleer,
  lees,
  na: woningtypeNa,
});
