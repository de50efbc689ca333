/**
 * One file, a folder, or a zip whose entries may be zips again, read as streams. A nested zip is copied
 * to a temporary file first (yauzl needs random access): disk use is at most one inner zip.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { tijdelijkeMap } from './tijdelijk.ts';

export interface BronItem {
  /** Nested zips included: "extract.zip/9999NUM.zip/9999NUM-000001.xml". */
  naam: string;
  basis: string;
  grootte: number;
  isZip: boolean;
}

export interface Bron {
  pad: string;
  soort: 'bestand' | 'map' | 'zip';
  /** Of the outermost level, an inner zip's entries scaled to its outer size. */
  totaalBytes: number;
  gelezenBytes: number;
  kop: Buffer;
}

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const ZIP_LEEG = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

export async function openBron(pad: string): Promise<Bron> {
  const abs = path.resolve(pad);
  let st: Awaited<ReturnType<typeof stat>>;
  try {
    st = await stat(abs);
  } catch {
    throw new Error(`Bestand of map niet gevonden: ${abs}`);
  }
  if (st.isDirectory()) {
    const bestanden = await lijstMap(abs);
    const totaal = bestanden.reduce((s, b) => s + b.grootte, 0);
    return { pad: abs, soort: 'map', totaalBytes: totaal, gelezenBytes: 0, kop: Buffer.alloc(0) };
  }
  const kop = await leesKop(abs, 64 * 1024);
  if (kop.subarray(0, 4).equals(ZIP_MAGIC) || kop.subarray(0, 4).equals(ZIP_LEEG)) {
    const zip = await openZip(abs);
    try {
      const entries = await zipEntries(zip);
      const totaal = entries.reduce((s, e) => s + e.uncompressedSize, 0);
      return { pad: abs, soort: 'zip', totaalBytes: totaal, gelezenBytes: 0, kop: Buffer.alloc(0) };
    } finally {
      zip.close();
    }
  }
  return { pad: abs, soort: 'bestand', totaalBytes: st.size, gelezenBytes: 0, kop };
}

export async function leesKop(pad: string, n: number): Promise<Buffer> {
  const fh = await open(pad, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

async function lijstMap(dir: string, prefix = ''): Promise<{ rel: string; abs: string; grootte: number }[]> {
  const uit: { rel: string; abs: string; grootte: number }[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const abs = path.join(dir, e.name);
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) uit.push(...(await lijstMap(abs, rel)));
    else if (e.isFile()) uit.push({ rel, abs, grootte: (await stat(abs)).size });
  }
  return uit;
}

function openZip(pad: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(pad, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true }, (err, zip) => {
      if (err || !zip) reject(new Error(`Kan zip ${path.basename(pad)} niet openen: ${err?.message ?? 'onbekende fout'}`));
      else resolve(zip);
    }),
  );
}

function zipEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const uit: yauzl.Entry[] = [];
    zip.on('entry', (e: yauzl.Entry) => {
      if (!e.fileName.endsWith('/')) uit.push(e);
      zip.readEntry();
    });
    zip.on('end', () => resolve(uit));
    zip.on('error', reject);
    zip.readEntry();
  });
}

function zipStream(zip: yauzl.ZipFile, e: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) =>
    zip.openReadStream(e, (err, s) => {
      if (err || !s) reject(err ?? new Error('zip-entry niet leesbaar'));
      else resolve(s);
    }),
  );
}

const isZipNaam = (n: string) => /\.zip$/i.test(n);

export interface BronBestand extends BronItem {
  open(): Promise<Readable>;
}

export interface WandelOpties {
  /** Nested zips that are skipped are not extracted. */
  filter?: (item: BronItem) => boolean;
  volgorde?: (a: BronItem, b: BronItem) => number;
}

function teller(bron: Bron, schaal: number): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bron.gelezenBytes += chunk.length * schaal;
      cb(null, chunk);
    },
  });
}

