/** One import run; the parser is pulled record by record and pauses while a batch waits, so memory stays flat. */
import path from 'node:path';
import type { Database } from '../../../db/client.ts';
import { afgekort } from '../../begrippen.ts';
import { openBron, sha256Van, type Bron } from './bron.ts';
import { type IndexUitstel, stelIndexenUit } from './indexen.ts';
import { BatchSchrijver, type UpsertTelling } from './schrijver.ts';
import { laadSoorten } from './soorten.ts';
import { type TabelNaam, isTabelNaam, normaliseerRij } from './tabellen.ts';
import type { ImportSamenvatting, ImportSoort, NaSchrijven, RijRecord } from './types.ts';
import { ruimVerlatenMappenOp } from './tijdelijk.ts';
import { stilleVoortgang, type Voortgang } from './voortgang.ts';

export interface ImportOpties {
  voortgang?: Voortgang;
  /** Default 10,000 on PostgreSQL, 5,000 on PGlite. */
  batchGrootte?: number;
  maxRedenen?: number;
  parallel?: number;
  stil?: boolean;
  /** Its header is not read again. */
  gecontroleerd?: Bron | null;
  /** Ctrl-C or a supervisor's SIGTERM: stop reading, record the run as broken off, clean up (staging files). */
  afbreken?: AbortSignal;
}

/** Behind `citeer` in the parsers: no stored reason is longer. */
export const MAX_REDEN_TEKENS = 500;
export const MAX_OVERGESLAGEN_REDENEN = 100; // reasons quote the file (`status "..."`)
export const ANDERE_REDENEN = 'andere redenen';

export class ImportFout extends Error {
  constructor(bericht: string) {
    super(bericht);
    this.name = 'ImportFout';
  }
}

/** Its message is the signal; the error thrown is made once the batches in flight are in, from the final counts. */
class AfgebrokenFout extends Error {}

export async function kiesSoort(naam: string): Promise<ImportSoort> {
  const soorten = await laadSoorten();
  const soort = soorten.get(naam);
  if (!soort) {
    throw new ImportFout(`Onbekende importsoort "${naam}". Beschikbaar: ${[...soorten.keys()].join(', ')}.`);
  }
  return soort;
}

/** Without a database: the CLI calls this before it opens one. */
export async function controleerInvoer(soortNaam: string, bestand: string | null | undefined): Promise<Bron | null> {
  ruimVerlatenMappenOp();
  const soort = await kiesSoort(soortNaam);
  if (!soort.bestandNodig) {
    if (bestand) throw new ImportFout(`insight import ${soort.naam} neemt geen bestand.`);
    return null;
  }
  if (!bestand) throw new ImportFout(`insight import ${soort.naam} heeft een bestand nodig: ${soort.verwacht}.`);
  const bron = await openBron(bestand);
  await soort.controleer?.(bron);
  return bron;
}

