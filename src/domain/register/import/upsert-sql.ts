/**
 * `ON CONFLICT DO UPDATE ... WHERE (...) IS DISTINCT FROM (EXCLUDED...)`, so unchanged rows are not touched.
 * Columns a row lacks are left out, so a source without one does not wipe what another wrote there.
 */
import { type KolomType, type NormaalRij, type TabelNaam, TABELLEN, kolommenVan } from './tabellen.ts';

export interface BatchItem {
  tabel: TabelNaam;
  rij: NormaalRij;
  masker: number;
  sleutel: string;
  regel: number;
}

export type Uitvoerder = (
  tabel: TabelNaam,
  masker: number,
  voorwaarde: string | undefined,
  items: readonly BatchItem[],
) => Promise<{ ingevoegd: number; bijgewerkt: number }>;

export const q = (naam: string) => `"${naam.replace(/"/g, '""')}"`;

const sqlCache = new Map<string, string>();

export const PG_TYPE: Record<KolomType, string> = { text: 'text', int: 'int4', float: 'float8', date: 'date', json: 'jsonb', 'text[]': 'text[]' };

function cast(type: KolomType, i: number): string {
  if (type === 'json') return `nullif(e->${i}, 'null'::jsonb)`;
  return type === 'text' ? `(e->>${i})` : `(e->>${i})::${PG_TYPE[type]}`;
}

export function arrayLiteral(a: readonly string[]): string {
  let s = '{';
  for (let i = 0; i < a.length; i++) {
    if (i) s += ',';
    s += `"${a[i].replace(/["\\]/g, '\\$&')}"`;
  }
  return `${s}}`;
}

/** Rows from `staging`, or from the one parameter, a JSON array of row arrays in column order. */
export function upsertSql(tabel: TabelNaam, masker: number, voorwaarde: string | undefined, staging?: string): string {
  const cacheSleutel = `${tabel}|${masker}|${voorwaarde ?? ''}|${staging ?? ''}`;
  const bekend = sqlCache.get(cacheSleutel);
  if (bekend) return bekend;
  const def = TABELLEN[tabel];
  const defs = kolommenVan(tabel, masker);
  const kolommen = defs.map((c) => c.naam);
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
  let bron: string;
  if (staging) {
    bron = `SELECT ${cols.join(', ')} FROM ${q(staging)}`;
  } else {
    bron = `SELECT ${defs.map((c, i) => cast(c.type, i)).join(', ')} FROM jsonb_array_elements($1::jsonb) AS e`;
  }
  const sql =
    `WITH u AS (INSERT INTO ${t} (${cols.join(', ')}) ${bron} ` +
    `ON CONFLICT (${def.sleutel.map(q).join(', ')}) ${conflict} RETURNING (xmax = 0) AS ingevoegd) ` +
    `SELECT (count(*) FILTER (WHERE ingevoegd))::int AS ingevoegd, (count(*) FILTER (WHERE NOT ingevoegd))::int AS bijgewerkt FROM u`;
  sqlCache.set(cacheSleutel, sql);
  return sql;
}