/** Items the filter skips still count as read for the progress. `break` cleans up temporary files. */
export async function* bestanden(bron: Bron, opts: WandelOpties = {}): AsyncGenerator<BronBestand> {
  const filter = opts.filter ?? (() => true);
  const volgorde = opts.volgorde ?? ((a: BronItem, b: BronItem) => (a.naam < b.naam ? -1 : a.naam > b.naam ? 1 : 0));
  if (bron.soort === 'bestand') {
    const basis = path.basename(bron.pad);
    const item: BronItem = { naam: basis, basis, grootte: bron.totaalBytes, isZip: false };
    if (!filter(item)) return;
    yield { ...item, open: async () => createReadStream(bron.pad, { highWaterMark: 256 * 1024 }).pipe(teller(bron, 1)) };
    return;
  }
  if (bron.soort === 'map') {
    const lijst = await lijstMap(bron.pad);
    const items = lijst.map((b) => ({ naam: b.rel, basis: path.basename(b.rel), grootte: b.grootte, isZip: isZipNaam(b.rel), abs: b.abs }));
    items.sort(volgorde);
    for (const it of items) {
      if (!filter(it)) {
        bron.gelezenBytes += it.grootte;
        continue;
      }
      if (it.isZip) yield* zipBestanden(bron, it.abs, it.naam, it.grootte, filter, volgorde);
      else yield { naam: it.naam, basis: it.basis, grootte: it.grootte, isZip: false, open: async () => createReadStream(it.abs, { highWaterMark: 256 * 1024 }).pipe(teller(bron, 1)) };
    }
    return;
  }
  yield* zipBestanden(bron, bron.pad, '', null, filter, volgorde);
}

