/**
 * Writes the demo dataset into the database: one transaction, multi-row INSERTs of literal values
 * (~1000 rows per statement; much faster on PGlite than per-row parameters), all or nothing.
 * Existing demo rows (bron = DEMO_BRON) are deleted first when the demo was loaded before (checked
 * by primary key), so loading twice gives the same state.
 * Price-index rows never overwrite a real import (ON CONFLICT DO NOTHING).
 */
import type { Database } from '../../../db/client.ts';
import { type DemoDataset, generateDemoDataset } from './genereer.ts';
import { DEMO_BRON } from './opzet.ts';

type Soort = 'tekst' | 'getal' | 'datum' | 'tekstlijst' | 'json';

/** Columns per table, in insert order of the tables (parents before children). */
const TABELLEN: readonly { tabel: keyof DemoDataset; kolommen: readonly [string, Soort][]; conflict?: string }[] = [
  {
    tabel: 'adres',
    kolommen: [
      ['id', 'tekst'],
      ['postcode', 'tekst'],
      ['huisnummer', 'getal'],
      ['huisletter', 'tekst'],
      ['toevoeging', 'tekst'],
      ['straat', 'tekst'],
      ['woonplaats', 'tekst'],
      ['gemeente', 'tekst'],
      ['gemeente_code', 'tekst'],
      ['buurt_code', 'tekst'],
      ['buurt_naam', 'tekst'],
      ['wijk_code', 'tekst'],
      ['wijk_naam', 'tekst'],
      ['object_type', 'tekst'],
      ['object_id', 'tekst'],
      ['pand_id', 'tekst'],
      ['gebruiksdoelen', 'tekstlijst'],
      ['oppervlakte', 'getal'],
      ['bouwjaar', 'getal'],
      ['status', 'tekst'],
      ['rd_x', 'getal'],
      ['rd_y', 'getal'],
      ['lat', 'getal'],
      ['lon', 'getal'],
      ['bron', 'tekst'],
      ['bron_datum', 'datum'],
    ],
  },
  {
    tabel: 'pand',
    kolommen: [
      ['id', 'tekst'],
      ['bouwjaar', 'getal'],
      ['status', 'tekst'],
      ['geometrie', 'json'],
      ['bron', 'tekst'],
    ],
  },
  {
    tabel: 'woningtype',
    kolommen: [
      ['adres_id', 'tekst'],
      ['woningtype', 'tekst'],
      ['afgeleid_uit', 'tekst'],
      ['bron', 'tekst'],
    ],
  },
  {
    tabel: 'energielabel',
    kolommen: [
      ['adres_id', 'tekst'],
      ['label', 'tekst'],
      ['registratiedatum', 'datum'],
      ['geldig_tot', 'datum'],
      ['opnametype', 'tekst'],
      ['energie_index', 'getal'],
      ['bron', 'tekst'],
    ],
  },
  {
    tabel: 'woz_waarde',
    kolommen: [
      ['adres_id', 'tekst'],
      ['peildatum', 'datum'],
      ['waarde', 'getal'],
      ['bron', 'tekst'],
    ],
  },
  {
    tabel: 'invloed_object',
    kolommen: [
      ['id', 'tekst'],
      ['type', 'tekst'],
      ['naam', 'tekst'],
      ['geometrie', 'json'],
      ['bron', 'tekst'],
    ],
  },
  {
    tabel: 'adres_invloed',
    kolommen: [
      ['adres_id', 'tekst'],
      ['type', 'tekst'],
      ['indicator', 'tekst'],
      ['afstand_m', 'getal'],
      ['omschrijving', 'tekst'],
      ['bron', 'tekst'],
    ],
  },
  {
    tabel: 'verkoop',
    kolommen: [
      ['id', 'tekst'],
      ['adres_id', 'tekst'],
      ['postcode', 'tekst'],
      ['huisnummer', 'getal'],
      ['toevoeging', 'tekst'],
      ['transactiedatum', 'datum'],
      ['koopsom', 'getal'],
      ['oppervlakte', 'getal'],
      ['perceel', 'getal'],
      ['bouwjaar', 'getal'],
      ['woningtype', 'tekst'],
      ['energielabel', 'tekst'],
      ['lat', 'getal'],
      ['lon', 'getal'],
      ['bron', 'tekst'],
    ],
  },
  {
    tabel: 'prijsindex',
    kolommen: [
      ['tabel', 'tekst'],
      ['regio', 'tekst'],
      ['periode', 'datum'],
      ['index', 'getal'],
      ['bron', 'tekst'],
    ],
    conflict: 'ON CONFLICT (tabel, regio, periode) DO NOTHING',
  },
];