export async function voerImportUit(db: Database, soortNaam: string, bestand: string | null | undefined, opts: ImportOpties = {}): Promise<ImportSamenvatting> {
  ruimVerlatenMappenOp();
  const soort = await kiesSoort(soortNaam);
  let bron: Bron | null = null;
  if (soort.bestandNodig) {
    if (!bestand) throw new ImportFout(`insight import ${soort.naam} heeft een bestand nodig: ${soort.verwacht}.`);
    if (opts.gecontroleerd?.pad === path.resolve(bestand)) bron = opts.gecontroleerd;
    else {
      bron = await openBron(bestand);
      await soort.controleer?.(bron);
    }
  } else if (bestand) {
    throw new ImportFout(`insight import ${soort.naam} neemt geen bestand.`);
  }

  const batchGrootte = opts.batchGrootte ?? (db.kind === 'postgres' ? 10_000 : 5_000);
  const maxRedenen = opts.maxRedenen ?? 100;
  const parallel = opts.parallel ?? soort.parallel ?? (db.kind === 'postgres' ? 2 : 1);
  const voortgang = opts.voortgang ?? stilleVoortgang;
  const t0 = Date.now();

  const run = await db.prisma.importRun.create({
    data: { soort: soort.naam, bestand: bron ? bron.pad : '-', sha256: '' },
    select: { id: true },
  });
  const hash = bron ? sha256Van(bron.pad) : Promise.resolve(null);
  hash.catch(() => {});

  const s: ImportSamenvatting = {
    soort: soort.naam,
    bestand: bron ? bron.pad : null,
    sha256: null,
    importRunId: run.id,
    gelezen: 0,
    ingevoegd: 0,
    bijgewerkt: 0,
    ongewijzigd: 0,
    afgewezen: 0,
    redenen: [],
    redenenWeggelaten: 0,
    overgeslagen: {},
    tabellen: {},
    duurSeconden: 0,
    rijenPerSeconde: 0,
  };
  const weiger = (regel: number, reden: string) => {
    s.afgewezen++;
    if (s.redenen.length < maxRedenen) s.redenen.push({ regel, reden: afgekort(reden, MAX_REDEN_TEKENS) });
    else s.redenenWeggelaten++;
  };
  const telOp = (tabel: TabelNaam, c: UpsertTelling) => {
    const t = (s.tabellen[tabel] ??= { ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 0 });
    t.ingevoegd += c.ingevoegd;
    t.bijgewerkt += c.bijgewerkt;
    t.ongewijzigd += c.ongewijzigd;
    s.ingevoegd += c.ingevoegd;
    s.bijgewerkt += c.bijgewerkt;
    s.ongewijzigd += c.ongewijzigd;
  };

  const schrijver = new BatchSchrijver(db, {
    batchGrootte,
    parallel,
    voorwaarden: soort.voorwaarden,
    // A bulk import is re-runnable: a crash may lose the last commits, never corrupt anything.
    txStart: db.kind === 'postgres' ? 'SET LOCAL synchronous_commit = off' : undefined,
    naBatch: (u) => {
      for (const [tabel, c] of u.perTabel) telOp(tabel, c);
      for (const g of u.geweigerd) weiger(g.regel, g.reden);
    },
  });

  let fase = 'lezen';
  const extra: Record<string, unknown> = {};
  // Before the after-step, which reads through the indexes.
  let uitstel: IndexUitstel | null = null;
  const bouwIndexen = async () => {
    const u = uitstel;
    uitstel = null;
    if (!u) return;
    fase = 'indexen bouwen';
    extra.uitgesteldeIndexen = await u.herbouw();
  };
  voortgang.start(() => ({ fase, gelezenBytes: bron?.gelezenBytes ?? 0, totaalBytes: bron?.totaalBytes ?? 0, rijen: s.gelezen }));

  const stappen: NaSchrijven[] = [];
  const sluitStappen = () => {
    for (const st of stappen.splice(0)) st.sluit();
  };
  let wachtend: RijRecord[] = [];
  const verwerk = async (items: RijRecord[]) => {
    const klaar = soort.voorbereid ? await soort.voorbereid(items, db) : items;
    for (const r of klaar) {
      if (!r.ok) {
        weiger(r.regel, r.reden);
        continue;
      }
      const n = normaliseerRij(r.tabel, r.rij);
      if (!n.ok) {
        weiger(r.regel ?? 0, n.reden);
        continue;
      }
      const wacht = schrijver.voegToe({ tabel: r.tabel, rij: n.rij, masker: n.masker, sleutel: n.sleutel, regel: r.regel ?? 0 });
      if (wacht) await wacht;
    }
  };

  try {
    if (soort.bestandNodig) uitstel = await stelIndexenUit(db, soort.tabellen, run.id);
    const ctx = {
      db,
      fase: (t: string) => {
        fase = t;
      },
      overgeslagen: (reden: string, aantal = 1) => {
        const sleutel = Object.hasOwn(s.overgeslagen, reden) || Object.keys(s.overgeslagen).length < MAX_OVERGESLAGEN_REDENEN ? reden : ANDERE_REDENEN;
        s.overgeslagen[sleutel] = (s.overgeslagen[sleutel] ?? 0) + aantal;
      },
      naSchrijven: (st: NaSchrijven) => {
        stappen.push(st);
      },
      extra,
    };
    let nummer = 0;
    const gestopt = () => {
      if (opts.afbreken?.aborted) throw new AfgebrokenFout(String(opts.afbreken.reason ?? 'signaal'));
    };
    for await (const deel of soort.lees(bron, ctx)) {
      gestopt();
      const recs = Array.isArray(deel) ? deel : [deel];
      for (const rec of recs) {
        nummer++;
        if (!rec.ok) {
          s.gelezen++;
          weiger(rec.regel, rec.reden);
          continue;
        }
        if (!rec.bijproduct) s.gelezen++;
        if (!isTabelNaam(rec.tabel)) throw new ImportFout(`Importsoort ${soort.naam} leverde een rij voor onbekende tabel "${String(rec.tabel)}".`);
        wachtend.push(rec.regel === undefined ? { ...rec, regel: nummer, regelIsRecordnummer: true } : rec);
      }
      if (wachtend.length >= batchGrootte) {
        const deelBatch = wachtend;
        wachtend = [];
        await verwerk(deelBatch);
      }
    }
    if (wachtend.length) await verwerk(wachtend);
    await schrijver.sluit();
    await bouwIndexen();
    gestopt();
    for (const st of stappen) {
      fase = 'opruimen';
      Object.assign(extra, await st.voer(db));
    }
    sluitStappen();
    if (soort.na) {
      fase = 'afleiden';
      Object.assign(extra, await soort.na(db, { stil: opts.stil ?? false }));
    }
  } catch (e) {
    sluitStappen();
    voortgang.stop(false);
    await schrijver.afbreken().catch(() => {});
    await bouwIndexen().catch(() => {}); // else left for the next import or start (uitgestelde_index)
    s.duurSeconden = (Date.now() - t0) / 1000;
    const fout =
      e instanceof AfgebrokenFout
        ? new ImportFout(`Afgebroken (${e.message}): ${s.ingevoegd + s.bijgewerkt} rijen zijn al geschreven; draai dezelfde import opnieuw om af te maken (wat er al staat, blijft ongewijzigd).`)
        : e;
    await legRunVast(db, run.id, s, (await hash.catch(() => null)) ?? '', { fout: afgekort(fout instanceof Error ? fout.message : String(fout), MAX_REDEN_TEKENS) }).catch(() => {});
    throw fout;
  }
  voortgang.stop();

  s.sha256 = await hash;
  s.duurSeconden = Math.round((Date.now() - t0) / 10) / 100;
  s.rijenPerSeconde = s.duurSeconden > 0 ? Math.round(s.gelezen / s.duurSeconden) : s.gelezen;
  Object.assign(s, extra);
  await legRunVast(db, run.id, s, s.sha256 ?? '', {}, new Date());
  return s;
}

