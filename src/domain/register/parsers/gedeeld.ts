/** Rows keyed by column name, dates at 00:00 UTC. */
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { Geometry } from 'geojson';
import type { PrismaClient } from '../../../generated/prisma/client.ts';
import { StrikteDecoder } from '../import/utf8.ts';
import { citeer, datumKolom, datumUtc, geldigePostcode, leesDatumIso, schoneToevoeging, toevoegingSleutel } from '../../begrippen.ts';

export interface ParseOk<T extends string, R> {
  ok: true;
  tabel: T;
  rij: R;
  /** A row refused later (unknown address) is reported by its line, not its record number. */
  regel?: number;
}

export interface ParseFout {
  ok: false;
  /** For GeoJSON: the line where the feature starts. */
  regel: number;
  reden: string;
}

export interface AdresSleutel {
  postcode: string;
  huisnummer: number;
  huisletter: string | null;
  toevoeging: string | null;
  /**
   * One combined addition column (our WOZ/sales CSV, EP-Online's older `Pand_huisnummer_toev`): "A" may be a
   * huisletter or a toevoeging, so 14A and 14-A are both candidates.
   */
  gecombineerd: boolean;
  /** Breaks ties. */
  verblijfsobjectId: string | null;
}

export interface EnergielabelRij {
  adres_id: string | null;
  label: string | null;
  registratiedatum: Date | null;
  geldig_tot: Date | null;
  opnametype: string | null;
  energie_index: number | null;
  bron: string;
}

export interface WozRij {
  adres_id: string | null;
  peildatum: Date;
  waarde: number;
  bron: string;
}

export interface VerkoopRij {
  id: string;
  adres_id: string | null;
  postcode: string | null;
  huisnummer: number | null;
  toevoeging: string | null;
  transactiedatum: Date;
  koopsom: number;
  oppervlakte: number | null;
  perceel: number | null;
  bouwjaar: number | null;
  woningtype: string | null;
  energielabel: string | null;
  lat: number | null;
  lon: number | null;
  bron: string;
}

export interface PrijsindexRij {
  tabel: string;
  regio: string;
  periode: Date;
  index: number;
  bron: string;
}

export interface InvloedObjectRij {
  id: string;
  type: string;
  naam: string | null;
  geometrie: Geometry;
  bron: string;
}

export interface ParseOkMetAdres<T extends string, R> extends ParseOk<T, R> {
  adres: AdresSleutel;
}

export type CsvScheiding = ';' | ',' | 'auto';

/** `open`: the file's last line, with no line end after it (possibly cut off). */
export type CsvItem = { soort: 'rij'; velden: string[]; regel: number; open?: true } | { soort: 'fout'; regel: number; reden: string };

const KOP_MAX_BYTES = 64 * 1024;
/** A longer line is refused without being held (docs/import-formaten.md). */
export const MAX_REGEL_TEKENS = 1_000_000;

export function controleerTekstbestand(kop: Buffer, verwacht: string): void {
  if (kop.length >= 4 && kop[0] === 0x50 && kop[1] === 0x4b && kop[2] === 0x03 && kop[3] === 0x04) {
    throw new Error(`Dit is een zip-bestand, geen ${verwacht}. Pak het archief eerst uit en importeer het bestand dat erin zit.`);
  }
  if (kop.length >= 2 && kop[0] === 0x1f && kop[1] === 0x8b) {
    throw new Error(`Dit is een gzip-bestand, geen ${verwacht}. Pak het eerst uit (gunzip).`);
  }
  const n = Math.min(kop.length, 4096);
  for (let i = 0; i < n; i++) {
    if (kop[i] === 0) throw new Error(`Dit lijkt een binair bestand, geen ${verwacht}.`);
  }
}

