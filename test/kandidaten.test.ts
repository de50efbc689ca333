/**
 * The address readers (gebundeldeKandidaten) read the dwellings at a postcode and number (asked with an
 * addition, only those kiesAdres can choose), and what a lookup answers (WOZ series, label, house type,
 * influences, the full BAG row) only for the ones it can choose: whatever form the addition is written
 * in, the chosen one always has it, and the others carry null.
 */
import { describe, expect, it } from 'vitest';
import { adresKandidaten, kiesAdres, type AdresUitkomst } from '../src/domain/register/adressen.ts';
import { invloedKandidaten, registerKandidaten, wozWaarden, type RegisterAdres } from '../src/domain/register/opvragen.ts';
import { waarderingsKandidaten } from '../src/domain/valuation/adres-waarde.ts';
import { useTestDatabase } from './support/db.ts';
import { maakVolledigAdres, uniekePostcode } from './support/register.ts';

const db = useTestDatabase();

async function gebouw(delen: [string | null, string | null][]) {
  const postcode = uniekePostcode();
  const ids = new Map<string, string>();
  for (const [huisletter, toevoeging] of delen) {
    const a = await maakVolledigAdres(db.prisma, { postcode, huisnummer: 7, huisletter, toevoeging });
    ids.set(`${huisletter ?? ''}|${toevoeging ?? ''}`, a.id);
  }
  return { postcode, ids };
}

