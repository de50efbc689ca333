/**
 * Writing rows: `upsertBatch` (one idempotent INSERT ... ON CONFLICT per table and column set) and
 * `BatchSchrijver`, the import pipeline's buffer that groups rows into batches, writes each batch in
 * one transaction and, when a batch fails in the database, retries its rows one by one so that every
 * row is either fully written or rejected with the database's reason.
 *
 * The upsert sends a batch as one parameter, a JSON array of row arrays in column order, unpacked
 * with `jsonb_array_elements($1::jsonb) AS e` and `(e->>i)::type` per column. The statement is the
 * same on PGlite and PostgreSQL. Measured in PostgreSQL backend CPU per adres row (fresh inserts,
 * three indexes): JSON objects via json_populate_recordset or json_to_recordset ~19 µs, one
 * `unnest($n::type[])` per column about the same, json (not jsonb) arrays 45 µs, jsonb arrays
 * ~16 µs; and one string parameter is much cheaper to pass than 26 arrays. Rows that did not change
 * are not touched:
 *
 *   INSERT ... ON CONFLICT (pk) DO UPDATE SET c = EXCLUDED.c, ..., bijgewerkt_op = now()
 *   WHERE (t.c, ...) IS DISTINCT FROM (EXCLUDED.c, ...)
 *   RETURNING (xmax = 0) AS ingevoegd          -- xmax = 0: the row was inserted, not updated
 *
 * Columns a row does not carry are left out of the statement, so a source that lacks a column (the
 * NLExtract CSV has no pand geometry) does not wipe what another source wrote there.
 *
 * The import pipeline sends its batches through the Prisma driver adapter of the open database
 * (`db.adapterFactory.connect()`: the same pg pool settings or the same PGlite instance) rather than
 * through `prisma.$queryRawUnsafe`: for a 2 MB JSON parameter the client costs 20-45 ms of Node CPU
 * per 5,000-row batch, the adapter 2-4 ms, and Node CPU is what limits a 2-core machine.
 */
import type { SqlDriverAdapter, Transaction } from '@prisma/driver-adapter-utils';
import type { Database } from '../../../db/client.ts';
import type { PrismaClient } from '../../../generated/prisma/client.ts';
import { type KolomType, type NormaalRij, type Rij, type TabelNaam, TABELLEN, kolommenVan, normaliseerRij } from './tabellen.ts';

/** What upsertBatch needs: a PrismaClient or an interactive-transaction client. */
export type SqlClient = Pick<PrismaClient, '$queryRawUnsafe' | '$executeRawUnsafe'> & { $transaction?: PrismaClient['$transaction'] };

export interface UpsertTelling {
  ingevoegd: number;
  bijgewerkt: number;
  ongewijzigd: number;
}

export interface UpsertOpties {
  /**
   * Sort rows by key within a statement (default true). Needed only when another transaction may
   * write some of the same rows at the same time (then both lock them in the same order).
   */
  sorteer?: boolean;
  /**
   * Extra SQL condition (after the IS DISTINCT FROM test) on the DO UPDATE; may refer to the table by
   * its name and to the incoming row as `excluded`. E.g. "a newer registration wins".
   */
  voorwaarde?: string;
  /**
   * The caller already knows that every key occurs only once among the rows (the batch writer
   * builds a key map per batch anyway): then there are no repeats to look for.
   */
  sleutelsUniek?: boolean;
}

export interface UpsertResultaat extends UpsertTelling {
  /** Rows refused before the database saw them (index into the input, Dutch reason). */
  afgewezen: { index: number; reden: string }[];
}

/** A normalised row ready for the database. */
export interface BatchItem {
  tabel: TabelNaam;
  rij: NormaalRij;
  /** Bit mask of the columns present (see normaliseerRij). */
  masker: number;
  /** Primary key as one string. */
  sleutel: string;
  /** Source line (for the report when the database refuses the row). */
  regel: number;
}

const q = (naam: string) => `"${naam.replace(/"/g, '""')}"`;

const sqlCache = new Map<string, string>();

