/**
 * Every batch one transaction; a failed batch is retried row by row, so every row is written or refused with
 * the database's reason. PostgreSQL writes by COPY (kopie.ts); PGlite and small writes send one jsonb
 * parameter through the driver adapter: Prisma's handling of a large parameter cost ten times the CPU.
 */
import type { SqlDriverAdapter, Transaction } from '@prisma/driver-adapter-utils';
import type { Database } from '../../../db/client.ts';
import type { PrismaClient } from '../../../generated/prisma/client.ts';
import { type DirectOpties, KopieVerbinding } from './kopie.ts';
import { type NormaalRij, type Rij, type TabelNaam, kolommenVan, normaliseerRij } from './tabellen.ts';
import { type BatchItem, type Uitvoerder, arrayLiteral, upsertSql } from './upsert-sql.ts';

export type { BatchItem, Uitvoerder } from './upsert-sql.ts';

export type SqlClient = Pick<PrismaClient, '$queryRawUnsafe' | '$executeRawUnsafe'> & { $transaction?: PrismaClient['$transaction'] };

export interface UpsertTelling {
  ingevoegd: number;
  bijgewerkt: number;
  ongewijzigd: number;
}

export interface UpsertOpties {
  /** Two transactions writing the same rows then lock them in one order. */
  sorteer?: boolean;
  /** Table by name, incoming row as `excluded`. */
  voorwaarde?: string;
  sleutelsUniek?: boolean;
}

export interface UpsertResultaat extends UpsertTelling {
  afgewezen: { index: number; reden: string }[];
}

/** Floats go as JSON strings: casting a jsonb number to float8 costs two extra conversions. */
function parameter(tabel: TabelNaam, masker: number, items: readonly BatchItem[]): string {
  const defs = kolommenVan(tabel, masker);
  const namen = defs.map((c) => c.naam);
  const lijst = defs.map((c) => c.type === 'text[]');
  const getal = defs.map((c) => c.type === 'float');
  const rijen = new Array(items.length);
  for (let r = 0; r < items.length; r++) {
    const rij = items[r].rij;
    const a = new Array(namen.length);
    for (let k = 0; k < namen.length; k++) {
      const v = rij[namen[k]];
      a[k] = v == null ? null : lijst[k] ? arrayLiteral(v as string[]) : getal[k] ? String(v) : v;
    }
    rijen[r] = a;
  }
  return JSON.stringify(rijen);
}

/** Value by value, not JSON.stringify: this runs for half of all rows. undefined and null are the same. */
export function zelfdeRij(a: NormaalRij, b: NormaalRij): boolean {
  for (const k in a) {
    const x = a[k];
    const y = b[k];
    if (x === y || (x == null && y == null)) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (JSON.stringify(x) !== JSON.stringify(y)) return false;
  }
  for (const k in b) if (!(k in a) && b[k] != null) return false;
  return true;
}

/** One INSERT cannot update a row twice: a statement per generation of a repeated key (its n-th differing row), in order, then per column set. */
export function planStatements(items: readonly BatchItem[], sorteer = true, sleutelsUniek = false): { masker: number; items: BatchItem[] }[] {
  const generaties: Map<number, BatchItem[]>[] = [new Map()];
  const eerste = new Map<string, BatchItem>();
  let herhaald: Map<string, { gen: number; laatste: BatchItem }> | null = null;
  for (const it of items) {
    let gen = 0;
    if (!sleutelsUniek) {
      const e = eerste.get(it.sleutel);
      if (e === undefined) eerste.set(it.sleutel, it);
      else {
        herhaald ??= new Map();
        let h = herhaald.get(it.sleutel);
        if (!h) herhaald.set(it.sleutel, (h = { gen: 0, laatste: e }));
        if (h.laatste.masker === it.masker && zelfdeRij(h.laatste.rij, it.rij)) continue;
        gen = ++h.gen;
        h.laatste = it;
      }
    }
    const perMasker = (generaties[gen] ??= new Map());
    const l = perMasker.get(it.masker);
    if (l) l.push(it);
    else perMasker.set(it.masker, [it]);
  }
  const uit: { masker: number; items: BatchItem[] }[] = [];
  for (const perMasker of generaties) {
    for (const [masker, g] of perMasker) {
      if (sorteer) g.sort((a, b) => (a.sleutel < b.sleutel ? -1 : a.sleutel > b.sleutel ? 1 : 0));
      uit.push({ masker, items: g });
    }
  }
  return uit;
}