function tekst(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

function literal(v: unknown, soort: Soort): string {
  if (v === null || v === undefined) return 'NULL';
  switch (soort) {
    case 'tekst':
      return tekst(String(v));
    case 'getal': {
      const n = Number(v);
      if (!Number.isFinite(n)) throw new Error(`geen getal: ${String(v)}`);
      return String(n);
    }
    case 'datum':
      return `DATE ${tekst((v as Date).toISOString().slice(0, 10))}`;
    case 'tekstlijst':
      return `ARRAY[${(v as string[]).map(tekst).join(',')}]::text[]`;
    case 'json':
      return `${tekst(JSON.stringify(v))}::jsonb`;
  }
}

export interface LaadResultaat {
  /** Rows written per table. */
  aantallen: Record<keyof DemoDataset, number>;
  /** Milliseconds spent writing (generation not included). */
  ms: number;
}

export interface LaadOpties {
  /** Seed for generateDemoDataset (default 1); ignored when `dataset` is given. */
  seed?: number;
  /** A dataset generated earlier. */
  dataset?: DemoDataset;
  /** Rows per INSERT statement (default 1000). */
  batch?: number;
}

/** Load the (generated) demo dataset; replaces earlier demo rows, all in one transaction. */
export async function loadDemoDataset(db: Database, opts: LaadOpties = {}): Promise<LaadResultaat> {
  const ds = opts.dataset ?? (await generateDemoDataset(opts.seed ?? 1));
  const batch = opts.batch ?? 1000;
  const t0 = performance.now();
  const aantallen = {} as Record<keyof DemoDataset, number>;
  await db.prisma.$transaction(
    async (tx) => {
      // Earlier demo rows? (a primary-key lookup, so a big real database is not scanned for nothing)
      const [{ eerder }] = await tx.$queryRawUnsafe<{ eerder: boolean }[]>(
        'SELECT (EXISTS (SELECT 1 FROM adres WHERE id = $1) OR EXISTS (SELECT 1 FROM verkoop WHERE id = $2)) AS eerder',
        ds.adres[0]?.id ?? '',
        ds.verkoop[0]?.id ?? '',
      );
      if (eerder) await wisDemoRijen(tx);
      for (const t of TABELLEN) {
        const rijen = ds[t.tabel] as unknown as Record<string, unknown>[];
        const namen = t.kolommen.map(([k]) => `"${k}"`).join(', ');
        let geschreven = 0;
        for (let i = 0; i < rijen.length; i += batch) {
          const waarden = rijen
            .slice(i, i + batch)
            .map((r) => `(${t.kolommen.map(([k, s]) => literal(r[k], s)).join(',')})`)
            .join(',\n');
          geschreven += await tx.$executeRawUnsafe(`INSERT INTO ${t.tabel} (${namen}) VALUES ${waarden} ${t.conflict ?? ''}`);
        }
        aantallen[t.tabel] = geschreven;
      }
    },
    { timeout: 600_000, maxWait: 60_000 },
  );
  // Statistics at once, not when autovacuum gets to it: a server's first plans are made with them.
  for (const t of TABELLEN) await db.prisma.$executeRawUnsafe(`ANALYZE ${t.tabel}`);
  return { aantallen, ms: Math.round(performance.now() - t0) };
}

type Transactie = Parameters<Parameters<Database['prisma']['$transaction']>[0]>[0];

/** Every demo row, children first; rows about a demo address go by address too, whatever their source. */
async function wisDemoRijen(tx: Transactie): Promise<number> {
  let weg = 0;
  for (const t of [...TABELLEN].reverse()) {
    const perAdres = t.kolommen.some(([k]) => k === 'adres_id') && t.tabel !== 'verkoop';
    weg += await tx.$executeRawUnsafe(
      perAdres ? `DELETE FROM ${t.tabel} WHERE bron = $1 OR adres_id IN (SELECT id FROM adres WHERE bron = $1)` : `DELETE FROM ${t.tabel} WHERE bron = $1`,
      DEMO_BRON,
    );
  }
  return weg;
}

/** Remove the demo town (an operator who leaves it out: DEMO_PLAATS=false), in one transaction. */
export function verwijderDemoDataset(db: Database): Promise<number> {
  return db.prisma.$transaction((tx) => wisDemoRijen(tx), { timeout: 600_000, maxWait: 60_000 });
}