async function* zipBestanden(
  bron: Bron,
  zipPad: string,
  prefix: string,
  buitenGrootte: number | null,
  filter: (item: BronItem) => boolean,
  volgorde: (a: BronItem, b: BronItem) => number,
): AsyncGenerator<BronBestand> {
  const zip = await openZip(zipPad);
  try {
    const entries = await zipEntries(zip);
    const totaal = entries.reduce((s, e) => s + e.uncompressedSize, 0);
    const schaal = buitenGrootte === null ? 1 : totaal > 0 ? buitenGrootte / totaal : 0;
    if (buitenGrootte !== null && totaal === 0) bron.gelezenBytes += buitenGrootte;
    const items = entries.map((e) => {
      const naam = prefix ? `${prefix}/${e.fileName}` : e.fileName;
      return { naam, basis: path.posix.basename(e.fileName), grootte: e.uncompressedSize, isZip: isZipNaam(e.fileName), entry: e };
    });
    items.sort(volgorde);
    for (const it of items) {
      if (!filter(it)) {
        bron.gelezenBytes += it.grootte * schaal;
        continue;
      }
      if (it.isZip) {
        const dir = tijdelijkeMap('insight-import-');
        const tmp = path.join(dir, `${randomBytes(4).toString('hex')}.zip`);
        try {
          await pipeline(await zipStream(zip, it.entry), createWriteStream(tmp));
          yield* zipBestanden(bron, tmp, it.naam, it.grootte * schaal, filter, volgorde);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      } else {
        yield {
          naam: it.naam,
          basis: it.basis,
          grootte: it.grootte,
          isZip: false,
          open: async () => (await zipStream(zip, it.entry)).pipe(teller(bron, schaal)),
        };
      }
    }
  } finally {
    zip.close();
  }
}

export async function lijstItems(bron: Bron): Promise<BronItem[]> {
  if (bron.soort === 'bestand') {
    const basis = path.basename(bron.pad);
    return [{ naam: basis, basis, grootte: bron.totaalBytes, isZip: false }];
  }
  if (bron.soort === 'map') {
    return (await lijstMap(bron.pad)).map((b) => ({ naam: b.rel, basis: path.basename(b.rel), grootte: b.grootte, isZip: isZipNaam(b.rel) }));
  }
  const zip = await openZip(bron.pad);
  try {
    return (await zipEntries(zip)).map((e) => ({
      naam: e.fileName,
      basis: path.posix.basename(e.fileName),
      grootte: e.uncompressedSize,
      isZip: isZipNaam(e.fileName),
    }));
  } finally {
    zip.close();
  }
}

export async function leesBegin(s: Readable, n: number): Promise<Buffer> {
  const delen: Buffer[] = [];
  let len = 0;
  try {
    for await (const c of s) {
      const b = Buffer.isBuffer(c) ? c : Buffer.from(c as string);
      delen.push(b);
      len += b.length;
      if (len >= n) break;
    }
  } finally {
    s.destroy();
  }
  return Buffer.concat(delen).subarray(0, n);
}

/** A folder hashes its sorted "path NUL sha256" lines. A stream of its own, so it can run beside the import. */
export async function sha256Van(pad: string): Promise<string> {
  const abs = path.resolve(pad);
  const st = await stat(abs);
  if (!st.isDirectory()) return hashBestand(abs);
  const h = createHash('sha256');
  for (const b of await lijstMap(abs)) h.update(`${b.rel}\u0000${await hashBestand(b.abs)}\n`);
  return h.digest('hex');
}

async function hashBestand(abs: string): Promise<string> {
  const h = createHash('sha256');
  for await (const c of createReadStream(abs, { highWaterMark: 1024 * 1024 })) h.update(c as Buffer);
  return h.digest('hex');
}

export async function kopVanEerste(
  bron: Bron,
  filter: (item: BronItem) => boolean,
  n = 64 * 1024,
  volgorde?: (a: BronItem, b: BronItem) => number,
): Promise<{ item: BronItem; kop: Buffer } | null> {
  const voor = bron.gelezenBytes;
  try {
    for await (const b of bestanden(bron, { filter: (i) => i.isZip || filter(i), volgorde })) {
      const { open, ...item } = b;
      return { item, kop: await leesBegin(await open(), n) };
    }
    return null;
  } finally {
    bron.gelezenBytes = voor;
  }
}

export function beschrijfKop(kop: Buffer): { soort: 'zip' | 'gzip' | 'sqlite' | 'xml' | 'json' | 'tekst' | 'binair' | 'leeg'; tekst: string } {
  if (kop.length === 0) return { soort: 'leeg', tekst: 'een leeg bestand' };
  if (kop[0] === 0x50 && kop[1] === 0x4b) return { soort: 'zip', tekst: 'een zip-bestand' };
  if (kop[0] === 0x1f && kop[1] === 0x8b) return { soort: 'gzip', tekst: 'een gzip-bestand' };
  if (kop.subarray(0, 16).toString('latin1') === 'SQLite format 3\u0000') return { soort: 'sqlite', tekst: 'een SQLite-database (GeoPackage)' };
  let t = kop.subarray(0, 4096).toString('utf8');
  if (t.charCodeAt(0) === 0xfeff) t = t.slice(1);
  const begin = t.trimStart();
  if (begin.startsWith('<')) {
    const m = /<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)[\s>/]/.exec(begin.replace(/<\?[\s\S]*?\?>/g, '').replace(/<!--[\s\S]*?-->/g, '').trimStart());
    return { soort: 'xml', tekst: m ? `een XML-bestand (hoofdelement ${m[2]})` : 'een XML-bestand' };
  }
  if (begin.startsWith('{') || begin.startsWith('[')) return { soort: 'json', tekst: 'een JSON-bestand' };
  for (let i = 0; i < Math.min(kop.length, 4096); i++) if (kop[i] === 0) return { soort: 'binair', tekst: 'een binair bestand' };
  return { soort: 'tekst', tekst: 'een tekst- of CSV-bestand' };
}

export function andereSoortHint(kopregel: string): string {
  const k = kopregel.toLowerCase();
  if (k.includes('pand_postcode') || k.includes('pand_energieklasse')) return ' Het lijkt een EP-Online-energielabelbestand: gebruik `insight import energielabels`.';
  if (k.includes('perioden') && k.includes('prijsindex')) return ' Het lijkt een CBS-prijsindexbestand: gebruik `insight import prijsindex`.';
  if (k.includes('transactiedatum') && k.includes('koopsom')) return ' Het lijkt een verkopenbestand: gebruik `insight import verkopen`.';
  if (k.includes('peildatum') && k.includes('waarde')) return ' Het lijkt een WOZ-bestand: gebruik `insight import woz`.';
  if (k.includes('nummeraanduiding') && k.includes('openbareruimte')) return ' Het lijkt een NLExtract-adres-CSV: gebruik `insight import bag-csv`.';
  return '';
}
