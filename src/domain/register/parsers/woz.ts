import {
  type AdresSleutel,
  type ParseFout,
  type ParseOkMetAdres,
  type WozRij,
  HUISNUMMER_ZONDER_TOEVOEGING,
  citeer,
  csvNaKopregel,
  eisKolommen,
  kolomIndex,
  leesDatumIso,
  leesGeheelGetal,
  leesPostcodeHuisnummer,
  schoneToevoeging,
  veld,
} from './gedeeld.ts';
import { bestandSoort } from '../import/bestand-soort.ts';
import { SchijfSet } from '../import/schijf-set.ts';
import type { FoutRecord, ImportSoort, RijRecord } from '../import/types.ts';

export type { WozRij } from './gedeeld.ts';

export type WozResultaat = ParseOkMetAdres<'woz_waarde', WozRij> | ParseFout;

export interface WozOpties {
  bron?: string;
}

export const WOZ_KOPREGEL = 'postcode;huisnummer;toevoeging;peildatum;waarde';

/**
 * Lower bound of a plausible WOZ value (docs/import-formaten.md): real ones start at a few thousand euros
 * (a parking space, a shed); a lower figure is a cut-off or mistyped line.
 */
export const WOZ_MINIMUM = 1_000;

const VERWACHT = `WOZ-bestand (CSV met kopregel ${WOZ_KOPREGEL}, zie docs/import-formaten.md)`;

export async function* parseWoz(input: NodeJS.ReadableStream, opts: WozOpties = {}): AsyncGenerator<WozResultaat> {
  const bron = opts.bron ?? 'WOZ-import';
  const leesKop = (velden: string[]) => {
    const kop = kolomIndex(velden);
    eisKolommen(kop, velden, ['postcode', 'huisnummer', 'peildatum', 'waarde'], VERWACHT);
    return kop;
  };
  for await (const item of csvNaKopregel(input, { scheiding: 'auto', verwacht: VERWACHT }, leesKop)) {
    if (!item.ok) {
      yield item;
      continue;
    }
    const { kop: k, velden: v } = item;
    const fout = (reden: string): ParseFout => ({ ok: false, regel: item.regel, reden });
    const nummer = leesPostcodeHuisnummer(veld(v, k.get('postcode')), veld(v, k.get('huisnummer')), HUISNUMMER_ZONDER_TOEVOEGING);
    if (typeof nummer === 'string') {
      yield fout(nummer);
      continue;
    }
    const pdRuw = veld(v, k.get('peildatum'));
    const peildatum = leesDatumIso(pdRuw);
    if (!peildatum) {
      yield fout(pdRuw ? `ongeldige peildatum ${citeer(pdRuw)} (verwacht jjjj-mm-dd)` : 'peildatum ontbreekt');
      continue;
    }
    const wRuw = veld(v, k.get('waarde'));
    const waarde = leesGeheelGetal(wRuw);
    if (waarde === null || waarde < 1) {
      yield fout(wRuw ? `ongeldige waarde ${citeer(wRuw)} (geheel aantal euro's, alleen cijfers)` : 'waarde ontbreekt');
      continue;
    }
    if (waarde < WOZ_MINIMUM) {
      yield fout(`onwaarschijnlijk lage WOZ-waarde ${citeer(wRuw)} (minder dan € ${WOZ_MINIMUM.toLocaleString('nl-NL')}; afgebroken regel of typefout?)`);
      continue;
    }
    const gecombineerd = !k.has('huisletter');
    const adres: AdresSleutel = {
      ...nummer,
      huisletter: gecombineerd ? null : schoneToevoeging(veld(v, k.get('huisletter'))),
      toevoeging: schoneToevoeging(veld(v, k.get('toevoeging'))),
      gecombineerd,
      verblijfsobjectId: null,
    };
    yield { ok: true, regel: item.regel, tabel: 'woz_waarde', rij: { adres_id: null, peildatum, waarde, bron }, adres };
  }
}

const basis = bestandSoort({
  naam: 'woz', omschrijving: 'WOZ-waarden (CSV)', verwacht: 'een WOZ-bestand (CSV)', tabellen: ['woz_waarde'], parse: (input) => parseWoz(input),
});

/** Per run: address + peildatum → "waarde;regel" of its first row. */
const perRun = new WeakMap<object, SchijfSet>();

/** Two rows of one file for the same address and peildatum with different values: the first wins, the later is refused. */
export const wozSoort: ImportSoort = {
  ...basis,
  async *lees(bron, ctx) {
    const gezien = new SchijfSet();
    perRun.set(ctx.db, gezien);
    try {
      yield* basis.lees(bron, ctx);
    } finally {
      ctx.naSchrijven({ voer: async () => ({}), sluit: () => gezien.sluit() });
    }
  },
  async voorbereid(items, db) {
    const klaar = await basis.voorbereid!(items, db);
    const gezien = perRun.get(db);
    if (!gezien) return klaar;
    return klaar.map((r): RijRecord | FoutRecord => {
      if (!r.ok) return r;
      const w = r.rij as unknown as WozRij;
      const eerder = gezien.zet(`${w.adres_id}|${w.peildatum.toISOString().slice(0, 10)}`, `${w.waarde};${r.regel ?? 0}`);
      if (eerder === undefined) return r;
      const [waarde, regel] = eerder.split(';');
      if (Number(waarde) === w.waarde) return r;
      return { ok: false, regel: r.regel ?? 0, reden: `tegenstrijdige WOZ-waarde: regel ${regel} gaf voor dit adres en deze peildatum ${waarde}, deze regel ${w.waarde} (de eerste geldt)` };
    });
  },
};
