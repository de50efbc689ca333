/**
 * EP-Online's CSV "totaalbestand" (docs/import-formaten.md). An address can have several registrations far
 * apart in a big file, so the newest wins in the upsert itself and, within one batch, by the same total
 * order in JS: the result does not depend on the order of the rows.
 */
import {
  type AdresSleutel,
  type EnergielabelRij,
  type ParseFout,
  type ParseOkMetAdres,
  afgebroken,
  citeer,
  kolomIndex,
  leesCsv,
  leesDatumCompact,
  leesGetal,
  leesPostcodeHuisnummer,
  schoneToevoeging,
  veld,
} from './gedeeld.ts';
import { bestandSoort } from '../import/bestand-soort.ts';

export { resolveAdresId, resolveAdresIds, kiesAdres } from './gedeeld.ts';
export type { AdresResolutie, AdresSleutel, EnergielabelRij } from './gedeeld.ts';

export type EnergielabelResultaat = ParseOkMetAdres<'energielabel', EnergielabelRij> | ParseFout;

export interface EnergielabelOpties {
  /** Default 'EP-Online' plus the publication date when the file has one. */
  bron?: string;
}

const VERWACHT =
  'EP-Online-energielabelbestand (open-data CSV, \';\'-gescheiden, met een kopregel met o.a. Pand_postcode;Pand_huisnummer;Pand_registratiedatum;Pand_energieklasse)';

const VERPLICHT = ['pand_postcode', 'pand_huisnummer', 'pand_registratiedatum', 'pand_energieklasse'];

const KLASSE = /^(A\+{0,5}|[B-G])$/;

const volgorde = (t: string) =>
  `(COALESCE(${t}.registratiedatum, DATE '0001-01-01'), COALESCE(${t}.geldig_tot, DATE '0001-01-01'), COALESCE(${t}.energie_index, '-Infinity'::float8), COALESCE(ascii(${t}.label) * 10 - length(${t}.label), 0), COALESCE(${t}.opnametype, '') COLLATE "C", ${t}.bron COLLATE "C")`;
const publicatie = (t: string) => `substring(${t}.bron from 'publicatie ([0-9]{4}-[0-9]{2}-[0-9]{2})')`;

/**
 * The incoming row wins. A file dated otherwise than the held label decides by its date: a newer file's labels
 * are an address's whole set, so one it no longer holds goes. Same or unknown date: the later in the order.
 */
export const ENERGIELABEL_UPSERT_VOORWAARDE = `CASE WHEN ${publicatie('excluded')} <> ${publicatie('energielabel')} THEN ${publicatie('excluded')} > ${publicatie('energielabel')}
 ELSE ${volgorde('excluded')} > ${volgorde('energielabel')} END`;

export const ENERGIELABEL_UPSERT_SQL = `INSERT INTO energielabel (adres_id, label, registratiedatum, geldig_tot, opnametype, energie_index, bron)
VALUES $VALUES
ON CONFLICT (adres_id) DO UPDATE SET label = excluded.label, registratiedatum = excluded.registratiedatum,
  geldig_tot = excluded.geldig_tot, opnametype = excluded.opnametype, energie_index = excluded.energie_index, bron = excluded.bron
WHERE ${ENERGIELABEL_UPSERT_VOORWAARDE}`;

/** The worse label ranks higher: G > ... > B > A > A+ > A++; the SQL's ascii(label) * 10 - length(label). */
const labelRang = (l: string | null) => (l ? l.charCodeAt(0) * 10 - l.length : 0);

