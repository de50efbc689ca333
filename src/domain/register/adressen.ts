/** Decisions section 8: `toevoeging` matches huisletter and huisnummertoevoeging together, ignoring case, spaces and dashes. */
import { batchParameter, perDatabase } from '../../db/bundel.ts';
import { registerRijen, type Db } from '../../db/client.ts';
import type { Adres } from '../../generated/prisma/client.ts';
import { toevoegingSleutel, toevoegingVergelijkvorm } from '../begrippen.ts';

export interface AdresRij {
  id: string;
  postcode: string;
  huisnummer: number;
  huisletter: string | null;
  toevoeging: string | null;
  straat: string;
  woonplaats: string;
}

/**
 * What follows the house number in `weergave`, so that sent back it reaches the same dwelling: `A` (12A),
 * `-2` (12-2), `A-2` (12A-2), `-A` (12-A, distinct from 12A).
 */
export function toonToevoeging(a: Pick<AdresRij, 'huisletter' | 'toevoeging'>): string | null {
  const tekst = `${a.huisletter ?? ''}${a.toevoeging ? `-${a.toevoeging}` : ''}`;
  return tekst === '' ? null : tekst;
}

export function weergave(a: AdresRij): string {
  const nummer = huisnummerTekst(a);
  return `${a.straat} ${nummer}, ${a.postcode.slice(0, 4)} ${a.postcode.slice(4)} ${a.woonplaats}`;
}

/** Only to choose between addresses whose additions are equal once separators are dropped: `-A` vs `A`. */
function structuur(v: string): { huisletter: string | null; toevoeging: string | null } {
  const s = v.trim().toUpperCase();
  const schoon = (x: string | undefined) => (x ?? '').replace(/[^0-9A-Z]/g, '') || null;
  if (/^[-\s]/.test(v)) return { huisletter: null, toevoeging: schoon(s) };
  const m = /^([A-Z])(?:[\s-]*(.*))?$/.exec(s);
  if (m) return { huisletter: m[1], toevoeging: schoon(m[2]) };
  return { huisletter: null, toevoeging: schoon(s) };
}

/** One spelling per meaning ('a2', 'A 2', 'a-2' -> 'A-2'; '2' -> '-2'): what `kiesAdres` reads from it, so one request has one fingerprint. */
export function toevoegingNormaal(v: string): string {
  const s = structuur(v);
  return `${s.huisletter ?? ''}${s.toevoeging ? `-${s.toevoeging}` : ''}`;
}

export function huisnummerTekst(a: Pick<AdresRij, 'huisnummer' | 'huisletter' | 'toevoeging'>): string {
  return `${a.huisnummer}${a.huisletter ?? ''}${a.toevoeging ? `-${a.toevoeging}` : ''}`;
}

export type AdresKandidaat = Pick<AdresRij, 'huisnummer' | 'huisletter' | 'toevoeging'>;

export type AdresUitkomst<R extends AdresKandidaat = Adres> =
  | { soort: 'gevonden'; adres: R }
  | { soort: 'onbekend' }
  | { soort: 'dubbelzinnig'; opties: string[] };

/** Exactly toevoegingSleutel for ASCII (`translate`, not `upper`: no locale); a non-ASCII addition always counts as a match. */
const KAN_HET_ZIJN = `(regexp_replace(translate(coalesce(a.huisletter, '') || coalesce(a.toevoeging, ''), 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'), '[^0-9A-Z]', '', 'g') = v.sleutel
   OR (coalesce(a.huisletter, '') || coalesce(a.toevoeging, '')) ~ '[^\\x01-\\x7f]'
   OR count(*) OVER () = 1)`;

/** What every reader reads of every address it returns: AdresRij. */
const ADRES_RIJ = 'a.id, a.postcode, a.huisnummer, a.huisletter, a.toevoeging, a.straat, a.woonplaats';

/** Batched (batchParameter). Asked without a toevoeging, every address at the number (AdresRij); with one, only those
 *  kiesAdres can choose. `zwaar` (alias: expression) only for those, null for the others (at a block of flats, most of the work). */