export function prismaUitvoerder(client: SqlClient): Uitvoerder {
  return async (tabel, masker, voorwaarde, items) => {
    const res = (await client.$queryRawUnsafe(upsertSql(tabel, masker, voorwaarde), parameter(tabel, masker, items))) as {
      ingevoegd: number;
      bijgewerkt: number;
    }[];
    return { ingevoegd: Number(res[0]?.ingevoegd ?? 0), bijgewerkt: Number(res[0]?.bijgewerkt ?? 0) };
  };
}

const TEKST_ARG = { scalarType: 'string', arity: 'scalar' } as const;

export function adapterUitvoerder(tx: Pick<Transaction, 'queryRaw'>): Uitvoerder {
  return async (tabel, masker, voorwaarde, items) => {
    const res = await tx.queryRaw({ sql: upsertSql(tabel, masker, voorwaarde), args: [parameter(tabel, masker, items)], argTypes: [TEKST_ARG] });
    const i = res.columnNames.indexOf('ingevoegd');
    const b = res.columnNames.indexOf('bijgewerkt');
    return { ingevoegd: Number(res.rows[0]?.[i] ?? 0), bijgewerkt: Number(res.rows[0]?.[b] ?? 0) };
  };
}

export async function schrijfItems(uitvoer: Uitvoerder, tabel: TabelNaam, items: readonly BatchItem[], opts: UpsertOpties = {}): Promise<UpsertTelling> {
  let ingevoegd = 0;
  let bijgewerkt = 0;
  for (const st of planStatements(items, opts.sorteer ?? true, opts.sleutelsUniek ?? false)) {
    const r = await uitvoer(tabel, st.masker, opts.voorwaarde, st.items);
    ingevoegd += r.ingevoegd;
    bijgewerkt += r.bijgewerkt;
  }
  return { ingevoegd, bijgewerkt, ongewijzigd: items.length - ingevoegd - bijgewerkt };
}

export function dbFoutTekst(e: unknown): string {
  const c = (e as { cause?: { originalMessage?: string; message?: string; kind?: string } })?.cause;
  const m = c?.originalMessage ?? (e instanceof Error ? e.message : String(e));
  const regels = m
    .split('\n')
    .map((x) => x.trim())
    .filter(Boolean);
  return regels[regels.length - 1]?.slice(0, 300) ?? c?.kind ?? 'onbekende databasefout';
}

function isUniekSchending(e: unknown): boolean {
  return (e as { code?: string })?.code === '23505';
}

function isDeadlock(e: unknown): boolean {
  const c = (e as { cause?: { originalCode?: string; code?: string } })?.cause;
  const code = (e as { code?: string })?.code;
  return code === '40P01' || c?.originalCode === '40P01' || c?.code === '40P01' || /deadlock/i.test(e instanceof Error ? e.message : '');
}

export function maakItems(tabel: TabelNaam, rijen: readonly Rij[]): { items: BatchItem[]; afgewezen: { index: number; reden: string }[] } {
  const items: BatchItem[] = [];
  const afgewezen: { index: number; reden: string }[] = [];
  rijen.forEach((r, index) => {
    const n = normaliseerRij(tabel, { ...r }); // a copy: normaliseerRij converts in place
    if (n.ok) items.push({ tabel, rij: n.rij, masker: n.masker, sleutel: n.sleutel, regel: index + 1 });
    else afgewezen.push({ index, reden: n.reden });
  });
  return { items, afgewezen };
}

/** Writing the same rows twice changes nothing (bijgewerkt_op included): they count as `ongewijzigd`. */
export async function upsertBatch(
  dbOfClient: SqlClient | Pick<Database, 'prisma'>,
  tabel: TabelNaam,
  rijen: readonly Rij[],
  opts: UpsertOpties = {},
): Promise<UpsertResultaat> {
  const db: SqlClient = 'prisma' in dbOfClient ? dbOfClient.prisma : dbOfClient;
  const { items, afgewezen } = maakItems(tabel, rijen);
  if (items.length === 0) return { ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 0, afgewezen };
  const telling =
    typeof db.$transaction === 'function'
      ? await (db as PrismaClient).$transaction((tx) => schrijfItems(prismaUitvoerder(tx), tabel, items, opts), { timeout: 600_000, maxWait: 60_000 })
      : await schrijfItems(prismaUitvoerder(db), tabel, items, opts);
  return { ...telling, afgewezen };
}

