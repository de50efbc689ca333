import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { voerImportUit } from '../../src/domain/register/import/runner.ts';
import {
  ENERGIELABEL_UPSERT_SQL,
  ENERGIELABEL_UPSERT_VOORWAARDE,
  behoudNieuwsteEnergielabels,
  energielabelVolgorde,
  parseEnergielabels,
  resolveAdresId,
  resolveAdresIds,
} from '../../src/domain/register/parsers/energielabels.ts';
import type { EnergielabelRij } from '../../src/domain/register/parsers/gedeeld.ts';
import { useTestDatabase } from '../support/db.ts';
import { schrijf, tijdelijkeMap } from '../support/hulp.ts';
import { stroomVan, verzamel } from '../support/stroom.ts';

const KOP_NIEUW =
  'Pand_opnamedatum;Pand_opnametype;Pand_status;Pand_berekeningstype;Pand_energieindex;Pand_energieklasse;Pand_energielabel_is_prive;Pand_is_op_basis_van_referentie_gebouw;Pand_gebouwklasse;Meting_geldig_tot;Pand_registratiedatum;Pand_postcode;Pand_huisnummer;Pand_huisletter;Pand_huisnummertoevoeging;Pand_detailaanduiding;Pand_bagverblijfsobjectid;Pand_bagligplaatsid;Pand_bagstandplaatsid;Pand_bagpandid;Pand_gebouwtype;Pand_gebouwsubtype;Pand_projectnaam;Pand_projectobject;Pand_SBIcode;Pand_gebruiksoppervlakte_thermische_zone;Pand_energiebehoefte;Pand_eis_energiebehoefte;Pand_primaire_fossiele_energie;Pand_eis_primaire_fossiele_energie;Pand_primaire_fossiele_energie_EMG_forfaitair;Pand_aandeel_hernieuwbare_energie;Pand_eis_aandeel_hernieuwbare_energie;Pand_aandeel_hernieuwbare_energie_EMG_forfaitair;Pand_temperatuuroverschrijding;Pand_eis_temperatuuroverschrijding;Pand_warmtebehoefte;Pand_energieindex_met_EMG_forfaitair';
const KOP_OUD =
  'Pand_opnamedatum;Pand_opnametype;Pand_status;Pand_berekeningstype;Pand_energieprestatieindex;Pand_energieklasse;Pand_energielabel_is_prive;Pand_is_op_basis_van_referentie_gebouw;Pand_gebouwklasse;Meting_geldig_tot;Pand_registratiedatum;Pand_postcode;Pand_huisnummer;Pand_huisnummer_toev;Pand_detailaanduiding;Pand_bagverblijfsobjectid;Pand_bagligplaatsid;Pand_bagstandplaatsid;Pand_bagpandid;Pand_gebouwtype;Pand_gebouwsubtype;Pand_projectnaam;Pand_projectobject;Pand_SBIcode;Pand_gebruiksoppervlakte';

/** A data line for the newer header: the fields we fill, the rest empty. */
function nieuw(v: Partial<Record<string, string>>): string {
  return KOP_NIEUW.split(';')
    .map((k) => v[k] ?? '')
    .join(';');
}

const d = (s: string) => new Date(`${s}T00:00:00Z`);

