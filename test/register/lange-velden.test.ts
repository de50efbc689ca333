import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ImportFout, MAX_REDEN_TEKENS, voerImportUit } from '../../src/domain/register/import/runner.ts';
import { MAX_REGEL_TEKENS } from '../../src/domain/register/parsers/gedeeld.ts';
import { dialect, useTestDatabase } from '../support/db.ts';
import { CSV_FULL, schrijf, tijdelijkeMap } from '../support/hulp.ts';

const WOZ_KOP = 'postcode;huisnummer;toevoeging;peildatum;waarde';
const VERKOPEN_KOP = 'postcode;huisnummer;toevoeging;transactiedatum;koopsom';

/** A corrupt field of any length gives a short reason, and the run record stays small and storable. */
describe(`import: long and odd fields (${dialect})`, { timeout: 120_000 }, () => {
  const db = useTestDatabase();
  const tmp = tijdelijkeMap('insight-lang-');
  afterAll(() => tmp.weg());
  const lang = (teken: string) => teken.repeat(200_000);
  const perRegel = (redenen: { regel: number; reden: string }[]) => Object.fromEntries(redenen.map((r) => [r.regel, r.reden]));

  it('every refusal quotes a raw value shortened with an ellipsis; a NUL does not reach the run record', async () => {
    const woz = schrijf(`${tmp.pad}/woz.csv`, [
      WOZ_KOP,
      `${lang('X')};1;;2024-01-01;300000`,
      `1234AB;${lang('7')};;2024-01-01;300000`,
      `1234AB;1;;${lang('2')};300000`,
      `1234AB;1;;2024-01-01;${lang('9')}`,
      '12\u0000AB;1;;2024-01-01;300000',
    ].join('\n'));
    const s = await voerImportUit(db, 'woz', woz);
    const r = perRegel(s.redenen);
    expect(r[2]).toBe(`ongeldige postcode "${'X'.repeat(59)}…"`);
    expect(r[3]).toMatch(/^ongeldig huisnummer "7{59}…" \(alleen cijfers/);
    expect(r[4]).toBe(`ongeldige peildatum "${'2'.repeat(59)}…" (verwacht jjjj-mm-dd)`);
    expect(r[5]).toBe(`ongeldige waarde "${'9'.repeat(59)}…" (geheel aantal euro's, alleen cijfers)`);
    expect(r[6]).toBe('ongeldige postcode "12\ufffdAB"');
    const run = await db.prisma.importRun.findUniqueOrThrow({ where: { id: s.importRunId } });
    expect(run).toMatchObject({ gelezen: 5, afgewezen: 5, klaarOp: expect.any(Date) });
    expect(JSON.stringify(run.samenvatting).length).toBeLessThan(5_000);

    const verkopen = schrijf(`${tmp.pad}/verkopen.csv`, [VERKOPEN_KOP, `1234AB;1;;2024-01-01;${lang('8')}`, `1234AB;1;;${lang('t')};300000`].join('\n'));
    const v = perRegel((await voerImportUit(db, 'verkopen', verkopen)).redenen);
    expect(v[2]).toBe(`ongeldige koopsom "${'8'.repeat(59)}…" (geheel aantal euro's, alleen cijfers)`);
    expect(v[3]).toBe(`ongeldige transactiedatum "${'t'.repeat(59)}…" (verwacht jjjj-mm-dd)`);

    const geometrie = { type: lang('G'), coordinates: [5, 52] };
    const geo = schrijf(`${tmp.pad}/invloeden.geojson`, JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { type: 'natura2000' }, geometry: geometrie }] }));
    const g = await voerImportUit(db, 'invloeden', geo);
    expect(g.redenen[0]?.reden).toBe(`feature 1: geometrie "${'G'.repeat(59)}…" past niet bij type natura2000 (verwacht Polygon of MultiPolygon)`);
  });

  it(`a line over 1,000,000 characters (MAX_REGEL_TEKENS) is refused by its number, and the next line is read`, async () => {
    const woz = schrijf(`${tmp.pad}/woz-lang.csv`, [WOZ_KOP, `1234AB;1;;2024-01-01;${'9'.repeat(MAX_REGEL_TEKENS + 10)}`, 'XXXX;1;;2024-01-01;300000', ''].join('\n'));
    const s = await voerImportUit(db, 'woz', woz);
    expect(perRegel(s.redenen)).toEqual({ 2: 'regel langer dan 1.000.000 tekens', 3: 'ongeldige postcode "XXXX"' });
    expect(s.gelezen).toBe(2);
  });

  it('the BAG CSV reader refuses such a line the same way', async () => {
    const [kop, ...rijen] = readFileSync(CSV_FULL, 'utf8').trimEnd().split('\n');
    const bag = schrijf(`${tmp.pad}/bag.csv`, [kop, `${'x'.repeat(MAX_REGEL_TEKENS + 10)};1`, ...rijen, ''].join('\n'));
    const s = await voerImportUit(db, 'bag-csv', bag);
    expect(s.redenen[0]).toEqual({ regel: 2, reden: 'regel langer dan 1.000.000 tekens' });
    expect(s.tabellen.adres?.ingevoegd).toBeGreaterThan(0);
  });

  it('a summary the database refuses is stored without its reasons; refused again, a Dutch error says rows were written', async () => {
    const woz = schrijf(`${tmp.pad}/woz-kort.csv`, [WOZ_KOP, 'XXXX;1;;2024-01-01;300000', '1234AB;1;;2024-01-01;300000'].join('\n'));
    const weigering = new Error('Database error. Code: `54000`. Message: `total size of jsonb array elements exceeds the maximum`');
    const update = vi.spyOn(db.prisma.importRun, 'update');
    try {
      update.mockRejectedValueOnce(weigering);
      const s = await voerImportUit(db, 'woz', woz);
      const run = await db.prisma.importRun.findUniqueOrThrow({ where: { id: s.importRunId } });
      expect(run).toMatchObject({ gelezen: 2, afgewezen: 2, klaarOp: expect.any(Date) });
      expect(run.samenvatting).toMatchObject({ redenen: [], redenenWeggelaten: 2, samenvattingFout: expect.stringMatching(/databasefout 54000/) });

      update.mockRejectedValueOnce(weigering).mockRejectedValueOnce(weigering);
      const fout = await voerImportUit(db, 'woz', woz).catch((e: unknown) => e);
      expect(fout).toBeInstanceOf(ImportFout);
      expect((fout as Error).message).toMatch(/^De import heeft rijen geschreven \(0 ingevoegd, 0 bijgewerkt, 2 afgewezen\), maar import_run [0-9a-f-]{36} kon niet worden bijgewerkt \(databasefout 54000\)\.$/);
    } finally {
      update.mockRestore();
    }
    expect(MAX_REDEN_TEKENS).toBeLessThanOrEqual(500);
  });
});