export interface BatchUitkomst {
  perTabel: Map<TabelNaam, UpsertTelling>;
  geweigerd: { regel: number; reden: string }[];
}

export interface BatchSchrijverOpties {
  batchGrootte: number;
  parallel: number;
  voorwaarden?: Partial<Record<TabelNaam, string>>;
  naBatch: (u: BatchUitkomst) => void;
  txStart?: string;
}

interface TxKanaal {
  uitvoer: Uitvoerder;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

interface InVlucht {
  klaar: Promise<void>;
  perTabel: Map<TabelNaam, TabelDeel>;
}

function ondergrens(items: readonly BatchItem[], sleutel: string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (items[m].sleutel < sleutel) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** Keys are usually ascending, so shared keys are found by walking both ranges; others get a key map, lazily. */
export class TabelDeel {
  readonly items: BatchItem[] = [];
  stijgend = true;
  min = '';
  max = '';
  #kaart: Map<string, BatchItem> | null = null;

  voegToe(it: BatchItem): void {
    const k = it.sleutel;
    if (this.items.length === 0) {
      this.min = k;
      this.max = k;
    } else if (k > this.max) {
      this.max = k;
    } else {
      this.stijgend = false;
      if (k < this.min) this.min = k;
    }
    this.items.push(it);
  }

  kaart(): Map<string, BatchItem> {
    if (!this.#kaart) {
      this.#kaart = new Map();
      for (const it of this.items) this.#kaart.set(it.sleutel, it);
    }
    return this.#kaart;
  }

  get uniek(): boolean {
    if (this.stijgend) return true;
    return this.#kaart !== null && this.#kaart.size === this.items.length;
  }

  vergelijk(ander: TabelDeel, sleutels?: Set<string>): { gedeeld: boolean; botst: boolean } {
    let gedeeld = false;
    let botst = false;
    if (this.max < ander.min || ander.max < this.min) return { gedeeld, botst };
    const verschilt = (a: BatchItem, b: BatchItem) => a.masker !== b.masker || !zelfdeRij(a.rij, b.rij);
    if (this.stijgend && ander.stijgend) {
      const lo = this.min > ander.min ? this.min : ander.min;
      const hi = this.max < ander.max ? this.max : ander.max;
      const a = this.items;
      const b = ander.items;
      let i = ondergrens(a, lo);
      let j = ondergrens(b, lo);
      while (i < a.length && j < b.length) {
        const x = a[i].sleutel;
        const y = b[j].sleutel;
        if (x > hi || y > hi) break;
        if (x < y) i++;
        else if (y < x) j++;
        else {
          gedeeld = true;
          sleutels?.add(x);
          if (verschilt(a[i], b[j])) botst = true;
          i++;
          j++;
        }
      }
      return { gedeeld, botst };
    }
    const mijn = this.kaart();
    const hun = ander.kaart();
    const [klein, groot] = hun.size < mijn.size ? [hun, mijn] : [mijn, hun];
    for (const [k, it] of klein) {
      const ook = groot.get(k);
      if (!ook) continue;
      gedeeld = true;
      sleutels?.add(k);
      if (verschilt(ook, it)) botst = true;
    }
    return { gedeeld, botst };
  }
}

/** `voegToe` returns a promise only when the buffer is full (back-pressure). Later rows win across batches too. */
export class BatchSchrijver {
  readonly #db: Database;
  readonly #opts: BatchSchrijverOpties;
  #adapter: Promise<SqlDriverAdapter> | null = null;
  #verbindingen: KopieVerbinding[] = [];
  #vrij: KopieVerbinding[] = [];
  #buffer: BatchItem[] = [];
  readonly #zoeken = new Set<TabelNaam>();
  #inVlucht: InVlucht[] = [];
  #fout: unknown = null;

  constructor(db: Database, opts: BatchSchrijverOpties) {
    this.#db = db;
    this.#opts = opts;
  }

  voegToe(item: BatchItem): Promise<void> | undefined {
    if (this.#fout) throw this.#fout;
    this.#buffer.push(item);
    return this.#buffer.length >= this.#opts.batchGrootte ? this.#spoel() : undefined;
  }

  async afbreken(): Promise<void> {
    this.#buffer = [];
    await Promise.all(this.#inVlucht.map((v) => v.klaar));
    await this.#losKoppelen();
  }

  async sluit(): Promise<void> {
    try {
      if (this.#buffer.length) await this.#spoel();
      await Promise.all(this.#inVlucht.map((v) => v.klaar));
    } finally {
      await this.#losKoppelen();
    }
    if (this.#fout) throw this.#fout;
  }

  async #losKoppelen(): Promise<void> {
    const a = this.#adapter;
    this.#adapter = null;
    if (a) await (await a.catch(() => null))?.dispose();
    const v = this.#verbindingen;
    this.#verbindingen = [];
    this.#vrij = [];
    await Promise.all(v.map((x) => x.sluit()));
  }

  async #beginTx(direct: DirectOpties | null): Promise<TxKanaal> {
    const txStart = this.#opts.txStart;
    const open = this.#db.openRawConnection;
    if (open) {
      let v = this.#vrij.pop();
      while (v?.fout) {
        this.#verbindingen = this.#verbindingen.filter((x) => x !== v);
        await v.sluit();
        v = this.#vrij.pop();
      }
      if (!v) {
        v = await KopieVerbinding.open(await open());
        this.#verbindingen.push(v);
      }
      const verbinding = v;
      const vrijgeven = () => {
        if (verbinding.fout) {
          this.#verbindingen = this.#verbindingen.filter((x) => x !== verbinding);
          void verbinding.sluit();
        } else this.#vrij.push(verbinding);
      };
      try {
        await verbinding.begin(txStart, direct);
      } catch (e) {
        verbinding.fout ??= e as Error;
        vrijgeven();
        throw e;
      }
      return {
        uitvoer: verbinding.uitvoerder,
        commit: async () => {
          await verbinding.commit();
          vrijgeven();
        },
        rollback: async () => {
          await verbinding.rollback().catch((e: Error) => {
            verbinding.fout ??= e;
          });
          vrijgeven();
        },
      };
    }
    this.#adapter ??= this.#db.adapterFactory.connect();
    const tx = await (await this.#adapter).startTransaction();
    // Adapters without a "phantom query" (adapter-pg) expect the caller to send COMMIT/ROLLBACK itself.
    const sql = (s: string) => tx.executeRaw({ sql: s, args: [], argTypes: [] });
    try {
      if (txStart) await sql(txStart);
    } catch (e) {
      if (!tx.options.usePhantomQuery) await sql('ROLLBACK').catch(() => {});
      await tx.rollback().catch(() => {});
      throw e;
    }
    return {
      uitvoer: adapterUitvoerder(tx),
      commit: async () => {
        if (!tx.options.usePhantomQuery) await sql('COMMIT');
        await tx.commit();
      },
      rollback: async () => {
        if (!tx.options.usePhantomQuery) await sql('ROLLBACK').catch(() => {});
        await tx.rollback().catch(() => {});
      },
    };
  }

  async #spoel(): Promise<void> {
    const batch = this.#buffer;
    this.#buffer = [];
    const perTabel = new Map<TabelNaam, TabelDeel>();
    for (const b of batch) {
      let d = perTabel.get(b.tabel);
      if (!d) perTabel.set(b.tabel, (d = new TabelDeel()));
      d.voegToe(b);
    }
    // Rows shared with a batch in flight with other values wait for it; shared tables go in key order.
    const gedeeld = new Set<TabelNaam>();
    const gedeeldeSleutels = new Map<TabelNaam, Set<string>>();
    const botsend = this.#inVlucht.filter((v) => {
      let botst = false;
      for (const [tabel, mijn] of perTabel) {
        const hun = v.perTabel.get(tabel);
        if (!hun) continue;
        let sleutels = gedeeldeSleutels.get(tabel);
        if (!sleutels) gedeeldeSleutels.set(tabel, (sleutels = new Set()));
        const r = mijn.vergelijk(hun, sleutels);
        if (r.gedeeld) gedeeld.add(tabel);
        if (r.botst) botst = true;
      }
      return botst;
    });
    if (botsend.length) await Promise.all(botsend.map((v) => v.klaar));
    const uniek = new Set<TabelNaam>();
    for (const [tabel, d] of perTabel) if (d.uniek) uniek.add(tabel);
    while (this.#inVlucht.length >= this.#opts.parallel) await Promise.race(this.#inVlucht.map((v) => v.klaar));
    if (this.#fout) throw this.#fout;
    const taak: InVlucht = { perTabel, klaar: Promise.resolve() };
    taak.klaar = this.#schrijf(batch, gedeeld, uniek, { gedeeld: gedeeldeSleutels, zoeken: this.#zoeken })
      .then(
        (u) => this.#opts.naBatch(u),
        (e) => {
          this.#fout ??= e;
        },
      )
      .finally(() => {
        this.#inVlucht = this.#inVlucht.filter((v) => v !== taak);
      });
    this.#inVlucht.push(taak);
  }

  async #schrijfTx(
    items: readonly BatchItem[],
    sorteer: ReadonlySet<TabelNaam> | 'alles',
    uniek: ReadonlySet<TabelNaam> = new Set(),
    direct: DirectOpties | null = null,
  ): Promise<Map<TabelNaam, UpsertTelling>> {
    const perTabel = new Map<TabelNaam, BatchItem[]>();
    for (const it of items) {
      let l = perTabel.get(it.tabel);
      if (!l) perTabel.set(it.tabel, (l = []));
      l.push(it);
    }
    const tx = await this.#beginTx(direct);
    try {
      const uit = new Map<TabelNaam, UpsertTelling>();
      for (const [tabel, lijst] of perTabel) {
        const opts = { voorwaarde: this.#opts.voorwaarden?.[tabel], sorteer: sorteer === 'alles' || sorteer.has(tabel), sleutelsUniek: uniek.has(tabel) };
        uit.set(tabel, await schrijfItems(tx.uitvoer, tabel, lijst, opts));
      }
      await tx.commit();
      return uit;
    } catch (e) {
      await tx.rollback();
      throw e;
    }
  }

  async #schrijf(batch: BatchItem[], sorteer: ReadonlySet<TabelNaam>, uniek: ReadonlySet<TabelNaam>, direct: DirectOpties): Promise<BatchUitkomst> {
    try {
      try {
        return { perTabel: await this.#schrijfTx(batch, sorteer, uniek, direct), geweigerd: [] };
      } catch (e) {
        // A deadlock, or a COPY meeting a key inserted meanwhile: once more, in key order, through ON CONFLICT.
        if (!isDeadlock(e) && !isUniekSchending(e)) throw e;
        if (isUniekSchending(e)) {
          const tabel = (e as { table?: string }).table;
          for (const it of batch) if (!tabel || it.tabel === tabel) this.#zoeken.add(it.tabel);
        }
        return { perTabel: await this.#schrijfTx(batch, 'alles', uniek), geweigerd: [] };
      }
    } catch (batchFout) {
      // Each row on its own; when every row fails (a connection, not the data) the error is rethrown.
      const perTabel = new Map<TabelNaam, UpsertTelling>();
      const geweigerd: { regel: number; reden: string }[] = [];
      for (const item of batch) {
        try {
          const t = await this.#schrijfTx([item], new Set());
          for (const [tabel, c] of t) {
            const s = perTabel.get(tabel) ?? { ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 0 };
            s.ingevoegd += c.ingevoegd;
            s.bijgewerkt += c.bijgewerkt;
            s.ongewijzigd += c.ongewijzigd;
            perTabel.set(tabel, s);
          }
        } catch (e) {
          geweigerd.push({ regel: item.regel, reden: `database weigerde de rij (${item.tabel}): ${dbFoutTekst(e)}` });
        }
      }
      if (geweigerd.length === batch.length && batch.length > 1) throw batchFout;
      return { perTabel, geweigerd };
    }
  }
}