/** The more frequent of ';' and ',' outside double quotes (ties: ';'). */
export function detecteerScheiding(eersteRegel: string): ';' | ',' {
  let puntkomma = 0;
  let komma = 0;
  let inQuote = false;
  for (const c of eersteRegel) {
    if (c === '"') inQuote = !inQuote;
    else if (!inQuote && c === ';') puntkomma++;
    else if (!inQuote && c === ',') komma++;
  }
  return komma > puntkomma ? ',' : ';';
}

/**
 * The data records of a CSV file after its header line, which `kop` reads (and throws on for a file of
 * another kind). Unreadable records come out as refusals.
 */
export async function* csvNaKopregel<K>(
  input: NodeJS.ReadableStream,
  opts: { scheiding: CsvScheiding; verwacht: string },
  kop: (velden: string[]) => K,
): AsyncGenerator<{ ok: true; kop: K; velden: string[]; regel: number } | ParseFout> {
  let k: K | undefined;
  let kopVelden = 0;
  for await (const item of leesCsv(input, opts)) {
    if (k === undefined) {
      if (item.soort === 'fout') throw new Error(`Dit is geen ${opts.verwacht}: de kopregel is onleesbaar.`);
      k = kop(item.velden);
      kopVelden = item.velden.length;
    } else if (item.soort === 'fout') yield { ok: false, regel: item.regel, reden: item.reden };
    else if (item.open && item.velden.length < kopVelden) yield { ok: false, regel: item.regel, reden: afgebroken(item.velden.length, kopVelden) };
    else yield { ok: true, kop: k, velden: item.velden, regel: item.regel };
  }
  if (k === undefined) throw new Error(`Het bestand heeft geen kopregel: dit is geen ${opts.verwacht}.`);
}

/** A last line without a line end and with fewer fields than the header: the file was cut off. */
export function afgebroken(velden: number, kop: number): string {
  return `laatste regel afgebroken: ${velden} van de ${kop} velden en geen regeleinde (is het bestand onvolledig?)`;
}

/** Throws when the header lacks one of `nodig`: the file is of another kind. */
export function eisKolommen(kop: Map<string, number>, velden: readonly string[], nodig: readonly string[], verwacht: string): void {
  const ontbreekt = nodig.filter((n) => !kop.has(n));
  if (ontbreekt.length) throw new Error(`Dit is geen ${verwacht}. Kolom(men) ${ontbreekt.join(', ')} ontbreken in de kopregel "${velden.join(';').slice(0, 200)}".`);
}

/** Records csv-parse cannot read come out as `fout` items instead of ending the stream. */
export async function* leesCsv(input: NodeJS.ReadableStream, opts: { scheiding: CsvScheiding; verwacht: string }): AsyncGenerator<CsvItem> {
  const it = input[Symbol.asyncIterator]();
  let bron: Readable | null = null;
  try {
    yield* leesCsvVan(it, opts, (r) => (bron = r));
  } finally {
    (bron as Readable | null)?.destroy();
    await it.return?.();
  }
}