function cmpTekst(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Mirror of the SQL condition: > 0 when `a` wins over `b`. */
export function energielabelVolgorde(a: EnergielabelRij, b: EnergielabelRij): number {
  const pa = publicatieVan(a.bron);
  const pb = publicatieVan(b.bron);
  if (pa && pb && pa !== pb) return pa > pb ? 1 : -1;
  const d = (x: Date | null) => (x ? x.getTime() : -Infinity);
  const idx = (x: number | null) => x ?? -Infinity;
  if (d(a.registratiedatum) !== d(b.registratiedatum)) return d(a.registratiedatum) > d(b.registratiedatum) ? 1 : -1;
  if (d(a.geldig_tot) !== d(b.geldig_tot)) return d(a.geldig_tot) > d(b.geldig_tot) ? 1 : -1;
  if (idx(a.energie_index) !== idx(b.energie_index)) return idx(a.energie_index) > idx(b.energie_index) ? 1 : -1;
  return labelRang(a.label) - labelRang(b.label) || cmpTekst(a.opnametype ?? '', b.opnametype ?? '') || cmpTekst(a.bron, b.bron);
}

export function energielabelWint(a: EnergielabelRij, b: EnergielabelRij): boolean {
  return energielabelVolgorde(a, b) > 0;
}

/** Rows without adres_id are dropped. */
export function behoudNieuwsteEnergielabels<T extends { rij: EnergielabelRij }>(items: readonly T[]): T[] {
  const beste = new Map<string, T>();
  for (const it of items) {
    const id = it.rij.adres_id;
    if (!id) continue;
    const nu = beste.get(id);
    if (!nu || energielabelWint(it.rij, nu.rij)) beste.set(id, it);
  }
  return [...beste.values()];
}

const publicatieVan = (bron: string) => /publicatie (\d{4}-\d{2}-\d{2})/.exec(bron)?.[1] ?? null;

function publicatieDatum(v: string | null): string | null {
  if (!v) return null;
  let m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(v);
  if (m) return `${m[3]}-${m[2]}-${m[1]}`;
  m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(v);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

export async function* parseEnergielabels(input: NodeJS.ReadableStream, opts: EnergielabelOpties = {}): AsyncGenerator<EnergielabelResultaat> {
  let kolommen: Map<string, number> | null = null;
  let voorRegels = 0;
  let publicatie: string | null = null;
  let bron = opts.bron ?? 'EP-Online';
  let c: Record<string, number | undefined> = {};
  let gecombineerd = false;
  let kopVelden = 0;

  for await (const item of leesCsv(input, { scheiding: 'auto', verwacht: VERWACHT })) {
    if (!kolommen) {
      if (item.soort === 'fout') throw new Error(`Dit is geen ${VERWACHT}: regel ${item.regel} is onleesbaar.`);
      const namen = item.velden.map((v) => v.replace(/^\ufeff/, '').trim().toLowerCase());
      if (!namen.includes('pand_postcode')) {
        if (namen[0] === 'publicatiedatum') publicatie = publicatieDatum(item.velden[1]?.trim() ?? null);
        if (++voorRegels >= 10 || namen.length > 4) throw new Error(`Dit is geen ${VERWACHT}. Gevonden kopregel: "${item.velden.slice(0, 6).join(';').slice(0, 200)}".`);
        continue;
      }
      const ontbreekt = VERPLICHT.filter((k) => !namen.includes(k));
      if (ontbreekt.length) throw new Error(`Dit is geen volledig EP-Online-bestand: kolom(men) ${ontbreekt.join(', ')} ontbreken. Verwacht: ${VERWACHT}.`);
      kolommen = kolomIndex(item.velden);
      kopVelden = item.velden.length;
      const k = kolommen;
      c = {
        postcode: k.get('pand_postcode'),
        huisnummer: k.get('pand_huisnummer'),
        huisletter: k.get('pand_huisletter'),
        toevoeging: k.get('pand_huisnummertoevoeging'),
        toev: k.get('pand_huisnummer_toev'),
        registratie: k.get('pand_registratiedatum'),
        klasse: k.get('pand_energieklasse'),
        geldigTot: k.get('meting_geldig_tot'),
        opnametype: k.get('pand_opnametype'),
        index: k.get('pand_energieindex') ?? k.get('pand_energieprestatieindex'),
        vbo: k.get('pand_bagverblijfsobjectid'),
      };
      gecombineerd = c.huisletter === undefined && c.toevoeging === undefined && c.toev !== undefined;
      if (!opts.bron && publicatie) bron = `EP-Online (publicatie ${publicatie})`;
      continue;
    }
    if (item.soort === 'fout') {
      yield { ok: false, regel: item.regel, reden: item.reden };
      continue;
    }
    if (item.open && item.velden.length < kopVelden) {
      yield { ok: false, regel: item.regel, reden: afgebroken(item.velden.length, kopVelden) };
      continue;
    }
    const v = item.velden;
    const fout = (reden: string): ParseFout => ({ ok: false, regel: item.regel, reden });
    const nummer = leesPostcodeHuisnummer(veld(v, c.postcode), veld(v, c.huisnummer));
    if (typeof nummer === 'string') {
      yield fout(nummer);
      continue;
    }
    const regRuw = veld(v, c.registratie);
    const registratiedatum = leesDatumCompact(regRuw);
    if (!registratiedatum) {
      yield fout(regRuw ? `ongeldige registratiedatum ${citeer(regRuw)} (verwacht jjjjmmdd)` : 'registratiedatum ontbreekt');
      continue;
    }
    const klasseRuw = veld(v, c.klasse);
    const label = klasseRuw ? klasseRuw.replace(/\s+/g, '').toUpperCase() : null;
    if (!label || !KLASSE.test(label)) {
      yield fout(klasseRuw ? `onbekende energieklasse ${citeer(klasseRuw)}` : 'energieklasse ontbreekt');
      continue;
    }
    const gtRuw = veld(v, c.geldigTot);
    const geldigTot = leesDatumCompact(gtRuw);
    if (gtRuw && !geldigTot) {
      yield fout(`ongeldige datum Meting_geldig_tot ${citeer(gtRuw)} (verwacht jjjjmmdd)`);
      continue;
    }
    const idxRuw = veld(v, c.index);
    const energieIndex = leesGetal(idxRuw);
    if (idxRuw && energieIndex === null) {
      yield fout(`ongeldige energie-index ${citeer(idxRuw)}`);
      continue;
    }
    let huisletter: string | null;
    let toevoeging: string | null;
    if (gecombineerd) {
      huisletter = null;
      toevoeging = schoneToevoeging(veld(v, c.toev));
    } else {
      huisletter = schoneToevoeging(veld(v, c.huisletter));
      toevoeging = schoneToevoeging(veld(v, c.toevoeging));
    }
    const adres: AdresSleutel = { ...nummer, huisletter, toevoeging, gecombineerd, verblijfsobjectId: veld(v, c.vbo) };
    yield {
      ok: true,
      regel: item.regel,
      tabel: 'energielabel',
      rij: {
        adres_id: null,
        label,
        registratiedatum,
        geldig_tot: geldigTot,
        opnametype: veld(v, c.opnametype),
        energie_index: energieIndex,
        bron,
      },
      adres,
    };
  }
  if (!kolommen) throw new Error(`Geen kopregel gevonden: dit is geen ${VERWACHT}.`);
}

export const energielabelsSoort = bestandSoort({
  naam: 'energielabels', omschrijving: 'EP-Online energielabels (open-data CSV)', verwacht: 'een EP-Online-energielabelbestand (CSV, los of gezipt)', tabellen: ['energielabel'], parse: (input) => parseEnergielabels(input),
  voorwaarden: { energielabel: ENERGIELABEL_UPSERT_VOORWAARDE },
});
