/**
 * PostgreSQL bulk path: COPY FROM STDIN (text) into a temporary staging table, then the idempotent upsert.
 * COPY text is far cheaper for PostgreSQL to parse than a jsonb parameter; PGlite keeps the JSON path.
 */
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { type KolomType, type TabelNaam, TABELLEN, kolommenVan } from './tabellen.ts';
import { type BatchItem, type Uitvoerder, PG_TYPE, arrayLiteral, q, upsertSql } from './upsert-sql.ts';

/** NUL is refused earlier, by normaliseerRij. */
const BIJZONDER = /[\\\t\n\r]/;
const BIJZONDER_ALLE = /[\\\t\n\r]/g;
const ESCAPE: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

export function kopieVeld(s: string): string {
  return BIJZONDER.test(s) ? s.replace(BIJZONDER_ALLE, (c) => ESCAPE[c]) : s;
}

interface StagingPlan {
  naam: string;
  kolommen: string[];
  typen: KolomType[];
  maak: string;
  kopie: string;
  direct: string;
}

const plannen = new Map<string, StagingPlan>();

function stagingPlan(tabel: TabelNaam, masker: number): StagingPlan {
  const sleutel = `${tabel}|${masker}`;
  let p = plannen.get(sleutel);
  if (p) return p;
  const defs = kolommenVan(tabel, masker);
  const kolommen = defs.map((c) => c.naam);
  const typen = defs.map((c) => c.type);
  const naam = `_import_${tabel}_${masker}`;
  const lijst = kolommen.map(q).join(', ');
  p = {
    naam,
    kolommen,
    typen,
    // No constraints: every value was checked in Node.
    maak: `CREATE TEMP TABLE ${q(naam)} ON COMMIT DELETE ROWS AS SELECT ${lijst} FROM ${q(tabel)} WITH NO DATA`,
    kopie: `COPY ${q(naam)} (${lijst}) FROM STDIN`,
    direct: `COPY ${q(tabel)} (${lijst}) FROM STDIN`,
  };
  plannen.set(sleutel, p);
  return p;
}

const zoekSqlCache = new Map<TabelNaam, string>();

/** The keys go as one JSON parameter: JSON.stringify is far cheaper in Node than array literals. */
function zoekSql(tabel: TabelNaam): string {
  let sql = zoekSqlCache.get(tabel);
  if (sql) return sql;
  const def = TABELLEN[tabel];
  const typen = def.sleutel.map((c) => def.kolommen.find((k) => k.naam === c)!.type);
  const alsTekst = (c: string, i: number) => (typen[i] === 'date' ? `to_char(t.${q(c)}, 'YYYY-MM-DD')` : `t.${q(c)}::text`);
  if (def.sleutel.length === 1) {
    const c = q(def.sleutel[0]);
    sql = `SELECT ${alsTekst(def.sleutel[0], 0)} AS k0 FROM ${q(tabel)} t WHERE t.${c} = ANY(ARRAY(SELECT z::${PG_TYPE[typen[0]]} FROM jsonb_array_elements_text($1::jsonb) AS z))`;
  } else {
    const voorwaarden = def.sleutel.map((c, i) => `t.${q(c)} = (z.e->>${i})::${PG_TYPE[typen[i]]}`).join(' AND ');
    sql = `SELECT ${def.sleutel.map((c, i) => `${alsTekst(c, i)} AS k${i}`).join(', ')} FROM jsonb_array_elements($1::jsonb) AS z(e) JOIN ${q(tabel)} t ON ${voorwaarden}`;
  }
  zoekSqlCache.set(tabel, sql);
  return sql;
}

type Encoder = (items: readonly BatchItem[]) => string;

const encoders = new WeakMap<object, Encoder>();

/** One encoder generated per column list (names from TABELLEN, never input): one object shape per site. */
export function kopieTekst(plan: Pick<StagingPlan, 'kolommen' | 'typen'>, items: readonly BatchItem[]): string {
  let enc = encoders.get(plan);
  if (!enc) encoders.set(plan, (enc = maakEncoder(plan.kolommen, plan.typen)));
  return enc(items);
}

function maakEncoder(kolommen: readonly string[], typen: readonly KolomType[]): Encoder {
  const velden = kolommen.map((naam, i) => {
    const v = `(v = r[${JSON.stringify(naam)}]) == null ? '\\\\N' : `;
    switch (typen[i]) {
      case 'text':
        return `(${v}(BIJZONDER.test(v) ? kopieVeld(v) : v))`;
      case 'int':
      case 'float':
      case 'date':
        return `(${v}'' + v)`;
      case 'text[]':
        return `(${v}kopieVeld(arrayLiteral(v)))`;
      case 'json':
        return `(${v}kopieVeld(JSON.stringify(v)))`;
    }
  });
  const lichaam = `
    return function kopieRegels(items) {
      let uit = '';
      let v;
      for (let i = 0; i < items.length; i++) {
        const r = items[i].rij;
        uit += ${velden.join(" + '\\t' + ")} + '\\n';
      }
      return uit;
    };`;
  return new Function('BIJZONDER', 'kopieVeld', 'arrayLiteral', lichaam)(BIJZONDER, kopieVeld, arrayLiteral) as Encoder;
}

