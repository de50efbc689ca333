/**
 * A synthetic country in the official formats, for `npm run bench:land`: `schaal` 1 is the whole
 * Netherlands (9.9 million addresses), 0.01 a hundredth of it.
 *
 * - LVBAG 2.0 extract as the national one nests it: one zip holding the Leveringsdocument, the
 *   GEM-WPL-RELATIE zip and per object type a zip of XML files of 10,000 objects each, in the structure
 *   of the Doesburg sample (test/fixtures/bag-lvbag-xml-doesburg). Towns of streets with rows of
 *   touching houses, semi-detached pairs, detached houses and apartment buildings, sheds without an
 *   address (~1.14 panden per address), 15 % of the objects with an extra, ended voorkomen.
 * - EP-Online CSV (newer header, metadata lines first) with a label for half the addresses.
 * - Sales (2 % of the homes a year over 5 years) and WOZ values in our CSV formats.
 * - GeoJSON influences: four Natura 2000 polygons of 3,000–5,000 vertices and four high-voltage lines.
 *
 * Deterministic (seeded) and written in bounded memory: one XML file per object type at a time.
 */
import { closeSync, createReadStream, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { Rng } from '../src/domain/register/demo/rng.ts';
import { rdNaarLonLat } from '../src/domain/register/import/geo.ts';

export const NL_ADRESSEN = 9_900_000;
const DATUM = '2026-11-01';
const DATUM_NAAM = '01112026';
const PER_BESTAND = 10_000;

// ------------------------------------------------------------------------------------------ zip writing

interface ZipEntry {
  naam: Buffer;
  crc: number;
  gecomprimeerd: number;
  grootte: number;
  offset: number;
  methode: number;
}

/** A zip written entry by entry to a file (deflated or stored), so nothing large is held in memory. */
class ZipSchrijver {
  private readonly fd: number;
  private offset = 0;
  private readonly entries: ZipEntry[] = [];
  readonly pad: string;
  constructor(pad: string) {
    this.pad = pad;
    this.fd = openSync(pad, 'w');
  }

  private schrijf(b: Buffer) {
    writeSync(this.fd, b);
    this.offset += b.length;
  }

  private kop(naam: Buffer, crc: number, gecomprimeerd: number, grootte: number, methode: number) {
    const kop = Buffer.alloc(30);
    kop.writeUInt32LE(0x04034b50, 0);
    kop.writeUInt16LE(20, 4);
    kop.writeUInt16LE(0x0800, 6);
    kop.writeUInt16LE(methode, 8);
    kop.writeUInt32LE(crc, 14);
    kop.writeUInt32LE(gecomprimeerd, 18);
    kop.writeUInt32LE(grootte, 22);
    kop.writeUInt16LE(naam.length, 26);
    this.entries.push({ naam, crc, gecomprimeerd, grootte, offset: this.offset, methode });
    this.schrijf(kop);
    this.schrijf(naam);
  }

  voegToe(naam: string, data: Buffer) {
    const comp = deflateRawSync(data);
    this.kop(Buffer.from(naam), crc32(data), comp.length, data.length, 8);
    this.schrijf(comp);
  }

  /** A file stored as is (a zip inside the zip), copied in chunks. */
  async voegBestandToe(naam: string, bestand: string) {
    let crc = 0;
    let grootte = 0;
    for await (const stuk of createReadStream(bestand)) {
      crc = crc32(stuk as Buffer, crc);
      grootte += (stuk as Buffer).length;
    }
    this.kop(Buffer.from(naam), crc, grootte, grootte, 0);
    const fd = openSync(bestand, 'r');
    const buf = Buffer.alloc(1 << 22);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      this.schrijf(buf.subarray(0, n));
    }
    closeSync(fd);
  }

  sluit() {
    const start = this.offset;
    for (const e of this.entries) {
      const c = Buffer.alloc(46);
      c.writeUInt32LE(0x02014b50, 0);
      c.writeUInt16LE(20, 4);
      c.writeUInt16LE(20, 6);
      c.writeUInt16LE(0x0800, 8);
      c.writeUInt16LE(e.methode, 10);
      c.writeUInt32LE(e.crc, 16);
      c.writeUInt32LE(e.gecomprimeerd, 20);
      c.writeUInt32LE(e.grootte, 24);
      c.writeUInt16LE(e.naam.length, 28);
      c.writeUInt32LE(e.offset, 42);
      this.schrijf(c);
      this.schrijf(e.naam);
    }
    const eind = Buffer.alloc(22);
    eind.writeUInt32LE(0x06054b50, 0);
    eind.writeUInt16LE(this.entries.length, 8);
    eind.writeUInt16LE(this.entries.length, 10);
    eind.writeUInt32LE(this.offset - start, 12);
    eind.writeUInt32LE(start, 16);
    this.schrijf(eind);
    closeSync(this.fd);
  }
}