export function gebundeldeKandidaten<R>(zwaar: Record<string, string> = {}, naarRij: (rij: Record<string, unknown>) => R = (r) => r as R) {
  const zwareKolommen = Object.entries(zwaar).map(([alias, expressie]) => `, CASE WHEN a.kan THEN ${expressie} END AS "${alias}"`);
  const tekst = `SELECT v.n::int AS n, ${ADRES_RIJ}${zwareKolommen.join('')}
    FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (postcode text, huisnummer int, sleutel text)) WITH ORDINALITY AS v(postcode, huisnummer, sleutel, n)
    CROSS JOIN LATERAL (SELECT * FROM (SELECT a.*, ${KAN_HET_ZIJN} AS kan FROM adres a
                        WHERE a.postcode = v.postcode AND a.huisnummer = v.huisnummer OFFSET 0) k WHERE v.sleutel = '' OR k.kan) a
    ORDER BY v.n, a.huisletter ASC NULLS LAST, a.toevoeging ASC NULLS LAST`;
  type Item = { postcode: string; huisnummer: number; sleutel: string; toevoeging: string | null };
  const lezer = perDatabase<Item, R[]>((db) => ({
    maxGrootte: 64,
    async verwerk(_sleutel, items) {
      const rijen = await registerRijen<Record<string, unknown> & { n: number }>(db, tekst, [batchParameter(items)], {
        // Not only the items without rows: a lone address comes back for any addition asked (KAN_HET_ZIJN), so the one beside it the primary just committed would be a 404.
        aanvullen: async (vanReplica, primair) => {
          const perItem = items.map(() => [] as AdresKandidaat[]);
          for (const x of vanReplica) perItem[Number(x.n) - 1].push(x as unknown as AdresKandidaat);
          const opnieuw = items.flatMap((item, i) => (kiesAdres(perItem[i], item.toevoeging).soort === 'gevonden' ? [] : [i]));
          if (opnieuw.length === 0) return vanReplica;
          const aangevuld = await primair([batchParameter(opnieuw.map((i) => items[i]))]);
          const vervangen = new Set(opnieuw.map((i) => i + 1));
          return [...vanReplica.filter((x) => !vervangen.has(Number(x.n))), ...aangevuld.map((r) => ({ ...r, n: opnieuw[Number(r.n) - 1] + 1 }))];
        },
      });
      const perItem: R[][] = items.map(() => []);
      for (const { n, ...rij } of rijen) perItem[Number(n) - 1].push(naarRij(rij));
      return perItem;
    },
  }));
  return (db: Db, postcode: string, huisnummer: number, toevoeging: string | null | undefined): Promise<R[]> =>
    lezer(db).voer('adres', { postcode, huisnummer, sleutel: toevoegingVergelijkvorm(toevoeging), toevoeging: toevoeging ?? null });
}

export const adresKandidaten = gebundeldeKandidaten<Adres>(
  {
    gemeente: 'a.gemeente',
    gemeenteCode: 'a.gemeente_code',
    buurtCode: 'a.buurt_code',
    buurtNaam: 'a.buurt_naam',
    wijkCode: 'a.wijk_code',
    wijkNaam: 'a.wijk_naam',
    objectType: 'a.object_type',
    objectId: 'a.object_id',
    pandId: 'a.pand_id',
    gebruiksdoelen: 'a.gebruiksdoelen',
    oppervlakte: 'a.oppervlakte',
    bouwjaar: 'a.bouwjaar',
    status: 'a.status',
    rdX: 'a.rd_x',
    rdY: 'a.rd_y',
    lat: 'a.lat',
    lon: 'a.lon',
    bron: 'a.bron',
    bronDatum: "to_char(a.bron_datum, 'YYYY-MM-DD')",
    bijgewerktOp: 'a.bijgewerkt_op',
  },
  // A DATE as Prisma gives it (midnight UTC), whatever the pg driver's time zone.
  (r) => ({ ...r, bronDatum: r.bronDatum ? new Date(`${r.bronDatum}T00:00:00Z`) : null, bijgewerktOp: r.bijgewerktOp && new Date(r.bijgewerktOp as Date) }) as Adres,
);

/** Without a toevoeging: the only address, or the one without any addition (exactly what was asked); else ambiguous. */
export function kiesAdres<R extends AdresKandidaat>(kandidaten: R[], toevoeging: string | null | undefined): AdresUitkomst<R> {
  if (kandidaten.length === 0) return { soort: 'onbekend' };
  const gezocht = toevoegingVergelijkvorm(toevoeging);
  const treffers = kandidaten.filter((k) => toevoegingSleutel(k.huisletter, k.toevoeging) === gezocht);
  if (treffers.length === 1) return { soort: 'gevonden', adres: treffers[0] };
  if (treffers.length > 1 && toevoeging) {
    const s = structuur(toevoeging);
    const exact = treffers.filter((k) => (k.huisletter?.toUpperCase() ?? null) === s.huisletter && toevoegingVergelijkvorm(k.toevoeging) === (s.toevoeging ?? ''));
    if (exact.length === 1) return { soort: 'gevonden', adres: exact[0] };
  }
  if (!gezocht && kandidaten.length === 1) return { soort: 'gevonden', adres: kandidaten[0] };
  if (treffers.length === 0 && gezocht) return { soort: 'onbekend' };
  return { soort: 'dubbelzinnig', opties: (treffers.length > 1 ? treffers : kandidaten).map(huisnummerTekst) };
}