describe('parseEnergielabels (EP-Online v2 CSV)', () => {
  it('refuses a last line cut off before the label registration fields', async () => {
    const heel = nieuw({ Pand_energieklasse: 'C', Meting_geldig_tot: '20340101', Pand_registratiedatum: '20240102', Pand_postcode: '1234AB', Pand_huisnummer: '1' });
    const rows = await verzamel(parseEnergielabels(stroomVan(`${KOP_NIEUW}\n${heel}\n${heel.split(';').slice(0, 13).join(';')}`)));
    expect(rows.map((r) => (r.ok ? 'ok' : `${r.regel}: ${r.reden}`))).toEqual(['ok', `3: laatste regel afgebroken: 13 van de ${KOP_NIEUW.split(';').length} velden en geen regeleinde (is het bestand onvolledig?)`]);
  });

  it('reads the newer format with metadata lines, separate huisletter/toevoeging, decimal comma', async () => {
    const csv = [
      'PublicatieDatum;01-09-2026',
      'LaatstVerwerkteMutatievolgnummer;123',
      KOP_NIEUW,
      nieuw({
        Pand_opnamedatum: '20240101',
        Pand_opnametype: 'Basis',
        Pand_energieindex: '1,4',
        Pand_energieklasse: 'C',
        Pand_gebouwklasse: 'W',
        Meting_geldig_tot: '20340201',
        Pand_registratiedatum: '20240201',
        Pand_postcode: '1234 ab',
        Pand_huisnummer: '12',
        Pand_huisletter: 'a',
        Pand_huisnummertoevoeging: '2',
        Pand_bagverblijfsobjectid: '0363010000000001',
      }),
      nieuw({ Pand_energieklasse: 'A++++', Pand_registratiedatum: '20250310', Pand_postcode: '1234AB', Pand_huisnummer: '14' }),
      '',
      nieuw({ Pand_energieklasse: 'B', Pand_registratiedatum: '2025-13-01', Pand_postcode: '1234AB', Pand_huisnummer: '15' }),
      nieuw({ Pand_energieklasse: 'H', Pand_registratiedatum: '20250101', Pand_postcode: '1234AB', Pand_huisnummer: '16' }),
      nieuw({ Pand_energieklasse: 'B', Pand_registratiedatum: '20250101', Pand_postcode: '12345', Pand_huisnummer: '17' }),
      nieuw({ Pand_energieklasse: 'B', Pand_registratiedatum: '20250101', Pand_postcode: '1234AB', Pand_huisnummer: '0' }),
      nieuw({ Pand_energieklasse: 'B', Pand_registratiedatum: '20250101', Pand_postcode: '1234AB', Pand_huisnummer: '18', Pand_energieindex: '1.2.3' }),
      nieuw({ Pand_energieklasse: '', Pand_registratiedatum: '20250101', Pand_postcode: '1234AB', Pand_huisnummer: '19' }),
    ].join('\r\n');
    const rows = await verzamel(parseEnergielabels(stroomVan(csv, 13)));
    const ok = rows.filter((r) => r.ok);
    expect(ok).toHaveLength(2);
    expect(ok[0]).toEqual({
      ok: true,
      regel: 4,
      tabel: 'energielabel',
      rij: {
        adres_id: null,
        label: 'C',
        registratiedatum: d('2024-02-01'),
        geldig_tot: d('2034-02-01'),
        opnametype: 'Basis',
        energie_index: 1.4,
        bron: 'EP-Online (publicatie 2026-09-01)',
      },
      adres: { postcode: '1234AB', huisnummer: 12, huisletter: 'A', toevoeging: '2', gecombineerd: false, verblijfsobjectId: '0363010000000001' },
    });
    expect(ok[1]).toMatchObject({ rij: { label: 'A++++', energie_index: null, geldig_tot: null } });
    expect(rows.filter((r) => !r.ok)).toEqual([
      { ok: false, regel: 7, reden: 'ongeldige registratiedatum "2025-13-01" (verwacht jjjjmmdd)' },
      { ok: false, regel: 8, reden: 'onbekende energieklasse "H"' },
      { ok: false, regel: 9, reden: 'ongeldige postcode "12345"' },
      { ok: false, regel: 10, reden: 'ongeldig huisnummer "0"' },
      { ok: false, regel: 11, reden: 'ongeldige energie-index "1.2.3"' },
      { ok: false, regel: 12, reden: 'energieklasse ontbreekt' },
    ]);
  });

  it('reads the older format with Pand_huisnummer_toev as a combined addition', async () => {
    const velden = KOP_OUD.split(';');
    const rij = (v: Record<string, string>) => velden.map((k) => v[k] ?? '').join(';');
    const csv = [
      KOP_OUD,
      rij({ Pand_energieprestatieindex: '2.15', Pand_energieklasse: 'E', Meting_geldig_tot: '20300613', Pand_registratiedatum: '20200620', Pand_postcode: '2581VX', Pand_huisnummer: '63', Pand_huisnummer_toev: 'A-2' }),
    ].join('\n');
    const [r] = await verzamel(parseEnergielabels(stroomVan(csv)));
    expect(r).toMatchObject({
      ok: true,
      rij: { label: 'E', energie_index: 2.15, registratiedatum: d('2020-06-20'), bron: 'EP-Online' },
      adres: { postcode: '2581VX', huisnummer: 63, huisletter: null, toevoeging: 'A-2', gecombineerd: true },
    });
  });

  it('refuses other files early with a message naming EP-Online', async () => {
    await expect(verzamel(parseEnergielabels(stroomVan('postcode;huisnummer;toevoeging;peildatum;waarde\n1234AB;1;;2025-01-01;1\n')))).rejects.toThrow(
      /geen EP-Online-energielabelbestand/,
    );
    await expect(verzamel(parseEnergielabels(stroomVan('{"type":"FeatureCollection","features":[]}')))).rejects.toThrow(/EP-Online/);
    await expect(verzamel(parseEnergielabels(stroomVan('Pand_postcode;Pand_huisnummer\n1234AB;1\n')))).rejects.toThrow(
      /pand_registratiedatum, pand_energieklasse ontbreken/,
    );
    await expect(verzamel(parseEnergielabels(stroomVan(Buffer.from('PK\x03\x04rest', 'latin1'))))).rejects.toThrow(/zip-bestand.*Pak het archief/);
  });
});