export interface DirectOpties {
  gedeeld: ReadonlyMap<TabelNaam, ReadonlySet<string>>;
  /**
   * Not looking pays while batches hold only new keys; a COPY that meets an existing key fails, is redone
   * through ON CONFLICT and puts its table here; a lookup that finds none takes it out again.
   */
  zoeken: Set<TabelNaam>;
}

/**
 * Rows whose keys the table lacks are copied straight into it (about half the CPU of staging). Keys shared
 * with a batch in flight go through ON CONFLICT; a key inserted by another writer after the lookup fails the
 * COPY, and the caller redoes the batch without DirectOpties.
 */
export class KopieVerbinding {
  readonly #client: pg.Client;
  readonly #staging = new Set<string>();
  readonly #nieuw = new Set<string>();
  readonly #gevuld = new Set<string>();
  fout: Error | null = null;

  private constructor(client: pg.Client) {
    this.#client = client;
    // Without a listener an idle connection's 'error' would end the process.
    client.on('error', (e) => {
      this.fout ??= e;
    });
  }

  static async open(client: pg.Client): Promise<KopieVerbinding> {
    const v = new KopieVerbinding(client);
    try {
      // A table being loaded has no statistics, so the planner would scan it for every key lookup. A disabled
      // plan type only gets a huge cost, which would invite JIT: no JIT.
      await client.query('SET enable_seqscan = off; SET max_parallel_workers_per_gather = 0; SET jit = off');
    } catch (e) {
      await v.sluit();
      throw e;
    }
    return v;
  }

  #direct: DirectOpties | null = null;

  async begin(txStart: string | undefined, direct: DirectOpties | null): Promise<void> {
    this.#direct = direct;
    await this.#client.query(txStart ? `BEGIN; ${txStart}` : 'BEGIN');
  }

  async commit(): Promise<void> {
    await this.#client.query('COMMIT');
    this.#nieuw.clear();
    this.#gevuld.clear();
  }

  async rollback(): Promise<void> {
    try {
      await this.#client.query('ROLLBACK');
    } finally {
      for (const n of this.#nieuw) this.#staging.delete(n);
      this.#nieuw.clear();
      this.#gevuld.clear();
    }
  }

  async sluit(): Promise<void> {
    await this.#client.end().catch(() => {});
  }

  #kopieer(sql: string, tekst: string): Promise<number> {
    return new Promise<number>((klaar, mislukt) => {
      const stroom = this.#client.query(copyFrom(sql));
      stroom.on('error', mislukt);
      stroom.on('finish', () => klaar(stroom.rowCount));
      stroom.end(tekst);
    });
  }

  async #splits(tabel: TabelNaam, items: readonly BatchItem[], gedeeld: ReadonlySet<string> | undefined): Promise<{ nieuw: BatchItem[]; bestaand: BatchItem[] }> {
    const sleutel = TABELLEN[tabel].sleutel;
    const enkel = sleutel.length === 1 ? sleutel[0] : null;
    const zoek: unknown[] = [];
    for (const it of items) {
      if (gedeeld?.has(it.sleutel)) continue;
      zoek.push(enkel ? it.rij[enkel] : sleutel.map((c) => it.rij[c]));
    }
    const gevonden = new Set<string>();
    if (zoek.length) {
      const res = await this.#client.query({ text: zoekSql(tabel), values: [JSON.stringify(zoek)], rowMode: 'array' });
      for (const r of res.rows as string[][]) gevonden.add(r.length === 1 ? r[0] : r.join('\u0001'));
    }
    const nieuw: BatchItem[] = [];
    const bestaand: BatchItem[] = [];
    for (const it of items) (gevonden.has(it.sleutel) || gedeeld?.has(it.sleutel) ? bestaand : nieuw).push(it);
    return { nieuw, bestaand };
  }

  readonly uitvoerder: Uitvoerder = async (tabel, masker, voorwaarde, alle) => {
    const plan = stagingPlan(tabel, masker);
    let items = alle;
    let direct = 0;
    if (this.#direct) {
      const gedeeld = this.#direct.gedeeld.get(tabel);
      let nieuw: readonly BatchItem[] = alle;
      let bestaand: readonly BatchItem[] = [];
      if (this.#direct.zoeken.has(tabel) || gedeeld?.size) {
        ({ nieuw, bestaand } = await this.#splits(tabel, alle, gedeeld));
        if (bestaand.length === 0) this.#direct.zoeken.delete(tabel);
      }
      if (nieuw.length) direct = await this.#kopieer(plan.direct, kopieTekst(plan, nieuw));
      items = bestaand;
      if (!items.length) return { ingevoegd: direct, bijgewerkt: 0 };
    }
    if (!this.#staging.has(plan.naam)) {
      await this.#client.query(plan.maak);
      this.#staging.add(plan.naam);
      this.#nieuw.add(plan.naam);
    } else if (this.#gevuld.has(plan.naam)) {
      await this.#client.query(`TRUNCATE ${q(plan.naam)}`);
    }
    this.#gevuld.add(plan.naam);
    await this.#kopieer(plan.kopie, kopieTekst(plan, items));
    const res = await this.#client.query<{ ingevoegd: number; bijgewerkt: number }>(upsertSql(tabel, masker, voorwaarde, plan.naam));
    return { ingevoegd: direct + Number(res.rows[0]?.ingevoegd ?? 0), bijgewerkt: Number(res.rows[0]?.bijgewerkt ?? 0) };
  };
}
