/**
 * An empty table is loaded on PostgreSQL without its secondary indexes, built once afterwards ("Populating
 * a Database"). Only non-unique indexes backing no constraint, of tables empty at the start, so a running
 * service never loses an index it uses. Each dropped index is recorded in `uitgestelde_index` in the same
 * transaction, so after a crash the next import or start builds it.
 */
import type pg from 'pg';
import type { Database } from '../../../db/client.ts';
import type { TabelNaam } from './tabellen.ts';
import { q } from './upsert-sql.ts';

/** An arbitrary constant of this app. */
const SLOT = '7301202611';

export interface IndexUitstel {
  readonly uitgesteld: { tabel: string; naam: string }[];
  herbouw(): Promise<{ naam: string; seconden: number }[]>;
}

async function neemSlot(c: pg.Client): Promise<boolean> {
  return (await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [SLOT])).rows[0].ok;
}

async function bouwOpgeslagen(c: pg.Client): Promise<{ naam: string; seconden: number }[]> {
  const { rows } = await c.query<{ naam: string; tabel: string; definitie: string }>('SELECT naam, tabel, definitie FROM uitgestelde_index ORDER BY naam');
  const uit: { naam: string; seconden: number }[] = [];
  if (rows.length) await c.query(`SET maintenance_work_mem = '256MB'`);
  for (const r of rows) {
    const t0 = performance.now();
    await c.query(r.definitie.replace(/^CREATE INDEX /, 'CREATE INDEX IF NOT EXISTS '));
    await c.query('DELETE FROM uitgestelde_index WHERE naam = $1', [r.naam]);
    uit.push({ naam: r.naam, seconden: Math.round((performance.now() - t0) / 10) / 100 });
  }
  for (const tabel of new Set(rows.map((r) => r.tabel))) await c.query(`ANALYZE ${q(tabel)}`);
  return uit;
}

/** Unless an import is deferring them right now. No-op on PGlite. */
export async function herstelUitgesteldeIndexen(db: Pick<Database, 'openRawConnection' | 'prisma'>): Promise<string[]> {
  // Nearly always nothing is recorded: then no connection is opened (every start asks).
  if (!db.openRawConnection || (await db.prisma.uitgesteldeIndex.count()) === 0) return [];
  const c = await db.openRawConnection();
  try {
    if (!(await neemSlot(c))) return [];
    return (await bouwOpgeslagen(c)).map((r) => r.naam);
  } finally {
    await c.end().catch(() => {});
  }
}

/** Null when there is nothing to defer, on PGlite, or when another import holds the lock. */
export async function stelIndexenUit(db: Pick<Database, 'openRawConnection' | 'prisma'>, tabellen: readonly TabelNaam[], importRunId: string | null): Promise<IndexUitstel | null> {
  if (!db.openRawConnection) return null;
  const c = await db.openRawConnection();
  let vrijgeven = true;
  try {
    if (!(await neemSlot(c))) return null;
    await bouwOpgeslagen(c);
    const uitgesteld: { tabel: string; naam: string }[] = [];
    await c.query('BEGIN');
    try {
      for (const tabel of tabellen) {
        const { rows: leeg } = await c.query<{ leeg: boolean }>(`SELECT NOT EXISTS (SELECT 1 FROM ${q(tabel)}) AS leeg`);
        if (!leeg[0].leeg) continue;
        const { rows } = await c.query<{ naam: string; definitie: string }>(
          `SELECT i.relname AS naam, pg_get_indexdef(x.indexrelid) AS definitie
             FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
            WHERE x.indrelid = to_regclass($1) AND NOT x.indisunique AND NOT x.indisprimary
              AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid)
            ORDER BY i.relname`,
          [q(tabel)],
        );
        for (const r of rows) {
          await c.query('INSERT INTO uitgestelde_index (naam, tabel, definitie, import_run_id) VALUES ($1, $2, $3, $4)', [r.naam, tabel, r.definitie, importRunId]);
          await c.query(`DROP INDEX ${q(r.naam)}`);
          uitgesteld.push({ tabel, naam: r.naam });
        }
      }
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    }
    if (uitgesteld.length === 0) return null;
    vrijgeven = false;
    let kapot = false;
    c.on('error', () => {
      kapot = true;
    });
    return {
      uitgesteld,
      async herbouw() {
        try {
          if (!kapot) return await bouwOpgeslagen(c);
        } catch (e) {
          if (!kapot) throw e;
        } finally {
          await c.end().catch(() => {});
        }
        return (await herstelUitgesteldeIndexen(db)).map((naam) => ({ naam, seconden: 0 }));
      },
    };
  } finally {
    if (vrijgeven) await c.end().catch(() => {});
  }
}