async function* leesCsvVan(
  it: AsyncIterator<string | Buffer>,
  opts: { scheiding: CsvScheiding; verwacht: string },
  bronGemaakt: (r: Readable) => void,
): AsyncGenerator<CsvItem> {
  const kopDelen: Buffer[] = [];
  let kopLengte = 0;
  let klaar = false;
  while (kopLengte < KOP_MAX_BYTES) {
    const r = await it.next();
    if (r.done) {
      klaar = true;
      break;
    }
    const b = typeof r.value === 'string' ? Buffer.from(r.value, 'utf8') : Buffer.from(r.value);
    kopDelen.push(b);
    kopLengte += b.length;
    if (b.includes(0x0a)) break;
  }
  const kop = Buffer.concat(kopDelen);
  if (kop.length === 0) throw new Error(`Het bestand is leeg; verwacht: ${opts.verwacht}.`);
  controleerTekstbestand(kop, opts.verwacht);
  let scheiding: ';' | ',' = ';';
  if (opts.scheiding === 'auto') {
    let tekst = kop.subarray(0, Math.min(kop.length, KOP_MAX_BYTES)).toString('utf8');
    if (tekst.charCodeAt(0) === 0xfeff) tekst = tekst.slice(1);
    const nl = tekst.search(/\r?\n/);
    scheiding = detecteerScheiding(nl >= 0 ? tekst.slice(0, nl) : tekst);
  } else {
    scheiding = opts.scheiding;
  }

  const bron = it;
  async function* alles(): AsyncGenerator<Buffer> {
    yield kop;
    if (klaar) return;
    for (;;) {
      const r = await bron.next();
      if (r.done) return;
      yield typeof r.value === 'string' ? Buffer.from(r.value, 'utf8') : Buffer.from(r.value);
    }
  }
  const stukken = alles();

  // Unquoted lines are split here (several times cheaper than csv-parse); from the first line with a quote
  // (or a bare CR) csv-parse reads the rest.
  const decoder = new StrikteDecoder();
  let rest = '';
  let regels = 0;
  let eerste = true;
  let overdracht: string | null = null;
  let overslaan = false;
  buiten: for (;;) {
    const r = await stukken.next();
    let nieuw = r.done ? decoder.decode() : decoder.decode(r.value);
    if (overslaan) {
      const nl = nieuw.indexOf('\n');
      if (nl < 0) {
        if (r.done) return;
        continue;
      }
      nieuw = nieuw.slice(nl + 1);
      overslaan = false;
    }
    let tekst = rest + nieuw;
    if (eerste) {
      if (tekst.charCodeAt(0) === 0xfeff) tekst = tekst.slice(1);
      const eind = tekst.search(/[\r\n]/);
      if (eind >= 0 && tekst[eind] === '\r' && tekst[eind + 1] !== '\n') {
        overdracht = tekst;
        break;
      }
      eerste = false;
    }
    let start = 0;
    for (;;) {
      let nl = tekst.indexOf('\n', start);
      let open = false;
      if (nl < 0) {
        if (!r.done || start >= tekst.length) break;
        nl = tekst.length;
        open = true;
      }
      if (nl - start > MAX_REGEL_TEKENS) {
        start = nl + 1;
        yield teLang(++regels);
        continue;
      }
      let lijn = tekst.slice(start, nl);
      if (lijn.includes('"')) {
        overdracht = tekst.slice(start);
        break buiten;
      }
      if (lijn.charCodeAt(lijn.length - 1) === 13) {
        lijn = lijn.slice(0, -1);
        open = false;
      }
      regels++;
      start = nl + 1;
      if (lijn !== '') yield open ? { soort: 'rij', velden: lijn.split(scheiding), regel: regels, open } : { soort: 'rij', velden: lijn.split(scheiding), regel: regels };
    }
    rest = tekst.slice(start);
    if (rest.length > MAX_REGEL_TEKENS && !r.done) {
      yield teLang(++regels);
      rest = '';
      overslaan = true;
    }
    if (r.done) return;
  }

  const verschuiving = regels;
  let laatsteTeken = '';
  async function* restVanaf(begin: string): AsyncGenerator<string> {
    for (let t of [begin, null]) {
      if (t === null) {
        for await (const b of stukken) {
          const d = decoder.decode(b);
          if (d) laatsteTeken = d[d.length - 1];
          yield d;
        }
        t = decoder.decode();
      }
      if (t) laatsteTeken = t[t.length - 1];
      yield t;
    }
  }
  const fouten: CsvItem[] = [];
  const parser = parse({
    delimiter: scheiding,
    bom: true,
    info: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (err) => {
      const regel = typeof err?.lines === 'number' ? err.lines + verschuiving : 0;
      const reden =
        err?.code === 'CSV_QUOTE_NOT_CLOSED'
          ? 'aanhalingsteken (") wordt niet gesloten; de rest van het bestand kon niet gelezen worden'
          : `onleesbare CSV-regel (${err?.code ?? 'onbekende fout'})`;
      fouten.push({ soort: 'fout', regel, reden });
      return undefined;
    },
  });
  const stroom = Readable.from(restVanaf(overdracht ?? ''));
  bronGemaakt(stroom);
  stroom.on('error', (e) => parser.destroy(e));
  stroom.pipe(parser);
  // One record is held back: only at the end is it known to be the last.
  let vorige: CsvItem | null = null;
  for await (const r of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    if (vorige) yield vorige;
    while (fouten.length) yield fouten.shift()!;
    vorige = { soort: 'rij', velden: r.record, regel: r.info.lines + verschuiving };
  }
  if (vorige) yield laatsteTeken === '\n' || laatsteTeken === '\r' ? vorige : { ...vorige, open: true };
  while (fouten.length) yield fouten.shift()!;
}