// ------------------------------------------------------------------------------------------ LVBAG XML

const NS =
  'xmlns:DatatypenNEN3610="www.kadaster.nl/schemas/lvbag/imbag/datatypennen3610/v20200601" xmlns:Objecten="www.kadaster.nl/schemas/lvbag/imbag/objecten/v20200601" ' +
  'xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:Historie="www.kadaster.nl/schemas/lvbag/imbag/historie/v20200601" ' +
  'xmlns:Objecten-ref="www.kadaster.nl/schemas/lvbag/imbag/objecten-ref/v20200601" xmlns:selecties-extract="http://www.kadaster.nl/schemas/lvbag/extract-selecties/v20200601" ' +
  'xmlns:sl-bag-extract="http://www.kadaster.nl/schemas/lvbag/extract-deelbestand-lvc/v20200601" xmlns:sl="http://www.kadaster.nl/schemas/standlevering-generiek/1.0"';

function xmlKop(type: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<sl-bag-extract:bagStand ${NS}>\n<sl-bag-extract:bagInfo><selecties-extract:LVC-Extract>` +
    `<selecties-extract:StandTechnischeDatum>${DATUM}</selecties-extract:StandTechnischeDatum></selecties-extract:LVC-Extract></sl-bag-extract:bagInfo>\n` +
    `<sl:standBestand><sl:dataset>LVBAG</sl:dataset><sl:inhoud><sl:gebied>NLD</sl:gebied><sl:leveringsId>0000000001</sl:leveringsId>` +
    `<sl:objectTypen><sl:objectType>${type}</sl:objectType></sl:objectTypen></sl:inhoud><sl:stand>\n`
  );
}
const XML_STAART = '</sl:stand></sl:standBestand></sl-bag-extract:bagStand>\n';

function voorkomen(id: number, begin: string, eind?: string): string {
  return (
    `<Objecten:voorkomen><Historie:Voorkomen><Historie:voorkomenidentificatie>${id}</Historie:voorkomenidentificatie>` +
    `<Historie:beginGeldigheid>${begin}</Historie:beginGeldigheid>${eind ? `<Historie:eindGeldigheid>${eind}</Historie:eindGeldigheid>` : ''}` +
    `<Historie:tijdstipRegistratie>${begin}T10:00:00.000</Historie:tijdstipRegistratie><Historie:BeschikbaarLV>` +
    `<Historie:tijdstipRegistratieLV>${begin}T10:05:00.000</Historie:tijdstipRegistratieLV></Historie:BeschikbaarLV></Historie:Voorkomen></Objecten:voorkomen>`
  );
}

/** One object type: XML files of 10,000 objects, deflated into that type's zip. */
class TypeBestand {
  private buf: string[] = [];
  private n = 0;
  private volgnummer = 0;
  readonly zip: ZipSchrijver;
  objecten = 0;
  readonly type: string;
  constructor(type: string, map: string) {
    this.type = type;
    this.zip = new ZipSchrijver(path.join(map, `9998${type}${DATUM_NAAM}.zip`));
  }
  voeg(object: string) {
    this.buf.push(`<sl-bag-extract:bagObject>${object}</sl-bag-extract:bagObject>\n`);
    this.objecten++;
    if (++this.n >= PER_BESTAND) this.leeg();
  }
  private leeg() {
    if (this.n === 0) return;
    this.volgnummer++;
    const naam = `9998${this.type}${DATUM_NAAM}-${String(this.volgnummer).padStart(6, '0')}.xml`;
    this.zip.voegToe(naam, Buffer.from(xmlKop(this.type) + this.buf.join('') + XML_STAART));
    this.buf = [];
    this.n = 0;
  }
  sluit() {
    this.leeg();
    this.zip.sluit();
  }
}

// ------------------------------------------------------------------------------------------ the country

export interface LandBestanden {
  bag: string;
  energielabels: string;
  woz: string;
  verkopen: string;
  invloeden: string;
  adressen: number;
  panden: number;
  woningen: number;
}


const STRAATNAMEN = ['Kerkstraat', 'Dorpsstraat', 'Molenweg', 'Schoolstraat', 'Stationsweg', 'Julianastraat', 'Beatrixlaan', 'Wilhelminastraat', 'Eikenlaan', 'Nieuwstraat', 'Lindelaan', 'Prinsengracht'];

const rd = (x: number, y: number) => `${x.toFixed(3)} ${y.toFixed(3)} 0.0`;

function rechthoek(x: number, y: number, b: number, d: number): string {
  const p = [rd(x, y), rd(x + b, y), rd(x + b, y + d), rd(x, y + d), rd(x, y)];
  return (
    `<Objecten:geometrie><gml:Polygon srsName="urn:ogc:def:crs:EPSG::28992" srsDimension="3"><gml:exterior><gml:LinearRing>` +
    `<gml:posList count="5">${p.join(' ')}</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></Objecten:geometrie>`
  );
}

/**
 * Write the country's files into `map`: the BAG extract, and in the same pass the CSVs of the
 * residential addresses.
 */
export async function maakLand(map: string, schaal: number): Promise<LandBestanden> {
  const doel = Math.max(1000, Math.round(NL_ADRESSEN * schaal));
  const r = new Rng(20261125);
  const rnd = () => r.next();
  const types = Object.fromEntries(['WPL', 'OPR', 'NUM', 'PND', 'VBO'].map((t) => [t, new TypeBestand(t, map)])) as Record<string, TypeBestand>;
  const csv = {
    energielabels: new TekstBestand(path.join(map, 'ep-online.csv')),
    woz: new TekstBestand(path.join(map, 'woz.csv')),
    verkopen: new TekstBestand(path.join(map, 'verkopen.csv')),
  };
  csv.energielabels.regel('PublicatieDatum;01-11-2026');
  csv.energielabels.regel('LaatstVerwerkteMutatievolgnummer;1');
  csv.energielabels.regel(
    'Pand_opnamedatum;Pand_opnametype;Pand_status;Pand_berekeningstype;Pand_energieindex;Pand_energieklasse;Pand_energielabel_is_prive;Pand_is_op_basis_van_referentie_gebouw;Pand_gebouwklasse;Meting_geldig_tot;Pand_registratiedatum;Pand_postcode;Pand_huisnummer;Pand_huisletter;Pand_huisnummertoevoeging;Pand_detailaanduiding;Pand_bagverblijfsobjectid;Pand_bagligplaatsid;Pand_bagstandplaatsid;Pand_bagpandid;Pand_gebouwtype;Pand_gebouwsubtype',
  );
  csv.woz.regel('postcode;huisnummer;toevoeging;peildatum;waarde');
  csv.verkopen.regel('postcode;huisnummer;toevoeging;transactiedatum;koopsom;oppervlakte;perceel;bouwjaar;woningtype;energielabel;lat;lon');
  const LABELS = ['A++', 'A+', 'A', 'A', 'B', 'B', 'C', 'C', 'C', 'D', 'D', 'E', 'F', 'G'];

  let adressen = 0;
  let panden = 0;
  let woningen = 0;
  let nNum = 0;
  let nVbo = 0;
  let nPnd = 0;
  let nOpr = 0;
  const historisch = () => rnd() < 0.15;

  const pand = (x: number, y: number, b: number, d: number, bouwjaar: number): string => {
    const id = `9998100${String(++nPnd).padStart(9, '0')}`;
    panden++;
    const obj = (vk: string) =>
      `<Objecten:Pand><Objecten:identificatie domein="NL.IMBAG.Pand">${id}</Objecten:identificatie>${rechthoek(x, y, b, d)}` +
      `<Objecten:oorspronkelijkBouwjaar>${bouwjaar}</Objecten:oorspronkelijkBouwjaar><Objecten:status>Pand in gebruik</Objecten:status>` +
      `<Objecten:geconstateerd>N</Objecten:geconstateerd><Objecten:documentdatum>2015-01-01</Objecten:documentdatum><Objecten:documentnummer>B${nPnd}</Objecten:documentnummer>${vk}</Objecten:Pand>`;
    const oud = historisch();
    if (oud) types.PND.voeg(obj(voorkomen(1, '2005-01-01', '2015-01-01')));
    types.PND.voeg(obj(voorkomen(oud ? 2 : 1, '2015-01-01')));
    return id;
  };

  const adres = (opr: string, postcode: string, huisnummer: number, toevoeging: string, pandId: string, x: number, y: number, opp: number, bouwjaar: number, doel: string, woningtype: string) => {
    const num = `9998200${String(++nNum).padStart(9, '0')}`;
    const vbo = `9998010${String(++nVbo).padStart(9, '0')}`;
    adressen++;
    const numObj = (vk: string) =>
      `<Objecten:Nummeraanduiding><Objecten:identificatie domein="NL.IMBAG.Nummeraanduiding">${num}</Objecten:identificatie>` +
      `<Objecten:huisnummer>${huisnummer}</Objecten:huisnummer>${toevoeging ? `<Objecten:huisnummertoevoeging>${toevoeging}</Objecten:huisnummertoevoeging>` : ''}` +
      `<Objecten:postcode>${postcode}</Objecten:postcode><Objecten:typeAdresseerbaarObject>Verblijfsobject</Objecten:typeAdresseerbaarObject>` +
      `<Objecten:status>Naamgeving uitgegeven</Objecten:status><Objecten:geconstateerd>N</Objecten:geconstateerd><Objecten:documentdatum>2015-01-01</Objecten:documentdatum>` +
      `<Objecten:documentnummer>N${nNum}</Objecten:documentnummer>${vk}<Objecten:ligtAan><Objecten-ref:OpenbareRuimteRef domein="NL.IMBAG.Openbareruimte">${opr}</Objecten-ref:OpenbareRuimteRef></Objecten:ligtAan></Objecten:Nummeraanduiding>`;
    const oudNum = historisch();
    if (oudNum) types.NUM.voeg(numObj(voorkomen(1, '2005-01-01', '2015-01-01')));
    types.NUM.voeg(numObj(voorkomen(oudNum ? 2 : 1, '2015-01-01')));
    const vboObj = (vk: string, oppervlakte: number) =>
      `<Objecten:Verblijfsobject><Objecten:heeftAlsHoofdadres><Objecten-ref:NummeraanduidingRef domein="NL.IMBAG.Nummeraanduiding">${num}</Objecten-ref:NummeraanduidingRef></Objecten:heeftAlsHoofdadres>` +
      `${vk}<Objecten:identificatie domein="NL.IMBAG.Verblijfsobject">${vbo}</Objecten:identificatie><Objecten:geometrie><Objecten:punt>` +
      `<gml:Point srsName="urn:ogc:def:crs:EPSG::28992" srsDimension="3"><gml:pos>${rd(x, y)}</gml:pos></gml:Point></Objecten:punt></Objecten:geometrie>` +
      `<Objecten:gebruiksdoel>${doel}</Objecten:gebruiksdoel><Objecten:oppervlakte>${oppervlakte}</Objecten:oppervlakte><Objecten:status>Verblijfsobject in gebruik</Objecten:status>` +
      `<Objecten:geconstateerd>N</Objecten:geconstateerd><Objecten:documentdatum>2015-01-01</Objecten:documentdatum><Objecten:documentnummer>V${nVbo}</Objecten:documentnummer>` +
      `<Objecten:maaktDeelUitVan><Objecten-ref:PandRef domein="NL.IMBAG.Pand">${pandId}</Objecten-ref:PandRef></Objecten:maaktDeelUitVan></Objecten:Verblijfsobject>`;
    const oudVbo = historisch();
    if (oudVbo) types.VBO.voeg(vboObj(voorkomen(1, '2005-01-01', '2015-01-01'), opp + 7));
    types.VBO.voeg(vboObj(voorkomen(oudVbo ? 2 : 1, '2015-01-01'), opp));
    if (doel !== 'woonfunctie') return;
    woningen++;
    const [lon, lat] = rdNaarLonLat(x, y);
    const regio = 0.7 + 0.6 * ((x - 13000) / 265000); // prices differ across the country
    const m2 = Math.round(3200 * regio * (0.85 + 0.3 * rnd()));
    csv.woz.regel(`${postcode};${huisnummer};${toevoeging};2025-01-01;${Math.round((m2 * opp * 0.9) / 1000) * 1000}`);
    const label = LABELS[Math.floor(rnd() * LABELS.length)];
    if (rnd() < 0.5) {
      const jaar = 2015 + Math.floor(rnd() * 11);
      const dag = `${jaar}${String(1 + Math.floor(rnd() * 12)).padStart(2, '0')}${String(1 + Math.floor(rnd() * 28)).padStart(2, '0')}`;
      csv.energielabels.regel(
        `${dag};Basis;Bestaand;NTA 8800;;${label};Nee;Nee;W;${jaar + 10}${dag.slice(4)};${dag};${postcode};${huisnummer};;${toevoeging};;${vbo};;;${pandId};${woningtype === 'appartement' ? 'Appartement' : 'Eengezinswoning'};`,
      );
    }
    for (let j = 0; j < 5; j++) {
      if (rnd() >= 0.02) continue;
      const jaar = 2021 + j;
      const maand = 1 + Math.floor(rnd() * 12);
      const groei = 1 + 0.06 * (jaar - 2021 + maand / 12);
      const koopsom = Math.round((m2 * opp * groei * (0.9 + 0.2 * rnd())) / 500) * 500;
      csv.verkopen.regel(
        `${postcode};${huisnummer};${toevoeging};${jaar}-${String(maand).padStart(2, '0')}-15;${koopsom};${opp};${woningtype === 'appartement' ? '' : Math.round(opp * 1.6)};${bouwjaar};${woningtype};${label};${lat.toFixed(6)};${lon.toFixed(6)}`,
      );
    }
  };

  const gemeenten = new Map<string, string>();
  // Identifiers start 9998, not 9999: that is the demo town's code, which a server loads beside these.
  // Towns of ~4,000 addresses at random places on land-ish RD coordinates, ~30,000 per gemeente.
  const steden: { x: number; y: number }[] = [];
  let wplNr = 0;
  while (adressen < doel) {
    wplNr++;
    const wpl = String(1000 + (wplNr % 9000)).padStart(4, '0');
    const gemeente = String(1 + Math.floor((wplNr - 1) / 7)).padStart(4, '0');
    const cx = 40000 + rnd() * 210000;
    const cy = 330000 + rnd() * 260000;
    steden.push({ x: cx, y: cy });
    types.WPL.voeg(
      `<Objecten:Woonplaats><Objecten:identificatie domein="NL.IMBAG.Woonplaats">${wpl}</Objecten:identificatie><Objecten:naam>Plaats ${wplNr}</Objecten:naam>` +
        `<Objecten:status>Woonplaats aangewezen</Objecten:status><Objecten:geconstateerd>N</Objecten:geconstateerd><Objecten:documentdatum>2010-01-01</Objecten:documentdatum>` +
        `<Objecten:documentnummer>W${wplNr}</Objecten:documentnummer>${voorkomen(1, '2010-01-01')}</Objecten:Woonplaats>`,
    );
    gemeenten.set(wpl, gemeente);
    const pc4 = String(1000 + ((wplNr * 7) % 9000));
    let inPc6 = 0;
    let pc6 = 0;
    const postcode = () => {
      if (inPc6++ >= 20) {
        inPc6 = 1;
        pc6++;
      }
      return `${pc4}${String.fromCharCode(65 + Math.floor(pc6 / 26) % 26)}${String.fromCharCode(65 + (pc6 % 26))}`;
    };
    const eind = Math.min(doel, adressen + 4000);
    for (let straat = 0; adressen < eind; straat++) {
      const opr = `9998300${String(++nOpr).padStart(9, '0')}`;
      types.OPR.voeg(
        `<Objecten:OpenbareRuimte><Objecten:identificatie domein="NL.IMBAG.Openbareruimte">${opr}</Objecten:identificatie><Objecten:naam>${STRAATNAMEN[straat % STRAATNAMEN.length]} ${Math.floor(straat / STRAATNAMEN.length) + 1}</Objecten:naam>` +
          `<Objecten:type>Weg</Objecten:type><Objecten:status>Naamgeving uitgegeven</Objecten:status><Objecten:geconstateerd>N</Objecten:geconstateerd>` +
          `<Objecten:documentdatum>2010-01-01</Objecten:documentdatum><Objecten:documentnummer>O${nOpr}</Objecten:documentnummer>` +
          `<Objecten:ligtIn><Objecten-ref:WoonplaatsRef domein="NL.IMBAG.Woonplaats">${wpl}</Objecten-ref:WoonplaatsRef></Objecten:ligtIn>${voorkomen(1, '2010-01-01')}</Objecten:OpenbareRuimte>`,
      );
      // A street: buildings along x, the street's row 40 m from the previous one.
      const y = cy + (straat % 40) * 40;
      let x = cx + Math.floor(straat / 40) * 900;
      let nummer = 1;
      for (let k = 0; k < 12 && adressen < eind; k++) {
        const soort = rnd();
        const bouwjaar = 1900 + Math.floor(rnd() * 125);
        // Shares chosen so the country has ~1.14 panden per address, as the BAG has: rows 40 %, pairs
        // 20 %, detached 28 %, apartment buildings 12 %, and a shed or garage (a pand without an
        // address) behind most houses.
        const schuur = (sx: number) => {
          if (rnd() < 0.8) pand(sx, y + 16, 3, 3, bouwjaar);
        };
        if (soort < 0.4) {
          const n = 3 + Math.floor(rnd() * 6);
          for (let i = 0; i < n && adressen < eind; i++) {
            const p = pand(x, y, 6, 9, bouwjaar);
            adres(opr, postcode(), nummer++, '', p, x + 3, y + 4, 90 + Math.floor(rnd() * 40), bouwjaar, 'woonfunctie', i === 0 || i === n - 1 ? 'hoekwoning' : 'tussenwoning');
            schuur(x + 1);
            x += 6;
          }
        } else if (soort < 0.6) {
          for (let i = 0; i < 2 && adressen < eind; i++) {
            const p = pand(x, y, 8, 10, bouwjaar);
            adres(opr, postcode(), nummer++, '', p, x + 4, y + 5, 120 + Math.floor(rnd() * 40), bouwjaar, 'woonfunctie', 'twee-onder-een-kap');
            schuur(x + 2);
            x += 8;
          }
        } else if (soort < 0.88) {
          const p = pand(x, y, 11, 10, bouwjaar);
          adres(opr, postcode(), nummer++, '', p, x + 5, y + 5, 140 + Math.floor(rnd() * 80), bouwjaar, rnd() < 0.9 ? 'woonfunctie' : 'kantoorfunctie', 'vrijstaand');
          schuur(x + 4);
          if (rnd() < 0.5) pand(x + 8, y + 16, 3, 3, bouwjaar);
          x += 11;
        } else {
          const p = pand(x, y, 24, 14, bouwjaar);
          const n = 6 + Math.floor(rnd() * 19);
          const huis = nummer++;
          const pc = postcode();
          for (let i = 0; i < n && adressen < eind; i++) adres(opr, pc, huis, String(i + 1), p, x + 1 + (i % 22), y + 2 + (i % 10), 45 + Math.floor(rnd() * 60), bouwjaar, 'woonfunctie', 'appartement');
          x += 24;
        }
        x += 5;
      }
    }
  }
  for (const t of Object.values(types)) t.sluit();
  for (const c of Object.values(csv)) await c.sluit();

  const gwr = new ZipSchrijver(path.join(map, `GEM-WPL-RELATIE-${DATUM_NAAM}.zip`));
  const rel = [...gemeenten]
    .map(
      ([wpl, gem]) =>
        `<gwr-product:GemeenteWoonplaatsRelatie><gwr-product:tijdvakgeldigheid><bagtypes:begindatumTijdvakGeldigheid>2010-01-01</bagtypes:begindatumTijdvakGeldigheid></gwr-product:tijdvakgeldigheid>` +
        `<gwr-product:gerelateerdeWoonplaats><gwr-product:identificatie>${wpl}</gwr-product:identificatie></gwr-product:gerelateerdeWoonplaats>` +
        `<gwr-product:gerelateerdeGemeente><gwr-product:identificatie>${gem}</gwr-product:identificatie></gwr-product:gerelateerdeGemeente><gwr-product:status>definitief</gwr-product:status></gwr-product:GemeenteWoonplaatsRelatie>`,
    )
    .join('\n');
  gwr.voegToe(
    `GEM-WPL-RELATIE-${DATUM_NAAM}-000001.xml`,
    Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?>\n<gwr-bestand:BAG-GWR-Deelbestand-LVC xmlns:gwr-bestand="www.kadaster.nl/schemas/lvbag/gem-wpl-rel/gwr-deelbestand-lvc/v20200601" xmlns:selecties-extract="http://www.kadaster.nl/schemas/lvbag/extract-selecties/v20200601" xmlns:bagtypes="www.kadaster.nl/schemas/lvbag/gem-wpl-rel/bag-types/v20200601" xmlns:gwr-product="www.kadaster.nl/schemas/lvbag/gem-wpl-rel/gwr-producten-lvc/v20200601">` +
        `<gwr-bestand:SelectieGegevens><selecties-extract:StandTechnischeDatum>${DATUM}</selecties-extract:StandTechnischeDatum></gwr-bestand:SelectieGegevens>` +
        `<gwr-bestand:Product><gwr-product:GemeenteWoonplaatsRelatieProduct>\n${rel}\n</gwr-product:GemeenteWoonplaatsRelatieProduct></gwr-bestand:Product></gwr-bestand:BAG-GWR-Deelbestand-LVC>\n`,
    ),
  );
  gwr.sluit();

  const bag = path.join(map, `lvbag-extract-nl-${DATUM_NAAM}.zip`);
  const buiten = new ZipSchrijver(bag);
  buiten.voegToe(
    'Leveringsdocument-BAG-Extract.xml',
    Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?>\n<xb:BAG-Extract-Levering xmlns:xb="http://www.kadaster.nl/schemas/lvbag/extract-levering/v20200601" xmlns:selecties-extract="http://www.kadaster.nl/schemas/lvbag/extract-selecties/v20200601">` +
        `<xb:SelectieGegevens><selecties-extract:LVC-Extract><selecties-extract:StandTechnischeDatum>${DATUM}</selecties-extract:StandTechnischeDatum></selecties-extract:LVC-Extract>` +
        `<selecties-extract:Gebied-Registratief><selecties-extract:Gebied-NLD><selecties-extract:GebiedIdentificatie>NLD</selecties-extract:GebiedIdentificatie></selecties-extract:Gebied-NLD></selecties-extract:Gebied-Registratief></xb:SelectieGegevens></xb:BAG-Extract-Levering>\n`,
    ),
  );
  await buiten.voegBestandToe(`GEM-WPL-RELATIE-${DATUM_NAAM}.zip`, gwr.pad);
  for (const t of Object.values(types)) await buiten.voegBestandToe(path.basename(t.zip.pad), t.zip.pad);
  buiten.sluit();

  const invloeden = path.join(map, 'invloeden.geojson');
  await schrijfInvloeden(invloeden, steden, rnd);
  return { bag, energielabels: csv.energielabels.pad, woz: csv.woz.pad, verkopen: csv.verkopen.pad, invloeden, adressen, panden, woningen };
}

/** A text file written line by line in 1 MB pieces. */
class TekstBestand {
  private readonly fd: number;
  private buf: string[] = [];
  private lengte = 0;
  readonly pad: string;
  constructor(pad: string) {
    this.pad = pad;
    this.fd = openSync(pad, 'w');
  }
  regel(s: string) {
    this.buf.push(s);
    this.lengte += s.length + 1;
    if (this.lengte > 1 << 20) this.leeg();
  }
  private leeg() {
    writeSync(this.fd, `${this.buf.join('\n')}\n`);
    this.buf = [];
    this.lengte = 0;
  }
  async sluit() {
    if (this.buf.length) this.leeg();
    closeSync(this.fd);
  }
}

/** Four Natura 2000 areas (3,000–5,000 vertices, around towns, so some addresses are inside) and four lines. */
async function schrijfInvloeden(bestand: string, steden: { x: number; y: number }[], rnd: () => number) {
  const features: unknown[] = [];
  for (let g = 0; g < 4; g++) {
    const c = steden[Math.floor((g * steden.length) / 4)];
    const n = 3000 + g * 600;
    const ring: [number, number][] = [];
    for (let i = 0; i < n; i++) {
      const a = (2 * Math.PI * i) / n;
      const r = 2500 * (1 + 0.2 * Math.sin(5 * a + g) + 0.05 * Math.sin(61 * a)) + 3 * rnd();
      ring.push(rdNaarLonLat(c.x + 600 + r * Math.cos(a), c.y + 800 + r * Math.sin(a)));
    }
    ring.push(ring[0]);
    features.push({ type: 'Feature', id: `n2k-${g + 1}`, properties: { type: 'natura2000', naam: `Proefgebied ${g + 1}`, bron: 'bench:land' }, geometry: { type: 'Polygon', coordinates: [ring] } });
  }
  for (let l = 0; l < 4; l++) {
    const punten: [number, number][] = [];
    const y0 = 340000 + l * 65000;
    for (let i = 0; i <= 60; i++) punten.push(rdNaarLonLat(20000 + i * 4200, y0 + 30000 * Math.sin(i / 9 + l)));
    features.push({ type: 'Feature', id: `hs-${l + 1}`, properties: { type: 'hoogspanning', naam: `Lijn ${l + 1}`, bron: 'bench:land' }, geometry: { type: 'LineString', coordinates: punten } });
  }
  const t = new TekstBestand(bestand);
  t.regel(JSON.stringify({ type: 'FeatureCollection', features }));
  await t.sluit();
}
