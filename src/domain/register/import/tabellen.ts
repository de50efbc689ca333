/**
 * The register tables as the importers see them; `normaliseerRij` checks one row so a batch never fails on a
 * value a single row could have caught. test/register/tabellen.test.ts keeps this in step with the schema.
 */

import { citeer } from '../../begrippen.ts';

export type KolomType = 'text' | 'int' | 'float' | 'date' | 'json' | 'text[]';

export interface KolomDef {
  naam: string;
  type: KolomType;
  /** NOT NULL without a default. */
  verplicht: boolean;
}

export interface TabelDef {
  naam: TabelNaam;
  sleutel: readonly string[];
  kolommen: readonly KolomDef[];
  bijgewerktOp: boolean;
}

export const TABEL_NAMEN = [
  'adres',
  'pand',
  'woz_waarde',
  'energielabel',
  'woningtype',
  'invloed_object',
  'adres_invloed',
  'verkoop',
  'prijsindex',
] as const;

export type TabelNaam = (typeof TABEL_NAMEN)[number];

const k = (naam: string, type: KolomType, verplicht = false): KolomDef => ({ naam, type, verplicht });

export const TABELLEN: Record<TabelNaam, TabelDef> = {
  adres: {
    naam: 'adres',
    sleutel: ['id'],
    bijgewerktOp: true,
    kolommen: [
      k('id', 'text', true),
      k('postcode', 'text', true),
      k('huisnummer', 'int', true),
      k('huisletter', 'text'),
      k('toevoeging', 'text'),
      k('straat', 'text', true),
      k('woonplaats', 'text', true),
      k('gemeente', 'text'),
      k('gemeente_code', 'text'),
      k('buurt_code', 'text'),
      k('buurt_naam', 'text'),
      k('wijk_code', 'text'),
      k('wijk_naam', 'text'),
      k('object_type', 'text', true),
      k('object_id', 'text'),
      k('pand_id', 'text'),
      k('gebruiksdoelen', 'text[]'),
      k('oppervlakte', 'int'),
      k('bouwjaar', 'int'),
      k('status', 'text'),
      k('rd_x', 'float'),
      k('rd_y', 'float'),
      k('lat', 'float'),
      k('lon', 'float'),
      k('bron', 'text', true),
      k('bron_datum', 'date'),
    ],
  },
  pand: {
    naam: 'pand',
    sleutel: ['id'],
    bijgewerktOp: true,
    kolommen: [k('id', 'text', true), k('bouwjaar', 'int'), k('status', 'text'), k('geometrie', 'json'), k('bron', 'text', true)],
  },
  woz_waarde: {
    naam: 'woz_waarde',
    sleutel: ['adres_id', 'peildatum'],
    bijgewerktOp: false,
    kolommen: [k('adres_id', 'text', true), k('peildatum', 'date', true), k('waarde', 'int', true), k('bron', 'text', true)],
  },
  energielabel: {
    naam: 'energielabel',
    sleutel: ['adres_id'],
    bijgewerktOp: false,
    kolommen: [
      k('adres_id', 'text', true),
      k('label', 'text'),
      k('registratiedatum', 'date'),
      k('geldig_tot', 'date'),
      k('opnametype', 'text'),
      k('energie_index', 'float'),
      k('bron', 'text', true),
    ],
  },
  woningtype: {
    naam: 'woningtype',
    sleutel: ['adres_id'],
    bijgewerktOp: false,
    kolommen: [k('adres_id', 'text', true), k('woningtype', 'text', true), k('afgeleid_uit', 'text', true), k('bron', 'text', true)],
  },
  invloed_object: {
    naam: 'invloed_object',
    sleutel: ['id'],
    bijgewerktOp: false,
    kolommen: [k('id', 'text', true), k('type', 'text', true), k('naam', 'text'), k('geometrie', 'json', true), k('bron', 'text', true)],
  },
  adres_invloed: {
    naam: 'adres_invloed',
    sleutel: ['adres_id', 'type'],
    bijgewerktOp: false,
    kolommen: [
      k('adres_id', 'text', true),
      k('type', 'text', true),
      k('indicator', 'text', true),
      k('afstand_m', 'int'),
      k('omschrijving', 'text', true),
      k('bron', 'text', true),
      k('lat', 'float'),
      k('lon', 'float'),
    ],
  },
  verkoop: {
    naam: 'verkoop',
    sleutel: ['id'],
    bijgewerktOp: false,
    kolommen: [
      k('id', 'text', true),
      k('adres_id', 'text'),
      k('postcode', 'text'),
      k('huisnummer', 'int'),
      k('toevoeging', 'text'),
      k('transactiedatum', 'date', true),
      k('koopsom', 'int', true),
      k('oppervlakte', 'int'),
      k('perceel', 'int'),
      k('bouwjaar', 'int'),
      k('woningtype', 'text'),
      k('energielabel', 'text'),
      k('lat', 'float'),
      k('lon', 'float'),
      k('bron', 'text', true),
    ],
  },
  prijsindex: {
    naam: 'prijsindex',
    sleutel: ['tabel', 'regio', 'periode'],
    bijgewerktOp: false,
    kolommen: [k('tabel', 'text', true), k('regio', 'text', true), k('periode', 'date', true), k('index', 'float', true), k('bron', 'text', true)],
  },
};

const kolomMap = new Map<TabelNaam, Map<string, KolomDef>>(
  TABEL_NAMEN.map((t) => [t, new Map(TABELLEN[t].kolommen.map((c) => [c.naam, c]))]),
);