/** Refused whole, the summary is stored again without its reasons; refused again, the error says what was written. */
async function legRunVast(db: Database, id: string, s: ImportSamenvatting, sha256: string, extra: Record<string, unknown>, klaarOp?: Date) {
  const leg = (samenvatting: object) =>
    db.prisma.importRun.update({
      where: { id },
      data: {
        gelezen: s.gelezen,
        ingevoegd: s.ingevoegd,
        bijgewerkt: s.bijgewerkt,
        afgewezen: s.afgewezen,
        sha256,
        samenvatting: JSON.parse(JSON.stringify(samenvatting)),
        ...(klaarOp ? { klaarOp } : {}),
      },
    });
  try {
    await leg({ ...s, ...extra });
  } catch (e) {
    const code = /Code: `(\w+)`/.exec(e instanceof Error ? e.message : '')?.[1];
    const waarom = `de samenvatting kon niet worden vastgelegd (databasefout${code ? ` ${code}` : ''}); de redenen staan niet in import_run`;
    try {
      await leg({ ...s, redenen: [], redenenWeggelaten: s.redenen.length + s.redenenWeggelaten, ...extra, samenvattingFout: waarom });
    } catch {
      throw new ImportFout(
        `De import heeft rijen geschreven (${s.ingevoegd} ingevoegd, ${s.bijgewerkt} bijgewerkt, ${s.afgewezen} afgewezen), maar import_run ${id} kon niet worden bijgewerkt (databasefout${code ? ` ${code}` : ''}).`,
      );
    }
  }
}

export function samenvattingTekst(s: ImportSamenvatting): string {
  const regels = [
    `Import ${s.soort}${s.bestand ? ` van ${path.basename(s.bestand)}` : ''} klaar in ${s.duurSeconden} s (${s.rijenPerSeconde} rijen/s).`,
    `  gelezen: ${s.gelezen}, ingevoegd: ${s.ingevoegd}, bijgewerkt: ${s.bijgewerkt}, ongewijzigd: ${s.ongewijzigd}, afgewezen: ${s.afgewezen}`,
  ];
  for (const [t, c] of Object.entries(s.tabellen)) {
    regels.push(`  ${t}: ${c!.ingevoegd} ingevoegd, ${c!.bijgewerkt} bijgewerkt, ${c!.ongewijzigd} ongewijzigd`);
  }
  for (const [r, n] of Object.entries(s.overgeslagen)) regels.push(`  overgeslagen (${r}): ${n}`);
  const weg = s.verwijderd as Record<string, number> | undefined;
  if (weg) regels.push(`  verwijderd: ${Object.entries(weg).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  if (s.ouderDanBestaand) regels.push(`  ouder dan bestaand (behouden): ${s.ouderDanBestaand}`);
  if (s.nietOpgeruimd) regels.push(`  niet opgeruimd: ${String(s.nietOpgeruimd)}`);
  const wt = s.woningtype as { typen?: Record<string, number>; onbepaald?: number; geimporteerdBehouden?: number } | undefined;
  if (wt?.typen) {
    regels.push(
      `  woningtype afgeleid: ${Object.entries(wt.typen)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}; onbepaald ${wt.onbepaald ?? 0}; geïmporteerd (behouden) ${wt.geimporteerdBehouden ?? 0}`,
    );
  }
  if (s.redenen.length) {
    regels.push('  afgewezen rijen:');
    for (const r of s.redenen.slice(0, 20)) regels.push(`    regel ${r.regel}: ${r.reden}`);
    const rest = s.afgewezen - Math.min(20, s.redenen.length);
    if (rest > 0) regels.push(`    ... en ${rest} meer (zie --json of import_run.samenvatting)`);
  }
  if (s.sha256) regels.push(`  sha256: ${s.sha256}`);
  return regels.join('\n');
}