function teLang(regel: number): CsvItem {
  return { soort: 'fout', regel, reden: `regel langer dan ${MAX_REGEL_TEKENS.toLocaleString('nl-NL')} tekens` };
}

export function kolomIndex(kop: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  kop.forEach((naam, i) => {
    const k = naam.replace(/^\ufeff/, '').trim().toLowerCase();
    if (!m.has(k)) m.set(k, i);
  });
  return m;
}

export function veld(velden: readonly string[], i: number | undefined): string | null {
  if (i === undefined) return null;
  const v = velden[i];
  if (v === undefined) return null;
  const t = v.trim();
  return t === '' ? null : t;
}

export function leesHuisnummer(v: string | null): number | null {
  if (!v || !/^\d{1,5}$/.test(v)) return null;
  const n = Number.parseInt(v, 10);
  return n >= 1 ? n : null;
}

export { citeer, datumKolom, datumUtc, geldigePostcode, leesDatumIso, schoneToevoeging, toevoegingSleutel };

/** Our own CSV formats keep letter and addition out of the huisnummer column. */
export const HUISNUMMER_ZONDER_TOEVOEGING = ' (alleen cijfers; letter of toevoeging in kolom toevoeging)';

/** Postcode and huisnummer of a data row, or why the row is refused; `hint` follows an invalid huisnummer. */
export function leesPostcodeHuisnummer(pcRuw: string | null, hnRuw: string | null, hint = ''): { postcode: string; huisnummer: number } | string {
  const postcode = geldigePostcode(pcRuw);
  if (!postcode) return pcRuw ? `ongeldige postcode ${citeer(pcRuw)}` : 'postcode ontbreekt';
  const huisnummer = leesHuisnummer(hnRuw);
  if (huisnummer === null) return hnRuw ? `ongeldig huisnummer ${citeer(hnRuw)}${hint}` : 'huisnummer ontbreekt';
  return { postcode, huisnummer };
}

export function leesDatumCompact(v: string | null): Date | null {
  if (!v) return null;
  let m = /^(\d{4})(\d{2})(\d{2})$/.exec(v);
  if (!m) m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  return m ? datumUtc(+m[1], +m[2], +m[3]) : null;
}