export function isTabelNaam(v: unknown): v is TabelNaam {
  return typeof v === 'string' && (TABEL_NAMEN as readonly string[]).includes(v);
}

/** A programming error, not bad data. */
export class OnbekendeKolomFout extends Error {
  constructor(tabel: string, kolom: string) {
    super(`Tabel ${tabel} heeft geen kolom "${kolom}" (kolomnamen zoals de @map-namen in prisma/schema.prisma).`);
    this.name = 'OnbekendeKolomFout';
  }
}

export type Rij = Record<string, unknown>;
export type NormaalRij = Record<string, string | number | string[] | object | null | undefined>;

export type Normalisatie = { ok: true; rij: NormaalRij; masker: number; sleutel: string } | { ok: false; reden: string };

const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;

function geldigeDatum(j: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(j, m - 1, d));
  return t.getUTCFullYear() === j && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** PostgreSQL text cannot hold it. */
function heeftNul(s: string): boolean {
  return s.includes('\u0000');
}

const ONGELDIG = Symbol('ongeldig');
let laatsteReden = '';

function ongeldig(reden: string): typeof ONGELDIG {
  laatsteReden = reden;
  return ONGELDIG;
}

/** No allocation on the happy path. */
function zetWaarde(c: KolomDef, v: unknown): unknown {
  switch (c.type) {
    case 'text':
      if (typeof v !== 'string') return ongeldig(`kolom ${c.naam}: tekst verwacht, kreeg ${citeer(v)}`);
      if (heeftNul(v)) return ongeldig(`kolom ${c.naam}: tekst bevat een NUL-teken`);
      return v;
    case 'int': {
      if (typeof v === 'number' && Number.isInteger(v) && v >= INT_MIN && v <= INT_MAX) return v;
      const n = typeof v === 'string' && /^\s*-?\d{1,10}\s*$/.test(v) ? Number(v) : Number.NaN;
      if (!Number.isInteger(n) || n < INT_MIN || n > INT_MAX) return ongeldig(`kolom ${c.naam}: geheel getal verwacht, kreeg ${citeer(v)}`);
      return n;
    }
    case 'float': {
      if (typeof v === 'number' && Number.isFinite(v)) return v;
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
      if (!Number.isFinite(n)) return ongeldig(`kolom ${c.naam}: getal verwacht, kreeg ${citeer(v)}`);
      return n;
    }
    case 'date': {
      if (v instanceof Date) {
        if (Number.isNaN(v.getTime())) return ongeldig(`kolom ${c.naam}: ongeldige datum`);
        return v.toISOString().slice(0, 10);
      }
      if (typeof v === 'string') {
        const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
        if (m && geldigeDatum(+m[1], +m[2], +m[3])) return v;
      }
      return ongeldig(`kolom ${c.naam}: datum (jjjj-mm-dd) verwacht, kreeg ${citeer(v)}`);
    }
    case 'json':
      if (typeof v !== 'object' || v === null || v instanceof Date) return ongeldig(`kolom ${c.naam}: JSON-object verwacht, kreeg ${citeer(v)}`);
      return v;
    case 'text[]':
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || heeftNul(x))) {
        return ongeldig(`kolom ${c.naam}: lijst van teksten verwacht, kreeg ${citeer(v)}`);
      }
      return v;
  }
}

/** In place. Absent columns stay absent; rows with one mask share a statement. */
export function normaliseerRij(tabel: TabelNaam, rij: Rij): Normalisatie {
  const def = TABELLEN[tabel];
  const kolommen = def.kolommen;
  let masker = 0;
  let gevonden = 0;
  for (let i = 0; i < kolommen.length; i++) {
    const c = kolommen[i];
    const v = rij[c.naam];
    if (v === undefined) {
      if (c.verplicht) return { ok: false, reden: `kolom ${c.naam} ontbreekt` };
      if (c.naam in rij) gevonden++; // present but undefined: treated as absent (JSON.stringify drops it)
      continue;
    }
    gevonden++;
    if (v === null) {
      if (c.verplicht) return { ok: false, reden: `kolom ${c.naam} ontbreekt` };
      // Written as NULL (the mask says so) but left out of the JSON; undefined rather than deleted, which is slow in V8.
      masker |= 1 << i;
      rij[c.naam] = undefined;
      continue;
    }
    const w = zetWaarde(c, v);
    if (w === ONGELDIG) return { ok: false, reden: laatsteReden };
    if (w !== v) rij[c.naam] = w;
    masker |= 1 << i;
  }
  let aantal = 0;
  for (const k in rij) if (Object.hasOwn(rij, k)) aantal++;
  if (aantal !== gevonden) {
    const bekend = kolomMap.get(tabel)!;
    for (const k of Object.keys(rij)) {
      if (bekend.has(k)) continue;
      if (k === 'bijgewerkt_op' && def.bijgewerktOp) {
        rij[k] = undefined;
        continue;
      }
      throw new OnbekendeKolomFout(tabel, k);
    }
  }
  const s = def.sleutel;
  const sleutel = s.length === 1 ? String(rij[s[0]]) : s.map((c) => String(rij[c])).join('\u0001');
  return { ok: true, rij: rij as NormaalRij, masker, sleutel };
}

const kolommenCache = new Map<string, readonly KolomDef[]>();

export function kolommenVan(tabel: TabelNaam, masker: number): readonly KolomDef[] {
  const sleutel = `${tabel}|${masker}`;
  let k = kolommenCache.get(sleutel);
  if (!k) kolommenCache.set(sleutel, (k = TABELLEN[tabel].kolommen.filter((_, i) => (masker & (1 << i)) !== 0)));
  return k;
}