/** Element i of a row array, as the column's type. */
const CAST: Record<KolomType, (i: number) => string> = {
  text: (i) => `(e->>${i})`,
  int: (i) => `(e->>${i})::int4`,
  float: (i) => `(e->>${i})::float8`,
  date: (i) => `(e->>${i})::date`,
  json: (i) => `nullif(e->${i}, 'null'::jsonb)`,
  'text[]': (i) => `(e->>${i})::text[]`,
};

/** A text[] value as a PostgreSQL array literal ({"a","b"}). */
function arrayLiteral(a: readonly string[]): string {
  let s = '{';
  for (let i = 0; i < a.length; i++) {
    if (i) s += ',';
    s += `"${a[i].replace(/["\\]/g, '\\$&')}"`;
  }
  return `${s}}`;
}

/**
 * The statement's parameter: a JSON array of row arrays in column order (no key names to send and
 * parse; nulls as null, text[] as an array literal). Floats go as JSON strings: jsonb stores a JSON
 * number as numeric, so `(e->>i)::float8` on a number costs numeric_in, numeric_out and float8in,
 * on a string only float8in. Measured on PostgreSQL 15: 10,000 rows of five numeric columns 21-27 ms
 * as numbers, 11 ms as strings; in the 1M-row bench floats as strings cut PostgreSQL CPU by ~12%.
 * Integers stay numbers: as strings they cost more Node CPU than they saved in PostgreSQL.
 */