/** No thousands separators. */
export function leesGetal(v: string | null): number | null {
  if (!v) return null;
  const t = v.replace(',', '.');
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

export function leesGeheelGetal(v: string | null): number | null {
  if (!v || !/^\d{1,10}$/.test(v)) return null;
  const n = Number.parseInt(v, 10);
  return Number.isSafeInteger(n) && n <= 2_147_483_647 ? n : null;
}


type AdresClient = Pick<PrismaClient, '$queryRawUnsafe'>;

/** `opties`: the BAG's addresses at this postcode and number that fit (meerduidig) or, when none fits, all of them. */
export type AdresResolutie = { adresId: string; reden?: undefined } | { adresId: null; reden: 'onbekend' | 'meerduidig'; opties?: string[] };

interface Kandidaat {
  id: string;
  postcode: string;
  huisnummer: number;
  huisletter: string | null;
  toevoeging: string | null;
  objectId: string | null;
}

/**
 * First rule that gives exactly one address wins: exact huisletter and toevoeging (not for a combined
 * addition), the BAG verblijfsobject id, then the concatenation ('A' finds 12A and 12-A). Several at a
 * step: 'meerduidig', refused rather than guessed; none while the number has addresses: 'meerduidig'
 * without an addition (12 beside 12-1 and 12-2), else 'onbekend', both naming those addresses.
 */
export function kiesAdres(sleutel: AdresSleutel, kandidaten: readonly Kandidaat[]): AdresResolutie {
  if (kandidaten.length === 0) return { adresId: null, reden: 'onbekend' };
  const hl = schoneToevoeging(sleutel.huisletter);
  const tv = schoneToevoeging(sleutel.toevoeging);
  let meerduidig: readonly Kandidaat[] | null = null;
  if (!sleutel.gecombineerd || (hl === null && tv === null)) {
    const exact = kandidaten.filter((k) => schoneToevoeging(k.huisletter) === hl && schoneToevoeging(k.toevoeging) === tv);
    if (exact.length === 1) return { adresId: exact[0].id };
    if (exact.length > 1) meerduidig = exact;
  }
  if (sleutel.verblijfsobjectId) {
    const vbo = kandidaten.filter((k) => k.objectId === sleutel.verblijfsobjectId);
    if (vbo.length === 1) return { adresId: vbo[0].id };
  }
  if (!meerduidig) {
    const s = toevoegingSleutel(hl, tv);
    const samen = kandidaten.filter((k) => toevoegingSleutel(k.huisletter, k.toevoeging) === s);
    if (samen.length === 1) return { adresId: samen[0].id };
    if (samen.length > 1) meerduidig = samen;
  }
  const opties = (meerduidig ?? kandidaten).map((k) => `${k.huisnummer}${k.huisletter ?? ''}${k.toevoeging ? `-${k.toevoeging}` : ''}`);
  return { adresId: null, reden: meerduidig || (hl === null && tv === null) ? 'meerduidig' : 'onbekend', opties };
}

export async function resolveAdresIds(prisma: AdresClient, sleutels: readonly AdresSleutel[]): Promise<AdresResolutie[]> {
  const paren = new Map<string, { postcode: string; huisnummer: number }>();
  for (const s of sleutels) paren.set(`${s.postcode}|${s.huisnummer}`, { postcode: s.postcode, huisnummer: s.huisnummer });
  const perPaar = new Map<string, Kandidaat[]>();
  const lijst = [...paren.values()];
  for (let i = 0; i < lijst.length; i += 1000) {
    const deel = lijst.slice(i, i + 1000);
    // One statement text (arrays + unnest): an OR list made each batch a new entry in Prisma's plan cache.
    const rijen = (await prisma.$queryRawUnsafe(
      `SELECT a.id, a.postcode, a.huisnummer, a.huisletter, a.toevoeging, a.object_id AS "objectId"
         FROM unnest($1::text[], $2::int[]) AS k(postcode, huisnummer)
         JOIN adres a ON a.postcode = k.postcode AND a.huisnummer = k.huisnummer`,
      deel.map((p) => p.postcode),
      deel.map((p) => p.huisnummer),
    )) as Kandidaat[];
    for (const r of rijen) {
      const k = `${r.postcode}|${r.huisnummer}`;
      let l = perPaar.get(k);
      if (!l) perPaar.set(k, (l = []));
      l.push(r);
    }
  }
  for (const l of perPaar.values()) l.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return sleutels.map((s) => kiesAdres(s, perPaar.get(`${s.postcode}|${s.huisnummer}`) ?? []));
}

export async function resolveAdresId(
  prisma: AdresClient,
  postcode: string,
  huisnummer: number,
  huisletter: string | null,
  toevoeging: string | null,
): Promise<string | null> {
  const pc = geldigePostcode(postcode);
  if (!pc) return null;
  const [r] = await resolveAdresIds(prisma, [{ postcode: pc, huisnummer, huisletter, toevoeging, gecombineerd: false, verblijfsobjectId: null }]);
  return r.adresId;
}
