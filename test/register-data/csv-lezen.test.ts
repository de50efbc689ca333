import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type CsvItem, leesCsv } from '../../src/domain/register/parsers/gedeeld.ts';

async function lees(...stukken: (string | Buffer)[]): Promise<CsvItem[]> {
  const uit: CsvItem[] = [];
  for await (const r of leesCsv(Readable.from(stukken.map((s) => (typeof s === 'string' ? Buffer.from(s, 'utf8') : s))), { scheiding: 'auto', verwacht: 'een test-CSV' })) uit.push(r);
  return uit;
}
const rij = (regel: number, ...velden: string[]): CsvItem => ({ soort: 'rij', velden, regel });

/**
 * Lines without quotes are split directly; from the first line with a quote csv-parse reads the rest.
 * Both must give what csv-parse alone gave: the same fields and the same line numbers.
 */
describe('CSV records: the direct split and csv-parse agree', () => {
  it('unquoted lines (CRLF, BOM, empty lines, a last line without newline)', async () => {
    expect(await lees('\ufeffa;b\r\n1;2\r\n\r\n;;\r\n3;4')).toEqual([rij(1, 'a', 'b'), rij(2, '1', '2'), rij(4, '', '', ''), { ...rij(5, '3', '4'), open: true }]);
  });

  it('a quoted field after unquoted lines keeps its line numbers, also across lines', async () => {
    expect(await lees('a;b\n1;2\n3;"x;y"\n"4";"5\n6"\n7;8\n')).toEqual([rij(1, 'a', 'b'), rij(2, '1', '2'), rij(3, '3', 'x;y'), rij(5, '4', '5\n6'), rij(6, '7', '8')]);
  });

  it('marks the last line as open only when no line end follows it, on both paths', async () => {
    expect((await lees('a;b\n1;2\n')).at(-1)).toEqual(rij(2, '1', '2'));
    expect((await lees('a;b\r\n1;2\r')).at(-1)).toEqual(rij(2, '1', '2'));
    expect((await lees('a;b\n"1";2')).at(-1)).toEqual({ ...rij(2, '1', '2'), open: true });
    expect((await lees('a;b\n"1";2\n')).at(-1)).toEqual(rij(2, '1', '2'));
  });

  it('a quote never closed is reported at its line', async () => {
    const uit = await lees('a;b\n1;2\n3;"open\n4;5\n');
    expect(uit.slice(0, 2)).toEqual([rij(1, 'a', 'b'), rij(2, '1', '2')]);
    expect(uit.at(-1)).toMatchObject({ soort: 'fout', regel: 4, reden: expect.stringMatching(/wordt niet gesloten/) });
  });

  it('a character split over two chunks, and lines ending in a bare CR', async () => {
    expect(await lees(Buffer.from('a;b\n1;'), Buffer.from([0xc3]), Buffer.from([0xa9, 0x0a]), Buffer.from('"z";2\n'))).toEqual([rij(1, 'a', 'b'), rij(2, '1', 'é'), rij(3, 'z', '2')]);
    expect(await lees('a;b\r1;2\r')).toEqual([rij(1, 'a', 'b'), rij(2, '1', '2')]);
  });
});