describe('address candidates: the heavy columns only for the dwellings that can be the answer', () => {
  it('every way of writing an addition reaches its dwelling with all its data, on all four readers', async () => {
    const { postcode, ids } = await gebouw([[null, null], ['A', null], [null, '2'], ['A', '2'], [null, 'A'], [null, 'bis']]);
    const gevallen: [string | undefined, string][] = [
      [undefined, '|'],
      ['a', 'A|'],
      ['-A', '|A'],
      ['2', '|2'],
      ['-2', '|2'],
      ['a-2', 'A|2'],
      [' A 2 ', 'A|2'],
      ['BIS', '|bis'],
      ['-Bis', '|bis'],
    ];
    for (const [gevraagd, verwacht] of gevallen) {
      const register = kiesAdres(await registerKandidaten(db.prisma, postcode, 7, gevraagd), gevraagd);
      expect(register.soort, `${gevraagd}`).toBe('gevonden');
      if (register.soort !== 'gevonden') continue;
      expect(register.adres.id).toBe(ids.get(verwacht));
      expect(wozWaarden(register.adres).waarden).toHaveLength(2);
      expect(register.adres.label?.label).toBe('B');
      expect(register.adres.woningtype?.woningtype).toBe('tussenwoning');

      const adres = kiesAdres(await adresKandidaten(db.prisma, postcode, 7, gevraagd), gevraagd);
      expect(adres.soort === 'gevonden' && [adres.adres.id, adres.adres.gemeente, adres.adres.oppervlakte, adres.adres.bijgewerktOp instanceof Date]).toEqual([
        ids.get(verwacht),
        'Proefgemeente',
        120,
        true,
      ]);
      const waarde = kiesAdres(await waarderingsKandidaten(db.prisma, postcode, 7, gevraagd), gevraagd);
      expect(waarde.soort === 'gevonden' && [waarde.adres.id, waarde.adres.energielabel, waarde.adres.woningtype, waarde.adres.woz?.length]).toEqual([
        ids.get(verwacht),
        'B',
        'tussenwoning',
        2,
      ]);
      const invloed = kiesAdres(await invloedKandidaten(db.prisma, postcode, 7, gevraagd), gevraagd);
      expect(invloed.soort === 'gevonden' && invloed.adres.invloeden?.length).toBe(2);
    }
  });

  it('asked with an addition, only the dwellings it can choose; without one, all, the ambiguity message listing them all', async () => {
    const { postcode, ids } = await gebouw([['A', null], [null, '2'], ['A', '2'], [null, '3']]);
    const rijen = await registerKandidaten(db.prisma, postcode, 7, '-2');
    expect(rijen.map((r) => [r.id, r.woz?.length, r.label?.label])).toEqual([[ids.get('|2'), 2, 'B']]);
    expect(await registerKandidaten(db.prisma, postcode, 7, 'b')).toEqual([]);

    const zonder = await registerKandidaten(db.prisma, postcode, 7, null);
    expect(zonder.map((r) => r.woz)).toEqual([null, null, null, null]);
    expect(kiesAdres(zonder, null)).toEqual({ soort: 'dubbelzinnig', opties: ['7A-2', '7A', '7-2', '7-3'] });
    expect(kiesAdres(await registerKandidaten(db.prisma, postcode, 7, '9'), '9')).toEqual({ soort: 'onbekend' });
  });

  it('the only dwelling at a number is read in full whatever is asked, and an addition outside ASCII always', async () => {
    const { postcode, ids } = await gebouw([['B', null]]);
    const alleen = kiesAdres(await registerKandidaten(db.prisma, postcode, 7, undefined), undefined);
    expect(alleen.soort === 'gevonden' && [alleen.adres.id, alleen.adres.woz?.length]).toEqual([ids.get('B|'), 2]);
    expect((await registerKandidaten(db.prisma, postcode, 7, 'X'))[0].woz).toHaveLength(2);

    const ander = await gebouw([[null, 'é1'], [null, '1']]);
    const rijen = await registerKandidaten(db.prisma, ander.postcode, 7, '1');
    expect(rijen.map((r) => r.woz?.length ?? 0)).toEqual([2, 2]);
    const gekozen = kiesAdres(rijen, '1');
    expect(gekozen.soort).toBe('dubbelzinnig');
  });

  it('what kiesAdres decides on the rows read is what it decides on every dwelling at the number, for any addition asked', async () => {
    const delen: [string | null, string | null][] = [[null, null], ['A', null], [null, 'A'], ['a', '2'], [null, '2'], [null, 'é1'], [null, '1'], ['B', 'bis'], [null, 'H']];
    const { postcode } = await gebouw(delen);
    const alle = await registerKandidaten(db.prisma, postcode, 7, undefined);
    expect(alle).toHaveLength(delen.length);
    const gevraagd = [undefined, '', '-', ' ', 'a', 'A', '-a', '-A', 'a2', 'A-2', '-2', '2', '1', 'é1', 'E1', 'b bis', 'Bbis', '-bis', 'h', '-H', 'x', '9', 'ß'];
    const kort = (u: AdresUitkomst<RegisterAdres>) => (u.soort === 'gevonden' ? u.adres.id : u.soort === 'dubbelzinnig' ? u.opties.join(',') : u.soort);
    for (const t of gevraagd) {
      const rijen = await registerKandidaten(db.prisma, postcode, 7, t);
      const uitkomst = kiesAdres(rijen, t);
      expect(kort(uitkomst), `${t}`).toBe(kort(kiesAdres(alle, t)));
      if (uitkomst.soort === 'gevonden') expect(uitkomst.adres.woz, `${t}`).toHaveLength(2);
    }
  });

  it('lookups in flight together (one statement): each item its own dwellings, count and choice', async () => {
    const flat = await gebouw([[null, '1'], [null, '2'], [null, 'a-1']]);
    const enkel = await gebouw([['C', null]]);
    const vragen: [string, string | undefined, string | null][] = [
      [flat.postcode, '2', '|2'],
      [enkel.postcode, undefined, 'C|'],
      [flat.postcode, 'A1', '|a-1'],
      [enkel.postcode, 'X', null],
      [flat.postcode, undefined, null],
    ];
    const uit = await Promise.all(vragen.map(async ([pc, t]) => kiesAdres(await registerKandidaten(db.prisma, pc, 7, t), t)));
    uit.forEach((u, i) => {
      const verwacht = vragen[i][2];
      const ids = vragen[i][0] === flat.postcode ? flat.ids : enkel.ids;
      if (verwacht === null) expect(u.soort, `${i}`).not.toBe('gevonden');
      else expect(u.soort === 'gevonden' && [u.adres.id, u.adres.woz?.length], `${i}`).toEqual([ids.get(verwacht), 2]);
    });
    expect(uit[4]).toEqual({ soort: 'dubbelzinnig', opties: ['7-1', '7-2', '7-a-1'] });
  });
});
