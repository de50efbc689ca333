/** Checks on what an import accepts, end to end (review findings M4, L1, L2). */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { voerImportUit } from '../../src/domain/register/import/runner.ts';
import { tijdelijkeMap as importMap } from '../../src/domain/register/import/tijdelijk.ts';
import { VerkeerdFormaatFout } from '../../src/domain/register/import/types.ts';
import { parseWoz } from '../../src/domain/register/parsers/woz.ts';
import { gemeenteNaam } from '../../src/domain/register/import/gemeenten.ts';
import { dialect, useTestDatabase } from '../support/db.ts';
import { CSV_FULL, fixtureBestanden, maakZip, schrijf, tijdelijkeMap } from '../support/hulp.ts';
import { maakAdres } from '../support/register.ts';
import { stroomVan, verzamel } from '../support/stroom.ts';

/** Windows-1252 bytes of a Latin-1 text (É = 0xC9, ë = 0xEB). */
const cp1252 = (t: string) => Buffer.from(t, 'latin1');

describe(`import checks (${dialect})`, () => {
  const db = useTestDatabase();
  const tmp = tijdelijkeMap();
  afterAll(() => tmp.weg());

  it('refuses a Windows-1252 file at the line of its first non-UTF-8 byte, before anything is written', async () => {
    const rijen = readFileSync(CSV_FULL, 'utf8').split('\n');
    rijen[40] = rijen[40].replace('Oosterdokskade', 'Rue de la Reine Élisabeth');
    const csv = schrijf(path.join(tmp.pad, 'bagadres-1252.csv'), cp1252(rijen.join('\n')));
    const runs = await db.prisma.importRun.count();
    await expect(voerImportUit(db, 'bag-csv', csv)).rejects.toThrow(VerkeerdFormaatFout);
    await expect(voerImportUit(db, 'bag-csv', csv)).rejects.toThrow('regel 41: bestand is geen UTF-8 (byte 0xC9); sla het op als UTF-8 (Windows-1252?). Er is niets geïmporteerd.');
    const zip = schrijf(path.join(tmp.pad, 'bag.zip'), maakZip({ 'bagadres-full.csv': cp1252(rijen.join('\n')) }));
    await expect(voerImportUit(db, 'bag-csv', zip)).rejects.toThrow(/^bagadres-full\.csv: regel 41: bestand is geen UTF-8/);

    const woz = schrijf(path.join(tmp.pad, 'woz.csv'), cp1252('postcode;huisnummer;toevoeging;peildatum;waarde\n1011AB;1;;2025-01-01;300000\n1011AB;2;ë;2025-01-01;300000\n'));
    await expect(voerImportUit(db, 'woz', woz)).rejects.toThrow('regel 3: bestand is geen UTF-8 (byte 0xEB)');
    const geo = schrijf(
      path.join(tmp.pad, 'n2k.geojson'),
      cp1252('{"type":"FeatureCollection","features":[\n{"type":"Feature","properties":{"type":"natura2000","naam":"Étang"},"geometry":{"type":"Point","coordinates":[5,52]}}]}\n'),
    );
    await expect(voerImportUit(db, 'invloeden', geo)).rejects.toThrow('regel 2: bestand is geen UTF-8 (byte 0xC9)');
    expect(await db.prisma.importRun.count()).toBe(runs);
    expect(await db.prisma.adres.count()).toBe(0);
    // The parser on its own stops at the same line, also with the byte split from its line by a chunk edge.
    await expect(verzamel(parseWoz(stroomVan(cp1252('postcode;huisnummer;toevoeging;peildatum;waarde\n1011AB;1;;2025-01-01;300000\n1011AB;2;ë;2025-01-01;3\n'), 5)))).rejects.toThrow(
      /^regel 3: bestand is geen UTF-8/,
    );
  });

  it('reads bouwjaar 1005 (Amsterdam: unknown) and years outside 1000 .. now + 5 as unknown', async () => {
    const map = path.join(tmp.pad, 'bouwjaar');
    mkdirSync(map);
    for (const [naam, inhoud] of Object.entries(fixtureBestanden())) {
      const t = inhoud.toString('utf8');
      writeFileSync(path.join(map, naam), naam.includes('PND') ? t.replaceAll('oorspronkelijkBouwjaar>1585<', 'oorspronkelijkBouwjaar>1005<').replaceAll('oorspronkelijkBouwjaar>1992<', 'oorspronkelijkBouwjaar>2999<') : inhoud);
    }
    await voerImportUit(db, 'bag-xml', map);
    expect((await db.prisma.adres.findUniqueOrThrow({ where: { id: '0221200000330227' } })).bouwjaar).toBeNull();
    expect((await db.prisma.pand.findMany({ orderBy: { id: 'asc' } })).map((p) => p.bouwjaar)).toEqual([null, null]);
  });

  it('names the gemeente from the CBS table when the Leveringsdocument names none (the national extract)', async () => {
    const map = path.join(tmp.pad, 'landelijk');
    mkdirSync(map);
    for (const [naam, inhoud] of Object.entries(fixtureBestanden())) {
      writeFileSync(
        path.join(map, naam),
        naam.startsWith('Leveringsdocument')
          ? inhoud.toString('utf8').replace(/<selecties-extract:Gebied-GEM>[\s\S]*<\/selecties-extract:Gebied-GEM>/, '<selecties-extract:Gebied-NLD><selecties-extract:GebiedIdentificatie>NLD</selecties-extract:GebiedIdentificatie></selecties-extract:Gebied-NLD>')
          : inhoud,
      );
    }
    await db.prisma.adres.deleteMany({ where: { gemeenteCode: '0221' } });
    const s = await voerImportUit(db, 'bag-xml', map);
    expect(s.gebied).toBe('NLD');
    expect((await db.prisma.adres.findMany({ where: { gemeenteCode: '0221' } })).map((a) => a.gemeente)).toEqual(Array(5).fill('Doesburg'));
    // 342 municipalities on 1 January 2025; names of their day; a code the table lacks has none.
    expect(gemeenteNaam('0014', '2025-01-01')).toBe('Groningen');
    expect(gemeenteNaam('1992', '2025-01-01')).toBe('Voorne aan Zee');
    expect(gemeenteNaam('0501', '2020-09-15')).toBe('Brielle');
    expect(gemeenteNaam('0501', '2025-01-01')).toBeNull();
    expect(gemeenteNaam('0620', '2010-01-01')).toBe('Vianen');
    expect(gemeenteNaam('9999', '2025-01-01')).toBeNull();
    const regels = readFileSync(new URL('../../src/domain/register/import/bronnen/cbs-gemeentelijke-indeling.csv', import.meta.url), 'utf8').trim().split('\n').slice(1);
    expect(regels.filter((r) => r.endsWith(';')).length).toBe(342);
  });

  it('refuses a later row of a WOZ file that gives the same address and peildatum another value; the first holds', async () => {
    const a = await maakAdres(db.prisma, { huisnummer: 3 });
    const csv = [
      'postcode;huisnummer;toevoeging;peildatum;waarde',
      `${a.postcode};3;;2025-01-01;300000`,
      `${a.postcode};3;;2025-01-01;300000`,
      `${a.postcode};3;;2024-01-01;280000`,
      `${a.postcode};3;;2025-01-01;310000`,
      '',
    ].join('\n');
    for (const batchGrootte of [2, 1000]) {
      const s = await voerImportUit(db, 'woz', schrijf(path.join(tmp.pad, 'woz-dubbel.csv'), csv), { batchGrootte });
      expect(s.afgewezen).toBe(1);
      expect(s.redenen).toEqual([{ regel: 5, reden: 'tegenstrijdige WOZ-waarde: regel 2 gaf voor dit adres en deze peildatum 300000, deze regel 310000 (de eerste geldt)' }]);
      const waarden = await db.prisma.wozWaarde.findMany({ where: { adresId: a.id }, orderBy: { peildatum: 'asc' } });
      expect(waarden.map((w) => w.waarde)).toEqual([280000, 300000]);
    }
  });

  it('checks the header of every file of a folder or zip before writing: a stray README after two WOZ files writes nothing', async () => {
    const a = await maakAdres(db.prisma, { huisnummer: 7 });
    const csv = (jaar: number) => ['postcode;huisnummer;toevoeging;peildatum;waarde', ...Array.from({ length: 99 }, (_, i) => `${a.postcode};7;;${jaar - i}-01-01;${300000 + i}`), ''].join('\n');
    const map = path.join(tmp.pad, 'woz-map');
    mkdirSync(map);
    schrijf(path.join(map, 'a.csv'), csv(2025));
    schrijf(path.join(map, 'b.csv'), csv(1925));
    schrijf(path.join(map, 'c.txt'), 'README\n');
    const zip = schrijf(path.join(tmp.pad, 'woz-map.zip'), maakZip({ 'a.csv': csv(2025), 'b.csv': csv(1925), 'c.txt': 'README\n' }));
    const runs = await db.prisma.importRun.count();
    for (const bron of [map, zip]) {
      await expect(voerImportUit(db, 'woz', bron, { batchGrootte: 50 })).rejects.toThrow(/^c\.txt: Dit is geen WOZ-bestand .*kopregel "README"/);
    }
    expect(await db.prisma.importRun.count()).toBe(runs);
    expect(await db.prisma.wozWaarde.count({ where: { adresId: a.id } })).toBe(0);
  });

  it('an import broken off says how many rows it wrote once the batches in flight are in: as many as the table and import_run hold', async () => {
    const a = await maakAdres(db.prisma, { huisnummer: 9 });
    const csv = ['postcode;huisnummer;toevoeging;peildatum;waarde', ...Array.from({ length: 200 }, (_, i) => `${a.postcode};9;;${2025 - i}-01-01;${300000 + i}`), ''].join('\n');
    // Aborted when the runner looks for the 101st time: after two batches of 50 were handed to the writer.
    let keer = 0;
    const signaal = { get aborted() { return ++keer > 100; }, reason: 'SIGINT' } as unknown as AbortSignal;
    const fout = await voerImportUit(db, 'woz', schrijf(path.join(tmp.pad, 'woz-afbreken.csv'), csv), { batchGrootte: 50, parallel: 2, afbreken: signaal }).catch((e: Error) => e);
    const geschreven = await db.prisma.wozWaarde.count({ where: { adresId: a.id } });
    expect(geschreven).toBe(100);
    expect(String(fout)).toContain(`Afgebroken (SIGINT): ${geschreven} rijen zijn al geschreven`);
    const [run] = await db.prisma.importRun.findMany({ where: { soort: 'woz' }, orderBy: { gestartOp: 'desc' }, take: 1 });
    expect(run.ingevoegd).toBe(geschreven);
    expect((run.samenvatting as { fout: string }).fout).toBe((fout as Error).message);
  });

  it('a WOZ row whose number has BAG addresses but none without addition is meerduidig, naming them; an addition none has names them too', async () => {
    const pc = (await maakAdres(db.prisma, { huisnummer: 105, toevoeging: 'H' })).postcode;
    for (const t of ['1', '2', '3']) await maakAdres(db.prisma, { postcode: pc, huisnummer: 105, toevoeging: t });
    const csv = ['postcode;huisnummer;toevoeging;peildatum;waarde', `${pc};105;;2019-01-01;300000`, `${pc};105;Z;2019-01-01;300000`, `${pc};106;;2019-01-01;300000`, ''].join('\n');
    const s = await voerImportUit(db, 'woz', schrijf(path.join(tmp.pad, 'woz-meerduidig.csv'), csv));
    expect(s.redenen).toEqual([
      { regel: 2, reden: `adres ${pc} 105 is meerduidig (in de BAG: 105-H, 105-1, 105-2, 105-3)` },
      { regel: 3, reden: `adres ${pc} 105 Z niet gevonden; de BAG kent op ${pc} 105 alleen 105-H, 105-1, 105-2, 105-3` },
      { regel: 4, reden: `adres ${pc} 106 niet gevonden in de adrestabel (importeer eerst de BAG)` },
    ]);
  });

  it.skipIf(process.platform !== 'linux')('an import removes the staging directories of an import killed with -9 (its pid gone or another program), not those of a live one', async () => {
    const kind = spawnSync(process.execPath, ['-e', '0']);
    const ander = spawn('sleep', ['30']);
    const levend = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      const maak = (soort: 'insight-bagxml-' | 'insight-import-' | 'insight-set-', pid: number | null) => {
        const dir = importMap(soort);
        expect(readFileSync(path.join(dir, 'eigenaar.pid'), 'utf8')).toBe(String(process.pid));
        writeFileSync(path.join(dir, 'staging.sqlite'), 'x');
        if (pid === null) rmSync(path.join(dir, 'eigenaar.pid'));
        else writeFileSync(path.join(dir, 'eigenaar.pid'), String(pid));
        return dir;
      };
      const dood = [maak('insight-bagxml-', kind.pid), maak('insight-import-', kind.pid), maak('insight-set-', ander.pid!)];
      const blijft = [maak('insight-bagxml-', levend.pid!), maak('insight-bagxml-', process.pid), maak('insight-bagxml-', null)];
      const a = await maakAdres(db.prisma, { huisnummer: 11 });
      await voerImportUit(db, 'woz', schrijf(path.join(tmp.pad, 'woz-opruimen.csv'), `postcode;huisnummer;toevoeging;peildatum;waarde\n${a.postcode};11;;2025-01-01;300000\n`));
      expect(dood.filter((d) => existsSync(d))).toEqual([]);
      expect(blijft.filter((d) => existsSync(d))).toEqual(blijft);
      for (const d of blijft) rmSync(d, { recursive: true, force: true });
    } finally {
      ander.kill();
      levend.kill();
    }
  });
});