function label(v: Partial<EnergielabelRij>): EnergielabelRij {
  return { adres_id: 'a', label: 'C', registratiedatum: d('2020-01-01'), geldig_tot: null, opnametype: 'Basis', energie_index: null, bron: 'EP-Online', ...v };
}

describe('newest registration wins (JS order and SQL upsert condition)', () => {
  const db = useTestDatabase();
  beforeAll(async () => {
    const adres = (id: string, postcode: string, huisnummer: number, huisletter: string | null, toevoeging: string | null, objectId: string | null = null) =>
      db.prisma.adres.create({
        data: { id, postcode, huisnummer, huisletter, toevoeging, straat: 'Proefstraat', woonplaats: 'Testdorp', objectType: 'verblijfsobject', objectId, gebruiksdoelen: ['woonfunctie'], bron: 'test' },
      });
    await adres('A1', '1234AB', 12, null, null);
    await adres('A2', '1234AB', 12, 'A', null);
    await adres('A3', '1234AB', 12, null, '2', 'VBO3');
    await adres('A4', '1234AB', 14, 'A', null);
    await adres('A5', '1234AB', 14, null, 'A');
    await adres('A6', '1234AB', 16, 'B', '1');
  });

  it('orders by registratiedatum, then geldig_tot, energie_index, label; equal registrations keep the most cautious label', () => {
    expect(energielabelVolgorde(label({ registratiedatum: d('2021-01-01') }), label({}))).toBeGreaterThan(0);
    expect(energielabelVolgorde(label({ geldig_tot: d('2030-01-01') }), label({}))).toBeGreaterThan(0);
    expect(energielabelVolgorde(label({ energie_index: 1.3 }), label({ energie_index: 1.1 }))).toBeGreaterThan(0);
    // The worst label wins: the higher index (2010 B 1.10 and E 2.05 → E), then G > ... > A > A+ > A++.
    expect(energielabelVolgorde(label({ label: 'E', energie_index: 2.05 }), label({ label: 'B', energie_index: 1.1 }))).toBeGreaterThan(0);
    expect(energielabelVolgorde(label({ label: 'A' }), label({ label: 'A+' }))).toBeGreaterThan(0);
    expect(energielabelVolgorde(label({ label: 'A+' }), label({ label: 'A++' }))).toBeGreaterThan(0);
    expect(energielabelVolgorde(label({ label: 'B' }), label({ label: 'A' }))).toBeGreaterThan(0);
    expect(energielabelVolgorde(label({ energie_index: 1.3 }), label({ energie_index: null }))).toBeGreaterThan(0);
    expect(energielabelVolgorde(label({ label: 'D' }), label({ label: 'C' }))).toBeGreaterThan(0);
    expect(energielabelVolgorde(label({}), label({}))).toBe(0);
    const gekozen = behoudNieuwsteEnergielabels([
      { rij: label({ adres_id: 'x', label: 'B', registratiedatum: d('2019-01-01') }) },
      { rij: label({ adres_id: 'x', label: 'A', registratiedatum: d('2022-05-01') }) },
      { rij: label({ adres_id: 'y', label: 'G' }) },
      { rij: label({ adres_id: null }) },
    ]);
    expect(gekozen.map((g) => [g.rij.adres_id, g.rij.label])).toEqual([
      ['x', 'A'],
      ['y', 'G'],
    ]);
  });

  it('the SQL condition gives the same winner whatever the order of the rows', async () => {
    const regs = [
      label({ adres_id: 'A1', label: 'D', registratiedatum: d('2019-03-01'), geldig_tot: d('2029-03-01'), energie_index: 1.8 }),
      label({ adres_id: 'A1', label: 'B', registratiedatum: d('2023-06-01'), geldig_tot: d('2033-06-01') }),
      label({ adres_id: 'A1', label: 'C', registratiedatum: d('2023-06-01'), geldig_tot: d('2033-06-01') }),
      label({ adres_id: 'A1', label: 'A', registratiedatum: d('2021-02-01'), geldig_tot: d('2031-02-01'), opnametype: 'Detail' }),
    ];
    const lit = (v: unknown) => (v === null ? 'NULL' : v instanceof Date ? `DATE '${v.toISOString().slice(0, 10)}'` : typeof v === 'number' ? String(v) : `'${String(v)}'`);
    const schrijfLabel = (r: EnergielabelRij) =>
      db.prisma.$executeRawUnsafe(ENERGIELABEL_UPSERT_SQL.replace('$VALUES', `(${[r.adres_id, r.label, r.registratiedatum, r.geldig_tot, r.opnametype, r.energie_index, r.bron].map(lit).join(',')})`));
    const permutaties = [
      [0, 1, 2, 3],
      [3, 2, 1, 0],
      [2, 0, 3, 1],
      [1, 3, 0, 2],
    ];
    const verwacht = [...regs].sort(energielabelVolgorde).at(-1)!;
    expect(verwacht.label).toBe('C');
    for (const p of permutaties) {
      await db.prisma.$executeRawUnsafe('DELETE FROM energielabel');
      for (const i of p) await schrijfLabel(regs[i]);
      const [rij] = await db.prisma.energielabel.findMany();
      expect([rij.label, rij.registratiedatum?.toISOString().slice(0, 10)]).toEqual(['C', '2023-06-01']);
    }
    // Equal registrations keep the most cautious label, in either order.
    const gelijk: [EnergielabelRij, EnergielabelRij, string][] = [
      [label({ adres_id: 'A1', label: 'A', registratiedatum: d('2022-01-01') }), label({ adres_id: 'A1', label: 'A+', registratiedatum: d('2022-01-01') }), 'A'],
      [label({ adres_id: 'A1', label: 'B', registratiedatum: d('2010-01-01'), energie_index: 1.1 }), label({ adres_id: 'A1', label: 'E', registratiedatum: d('2010-01-01'), energie_index: 2.05 }), 'E'],
    ];
    for (const [a, b, winnaar] of gelijk) {
      for (const paar of [[a, b], [b, a]]) {
        await db.prisma.$executeRawUnsafe('DELETE FROM energielabel');
        for (const r of paar) await schrijfLabel(r);
        expect((await db.prisma.energielabel.findMany()).map((l) => l.label)).toEqual([winnaar]);
      }
    }
    expect(ENERGIELABEL_UPSERT_VOORWAARDE).toContain('excluded.registratiedatum');
  });

  it('a file not older than the held labels is the whole set of each address it names; other addresses keep theirs', async () => {
    const pub = (datum: string, v: Partial<EnergielabelRij>) => label({ bron: `EP-Online (publicatie ${datum})`, ...v });
    expect(energielabelVolgorde(pub('2024-09-01', { registratiedatum: d('2015-01-01') }), pub('2024-03-01', { registratiedatum: d('2023-01-01') }))).toBeGreaterThan(0);
    await db.prisma.$executeRawUnsafe('DELETE FROM energielabel');
    const tmp = tijdelijkeMap();
    try {
      const bestand = (naam: string, publicatie: string, regels: string[]) =>
        schrijf(path.join(tmp.pad, naam), [`PublicatieDatum;${publicatie}`, 'Pand_postcode;Pand_huisnummer;Pand_huisletter;Pand_registratiedatum;Pand_energieklasse', ...regels].join('\n'));
      const labels = async () => Object.fromEntries((await db.prisma.energielabel.findMany()).map((l) => [l.adresId, l.label]));
      await voerImportUit(db, 'energielabels', bestand('maart.csv', '01-03-2024', ['1234AB;12;;20150101;C', '1234AB;12;;20230101;A', '1234AB;12;A;20200101;B']));
      expect(await labels()).toEqual({ A1: 'A', A2: 'B' });
      // The A label of A1 was withdrawn: the later full file holds only its C. A2 is not in it and keeps its label.
      await voerImportUit(db, 'energielabels', bestand('september.csv', '01-09-2024', ['1234AB;12;;20150101;C']));
      expect(await labels()).toEqual({ A1: 'C', A2: 'B' });
      // An older file changes nothing.
      const s = await voerImportUit(db, 'energielabels', bestand('januari.csv', '01-01-2024', ['1234AB;12;;20230101;A']));
      expect(s).toMatchObject({ ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 1 });
      expect(await labels()).toEqual({ A1: 'C', A2: 'B' });
    } finally {
      tmp.weg();
    }
  });

  it('resolves addresses exactly, by concatenation, by verblijfsobject, and refuses ambiguity', async () => {
    const s = (huisnummer: number, huisletter: string | null, toevoeging: string | null, gecombineerd = false, verblijfsobjectId: string | null = null) => ({
      postcode: '1234AB',
      huisnummer,
      huisletter,
      toevoeging,
      gecombineerd,
      verblijfsobjectId,
    });
    const uit = await resolveAdresIds(db.prisma, [
      s(12, null, null),
      s(12, 'a', null),
      s(12, null, '2'),
      s(12, null, 'A', true),
      s(12, null, '2', true),
      s(14, 'A', null),
      s(14, null, 'A'),
      s(14, null, 'A', true),
      s(16, null, 'B-1', true),
      s(16, null, 'B1', true),
      s(16, null, null),
      s(99, null, null),
      s(12, null, '7', false, 'VBO3'),
    ]);
    expect(uit.map((u) => u.adresId ?? u.reden)).toEqual(['A1', 'A2', 'A3', 'A2', 'A3', 'A4', 'A5', 'meerduidig', 'A6', 'A6', 'meerduidig', 'onbekend', 'A3']);
    expect(await resolveAdresId(db.prisma, '1234 ab', 12, 'A', null)).toBe('A2');
    expect(await resolveAdresId(db.prisma, '1234AB', 16, null, 'B1')).toBe('A6');
    expect(await resolveAdresId(db.prisma, 'onzin', 16, null, null)).toBeNull();
  });
});