function parameter(tabel: TabelNaam, masker: number, items: readonly BatchItem[]): string {
  const def = TABELLEN[tabel];
  const namen: string[] = [];
  const lijst: boolean[] = [];
  const getal: boolean[] = [];
  def.kolommen.forEach((c, i) => {
    if (masker & (1 << i)) {
      namen.push(c.naam);
      lijst.push(c.type === 'text[]');
      getal.push(c.type === 'float');
    }
  });
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

function upsertSql(tabel: TabelNaam, masker: number, voorwaarde: string | undefined): string {
  const cacheSleutel = `${tabel}|${masker}|${voorwaarde ?? ''}`;
  const bekend = sqlCache.get(cacheSleutel);
  if (bekend) return bekend;
  const def = TABELLEN[tabel];
  const kolommen = kolommenVan(tabel, masker);
  const t = q(tabel);
  const cols = kolommen.map(q);
  const update = kolommen.filter((c) => !def.sleutel.includes(c)).map(q);
  let conflict: string;
  if (update.length === 0) {
    conflict = 'DO NOTHING';
  } else {
    const set = update.map((c) => `${c} = EXCLUDED.${c}`);
    if (def.bijgewerktOp) set.push(`"bijgewerkt_op" = now()`);
    const where = `(${update.map((c) => `${t}.${c}`).join(', ')}) IS DISTINCT FROM (${update.map((c) => `EXCLUDED.${c}`).join(', ')})`;
    conflict = `DO UPDATE SET ${set.join(', ')} WHERE ${where}${voorwaarde ? ` AND (${voorwaarde})` : ''}`;
  }
  const typen = kolommen.map((c) => def.kolommen.find((k) => k.naam === c)!.type);
  const waarden = typen.map((type, i) => CAST[type](i)).join(', ');
  const sql =
    `WITH u AS (INSERT INTO ${t} (${cols.join(', ')}) SELECT ${waarden} FROM jsonb_array_elements($1::jsonb) AS e ` +
    `ON CONFLICT (${def.sleutel.map(q).join(', ')}) ${conflict} RETURNING (xmax = 0) AS ingevoegd) ` +
    `SELECT (count(*) FILTER (WHERE ingevoegd))::int AS ingevoegd, (count(*) FILTER (WHERE NOT ingevoegd))::int AS bijgewerkt FROM u`;
  sqlCache.set(cacheSleutel, sql);
  return sql;
}

/**
 * Do two normalised rows of one table (same column mask) carry the same values? Compared value by
 * value rather than by JSON.stringify of both rows: the NLExtract CSV repeats its pand row for every
 * address in that pand, so this runs for about half of all rows, and serialising two objects per
 * call was a measurable share of the import's Node CPU. Arrays and objects (text[], jsonb) fall back
 * to their JSON text; undefined and null are the same to the database (both mean NULL or absent
 * under the same mask).
 */
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

/**
 * Split the rows of one table into statements: per column set, and per "generation" when a key occurs
 * more than once (PostgreSQL refuses to update one row twice in one INSERT), so later rows win as if
 * written one by one. Identical repeats are dropped (they count as unchanged). Within a statement
 * rows are sorted by key, so concurrent batches lock rows in the same order (no deadlocks).
 */
export function planStatements(items: readonly BatchItem[], sorteer = true, sleutelsUniek = false): { masker: number; items: BatchItem[] }[] {
  const perMasker = new Map<number, BatchItem[]>();
  for (const it of items) {
    let l = perMasker.get(it.masker);
    if (!l) perMasker.set(it.masker, (l = []));
    l.push(it);
  }
  const uit: { masker: number; items: BatchItem[] }[] = [];
  for (const [masker, lijst] of perMasker) {
    if (sleutelsUniek) {
      if (sorteer) lijst.sort((a, b) => (a.sleutel < b.sleutel ? -1 : a.sleutel > b.sleutel ? 1 : 0));
      uit.push({ masker, items: lijst });
      continue;
    }
    const generaties: BatchItem[][] = [[]];
    const eerste = new Map<string, BatchItem>();
    // Only for keys seen more than once: their generation and their latest row.
    let herhaald: Map<string, { gen: number; rij: NormaalRij }> | null = null;
    for (const it of lijst) {
      const e = eerste.get(it.sleutel);
      if (e === undefined) {
        generaties[0].push(it);
        eerste.set(it.sleutel, it);
        continue;
      }
      herhaald ??= new Map();
      let h = herhaald.get(it.sleutel);
      if (!h) herhaald.set(it.sleutel, (h = { gen: 0, rij: e.rij }));
      if (zelfdeRij(h.rij, it.rij)) continue;
      h.gen++;
      h.rij = it.rij;
      (generaties[h.gen] ??= []).push(it);
    }
    for (const g of generaties) {
      if (!g.length) continue;
      if (sorteer) g.sort((a, b) => (a.sleutel < b.sleutel ? -1 : a.sleutel > b.sleutel ? 1 : 0));
      uit.push({ masker, items: g });
    }
  }
  return uit;
}

/** Runs one upsert statement with its JSON parameter and returns the counts. */
export type Uitvoerder = (sql: string, json: string) => Promise<{ ingevoegd: number; bijgewerkt: number }>;

/** An Uitvoerder on a PrismaClient or interactive-transaction client. */
export function prismaUitvoerder(client: SqlClient): Uitvoerder {
  return async (sql, json) => {
    const res = (await client.$queryRawUnsafe(sql, json)) as { ingevoegd: number; bijgewerkt: number }[];
    return { ingevoegd: Number(res[0]?.ingevoegd ?? 0), bijgewerkt: Number(res[0]?.bijgewerkt ?? 0) };
  };
}

const TEKST_ARG = { scalarType: 'string', arity: 'scalar' } as const;

/** An Uitvoerder on a driver-adapter transaction. */
export function adapterUitvoerder(tx: Pick<Transaction, 'queryRaw'>): Uitvoerder {
  return async (sql, json) => {
    const res = await tx.queryRaw({ sql, args: [json], argTypes: [TEKST_ARG] });
    const i = res.columnNames.indexOf('ingevoegd');
    const b = res.columnNames.indexOf('bijgewerkt');
    return { ingevoegd: Number(res.rows[0]?.[i] ?? 0), bijgewerkt: Number(res.rows[0]?.[b] ?? 0) };
  };
}

/** Write normalised rows of one table (within the caller's transaction). */
export async function schrijfItems(uitvoer: Uitvoerder, tabel: TabelNaam, items: readonly BatchItem[], opts: UpsertOpties = {}): Promise<UpsertTelling> {
  let ingevoegd = 0;
  let bijgewerkt = 0;
  for (const st of planStatements(items, opts.sorteer ?? true, opts.sleutelsUniek ?? false)) {
    const r = await uitvoer(upsertSql(tabel, st.masker, opts.voorwaarde), parameter(tabel, st.masker, st.items));
    ingevoegd += r.ingevoegd;
    bijgewerkt += r.bijgewerkt;
  }
  return { ingevoegd, bijgewerkt, ongewijzigd: items.length - ingevoegd - bijgewerkt };
}

/** The readable part of a database error (driver adapters wrap the server's message). */
export function dbFoutTekst(e: unknown): string {
  const c = (e as { cause?: { originalMessage?: string; message?: string; kind?: string } })?.cause;
  const m = c?.originalMessage ?? (e instanceof Error ? e.message : String(e));
  const regels = m
    .split('\n')
    .map((x) => x.trim())
    .filter(Boolean);
  return regels[regels.length - 1]?.slice(0, 300) ?? c?.kind ?? 'onbekende databasefout';
}

function isDeadlock(e: unknown): boolean {
  const c = (e as { cause?: { originalCode?: string; code?: string } })?.cause;
  return c?.originalCode === '40P01' || c?.code === '40P01' || /deadlock/i.test(e instanceof Error ? e.message : '');
}

/** Normalise rows for `tabel`; invalid ones are returned separately (index, Dutch reason). */
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

/**
 * The generic writer for every register table (adres, pand, woz_waarde, energielabel, woningtype,
 * invloed_object, adres_invloed, verkoop, prijsindex). Rows are keyed by column (@map) name; values
 * may be strings, numbers, Dates (for DATE columns), arrays (text[]) and objects (jsonb). Invalid
 * rows are skipped and returned in `afgewezen`; the valid ones are written in one transaction
 * (or in the caller's, when given a transaction client). `db` may be the Database, its PrismaClient
 * or an interactive-transaction client. Writing the same rows twice reports them
 * as `ongewijzigd` and changes nothing (bijgewerkt_op included).
 */
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

// ------------------------------------------------------------------------------------------ pipeline

export interface BatchUitkomst {
  perTabel: Map<TabelNaam, UpsertTelling>;
  /** Rows the database refused (after a per-row retry). */
  geweigerd: { regel: number; reden: string }[];
}

export interface BatchSchrijverOpties {
  /** Rows per transaction. */
  batchGrootte: number;
  /** Transactions in flight at once (PostgreSQL: 2 uses both cores; PGlite: 1). */
  parallel: number;
  voorwaarden?: Partial<Record<TabelNaam, string>>;
  /** Called after each batch is committed. */
  naBatch: (u: BatchUitkomst) => void;
  /** Extra statement at the start of every batch transaction (e.g. SET LOCAL ...). */
  txStart?: string;
}

interface InVlucht {
  klaar: Promise<void>;
  /** The batch's rows by table and key (only with parallel writers). */
  perTabel: Map<TabelNaam, Map<string, BatchItem>> | null;
}

/**
 * Buffers rows and writes them in batches. `voegToe` returns a promise only when the buffer is full:
 * then it resolves once a write slot is free (back-pressure: the parser pauses meanwhile). A batch
 * that writes a key with other values than a batch still in flight waits for it, so "later rows
 * win" across batches too.
 */
export class BatchSchrijver {
  readonly #db: Database;
  readonly #opts: BatchSchrijverOpties;
  #adapter: Promise<SqlDriverAdapter> | null = null;
  #buffer: BatchItem[] = [];
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

  /** Drop what is buffered (the run failed) and wait for the batches in flight. */
  async afbreken(): Promise<void> {
    this.#buffer = [];
    await Promise.all(this.#inVlucht.map((v) => v.klaar));
    await this.#losKoppelen();
  }

  /** Write what is buffered and wait for every batch in flight. */
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
  }

  async #spoel(): Promise<void> {
    const batch = this.#buffer;
    this.#buffer = [];
    let perTabel: Map<TabelNaam, Map<string, BatchItem>> | null = null;
    // Tables whose keys all differ within this batch (known only when the key maps are built).
    const uniek = new Set<TabelNaam>();
    if (this.#opts.parallel > 1) {
      perTabel = new Map();
      const aantal = new Map<TabelNaam, number>();
      for (const b of batch) {
        let m = perTabel.get(b.tabel);
        if (!m) perTabel.set(b.tabel, (m = new Map()));
        m.set(b.sleutel, b);
        aantal.set(b.tabel, (aantal.get(b.tabel) ?? 0) + 1);
      }
      for (const [tabel, m] of perTabel) if (m.size === aantal.get(tabel)) uniek.add(tabel);
    }
    // Wait for any batch in flight that writes one of these keys with other values (identical rows
    // may be written concurrently: the outcome does not depend on the order), then for a free slot.
    // Only this method starts batches, so the set in flight can only shrink while we wait. Tables
    // that share rows with a batch in flight are written in key order (both lock them in that order).
    const gedeeld = new Set<TabelNaam>();
    if (perTabel) {
      const botsend = this.#inVlucht.filter((v) => {
        if (!v.perTabel) return false;
        let botst = false;
        for (const [tabel, mijn] of perTabel!) {
          const hun = v.perTabel.get(tabel);
          if (!hun) continue;
          const [klein, groot] = hun.size < mijn.size ? [hun, mijn] : [mijn, hun];
          for (const [k, it] of klein) {
            const ander = groot.get(k);
            if (!ander) continue;
            gedeeld.add(tabel);
            if (ander.masker !== it.masker || !zelfdeRij(ander.rij, it.rij)) botst = true;
          }
        }
        return botst;
      });
      if (botsend.length) await Promise.all(botsend.map((v) => v.klaar));
    }
    while (this.#inVlucht.length >= this.#opts.parallel) await Promise.race(this.#inVlucht.map((v) => v.klaar));
    if (this.#fout) throw this.#fout;
    const taak: InVlucht = { perTabel, klaar: Promise.resolve() };
    taak.klaar = this.#schrijf(batch, gedeeld, uniek)
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
  ): Promise<Map<TabelNaam, UpsertTelling>> {
    const perTabel = new Map<TabelNaam, BatchItem[]>();
    for (const it of items) {
      let l = perTabel.get(it.tabel);
      if (!l) perTabel.set(it.tabel, (l = []));
      l.push(it);
    }
    this.#adapter ??= this.#db.adapterFactory.connect();
    const tx = await (await this.#adapter).startTransaction();
    try {
      if (this.#opts.txStart) await tx.executeRaw({ sql: this.#opts.txStart, args: [], argTypes: [] });
      const uitvoer = adapterUitvoerder(tx);
      const uit = new Map<TabelNaam, UpsertTelling>();
      for (const [tabel, lijst] of perTabel) {
        const opts = { voorwaarde: this.#opts.voorwaarden?.[tabel], sorteer: sorteer === 'alles' || sorteer.has(tabel), sleutelsUniek: uniek.has(tabel) };
        uit.set(tabel, await schrijfItems(uitvoer, tabel, lijst, opts));
      }
      // Adapters without a "phantom query" (adapter-pg) expect the caller to send COMMIT/ROLLBACK
      // itself, as Prisma's engine does; commit()/rollback() then only release the connection.
      if (!tx.options.usePhantomQuery) await tx.executeRaw({ sql: 'COMMIT', args: [], argTypes: [] });
      await tx.commit();
      return uit;
    } catch (e) {
      if (!tx.options.usePhantomQuery) await tx.executeRaw({ sql: 'ROLLBACK', args: [], argTypes: [] }).catch(() => {});
      await tx.rollback().catch(() => {});
      throw e;
    }
  }

  async #schrijf(batch: BatchItem[], sorteer: ReadonlySet<TabelNaam>, uniek: ReadonlySet<TabelNaam>): Promise<BatchUitkomst> {
    try {
      try {
        return { perTabel: await this.#schrijfTx(batch, sorteer, uniek), geweigerd: [] };
      } catch (e) {
        // Two batches in flight that lock the same (identical) rows in another order can deadlock;
        // PostgreSQL then aborts one of them. Once more, in key order.
        if (!isDeadlock(e)) throw e;
        return { perTabel: await this.#schrijfTx(batch, 'alles', uniek), geweigerd: [] };
      }
    } catch (batchFout) {
      // Find the culprit(s): each row in its own transaction. Rows that fail are refused, the rest is
      // written; when every row fails (a connection problem, not the data) the error is rethrown.
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
