import { describe, expect, it } from 'vitest';
import { kopieTekst, kopieVeld } from '../../src/domain/register/import/kopie.ts';
import { planStatements, TabelDeel, type BatchItem } from '../../src/domain/register/import/schrijver.ts';

const item = (sleutel: string, bouwjaar = 1900): BatchItem => ({ tabel: 'pand', rij: { id: sleutel, bouwjaar, bron: 't' }, masker: 0b10011, sleutel, regel: 1 });
const deel = (...items: BatchItem[]) => {
  const d = new TabelDeel();
  for (const it of items) d.voegToe(it);
  return d;
};

describe('TabelDeel: keys shared between batches in flight', () => {
  it('ascending keys are unique and sorted; a repeat or a step back is noticed', () => {
    expect(deel(item('a'), item('b'), item('c'))).toMatchObject({ stijgend: true, uniek: true, min: 'a', max: 'c' });
    const herhaald = deel(item('a'), item('b'), item('b'));
    expect(herhaald.stijgend).toBe(false);
    herhaald.kaart();
    expect(herhaald.uniek).toBe(false);
    const terug = deel(item('b'), item('c'), item('a'));
    expect(terug).toMatchObject({ stijgend: false, min: 'a', max: 'c' });
    terug.kaart();
    expect(terug.uniek).toBe(true);
  });

  it('disjoint ranges share nothing; an identical row at the edge is shared, another value clashes', () => {
    expect(deel(item('a'), item('b')).vergelijk(deel(item('c'), item('d')))).toEqual({ gedeeld: false, botst: false });
    expect(deel(item('a'), item('b')).vergelijk(deel(item('b'), item('d')))).toEqual({ gedeeld: true, botst: false });
    expect(deel(item('a'), item('b')).vergelijk(deel(item('b', 2000), item('d')))).toEqual({ gedeeld: true, botst: true });
    // Interleaved ranges without a common key.
    expect(deel(item('a'), item('c'), item('e')).vergelijk(deel(item('b'), item('d'), item('f')))).toEqual({ gedeeld: false, botst: false });
  });

  it('keys in no order are compared through key maps, both ways round', () => {
    const a = deel(item('m'), item('a'), item('z', 1950));
    const b = deel(item('z', 1951), item('k'));
    expect(a.vergelijk(b)).toEqual({ gedeeld: true, botst: true });
    expect(b.vergelijk(a)).toEqual({ gedeeld: true, botst: true });
    expect(a.vergelijk(deel(item('b'), item('y')))).toEqual({ gedeeld: false, botst: false });
  });

  it('another column set for the same key is a clash', () => {
    const ander: BatchItem = { ...item('b'), masker: 0b10001, rij: { id: 'b', bron: 't' } };
    expect(deel(item('a'), item('b')).vergelijk(deel(ander))).toEqual({ gedeeld: true, botst: true });
  });
});

describe('COPY text', () => {
  it('escapes exactly the characters COPY gives a meaning', () => {
    expect(kopieVeld('gewoon')).toBe('gewoon');
    expect(kopieVeld('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(kopieVeld('\\N')).toBe('\\\\N');
  });

  it('writes one line per row: NULL as \\N, arrays as literals, JSON as text, numbers as they are', () => {
    const plan = { kolommen: ['id', 'n', 'f', 'd', 'l', 'j', 'leeg'], typen: ['text', 'int', 'float', 'date', 'text[]', 'json', 'text'] as const };
    const rij = { id: 'x\ty', n: 12, f: 0.1 + 0.2, d: '2024-02-29', l: ['a"b', 'c\\d'], j: { s: 'a\tb' }, leeg: null };
    const it: BatchItem = { tabel: 'adres', rij, masker: 0, sleutel: 'x', regel: 1 };
    expect(kopieTekst({ kolommen: plan.kolommen, typen: [...plan.typen] }, [it, it])).toBe(
      `${['x\\ty', '12', '0.30000000000000004', '2024-02-29', '{"a\\\\"b","c\\\\\\\\d"}', '{"s":"a\\\\tb"}', '\\N'].join('\t')}\n`.repeat(2),
    );
  });
});

describe('planStatements: a key repeated in one batch', () => {
  const rij = (sleutel: string, masker: number, bouwjaar: number, regel: number): BatchItem => ({ tabel: 'pand', rij: { id: sleutel, bouwjaar, bron: 't' }, masker, sleutel, regel });
  const volgorde = (items: BatchItem[]) => planStatements(items).flatMap((st) => st.items.map((i) => `${i.sleutel}${i.regel}`));

  it('its later row is written after its earlier one, also with another column set', () => {
    const uit = volgorde([rij('x', 1, 1900, 1), rij('k', 2, 1900, 2), rij('k', 1, 2000, 3)]);
    expect(uit.indexOf('k3')).toBeGreaterThan(uit.indexOf('k2'));
  });

  it('one statement per generation and column set; a row equal to the previous one of its key is left out', () => {
    const plan = planStatements([rij('a', 1, 1900, 1), rij('b', 1, 1900, 2), rij('a', 1, 1900, 3), rij('a', 1, 1950, 4), rij('b', 2, 1900, 5)]);
    expect(plan.map((st) => [st.masker, st.items.map((i) => i.regel)])).toEqual([
      [1, [1, 2]],
      [1, [4]],
      [2, [5]],
    ]);
  });
});
