import pg from 'pg';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type ReplicaToestand, type Reeks, type Waarneming, Replicas, volgendeToestand } from '../src/db/replicas.ts';
import { dialect, useTestDatabase } from './support/db.ts';

/** The states a replica goes through for a series of checks, from `begin`. */
function reeksVan(begin: ReplicaToestand, waarnemingen: Waarneming[], grensMs = 3000): ReplicaToestand[] {
  const reeks: Reeks = { fout: 0, goed: 0 };
  let t = begin;
  return waarnemingen.map((w) => (t = volgendeToestand(t, reeks, w, grensMs)));
}
const lag = (ms: number): Waarneming => ({ soort: 'achterstand', ms });
const weg: Waarneming = { soort: 'onbereikbaar' };

describe('replica state: hysteresis, so a loaded machine does not make it flap', () => {
  it('a lag going up and down around the bound: one change, back only when well within it twice', () => {
    expect(reeksVan('bruikbaar', [lag(2900), lag(3100), lag(2900), lag(3100), lag(2900), lag(1400), lag(1400), lag(2900)])).toEqual([
      'bruikbaar',
      'achter',
      'achter',
      'achter',
      'achter',
      'achter',
      'bruikbaar',
      'bruikbaar',
    ]);
  });

  it('a check that times out now and then keeps a usable replica; two in a row take it away', () => {
    expect(reeksVan('bruikbaar', [lag(100), weg, lag(100), weg, lag(100)])).toEqual(['bruikbaar', 'bruikbaar', 'bruikbaar', 'bruikbaar', 'bruikbaar']);
    expect(reeksVan('bruikbaar', [weg, weg, lag(100), lag(100)])).toEqual(['bruikbaar', 'weg', 'weg', 'bruikbaar']);
  });

  it('definite answers act at once: not a standby, behind the bound, the first check after start', () => {
    expect(reeksVan('bruikbaar', [{ soort: 'ongeschikt' }])).toEqual(['weg']);
    expect(reeksVan('bruikbaar', [lag(3001)])).toEqual(['achter']);
    expect(reeksVan('onbekend', [lag(2500)])).toEqual(['bruikbaar']);
    expect(reeksVan('onbekend', [weg])).toEqual(['weg']);
  });
});

describe('a read on a replica is given up, never held for the query timeout', () => {
  const nooit = () => new Promise<never>(() => {});
  const maak = (controleMs: number) =>
    new Replicas('postgresql://x@127.0.0.1:1/p', { urls: ['postgresql://x@127.0.0.1:1/r'], poolConfig: {}, maxAchterstandMs: 1000, controleMs });

  it('as soon as its replica stops being usable, without blaming the replica for it', async () => {
    const replicas = maak(60_000);
    const r = replicas.lijst[0];
    r.toestand = 'bruikbaar';
    const lezingen = [replicas.lees(r, nooit), replicas.lees(r, nooit)];
    replicas.meldFout(r, Object.assign(new Error('terminating connection'), { code: '57P01' }));
    for (const l of lezingen) await expect(l).rejects.toThrow('replica weg');
    await replicas.sluit();
  });

  it('after twice the check interval, at least 2 s: then the replica is weg', async () => {
    const replicas = maak(50);
    const r = replicas.lijst[0];
    r.toestand = 'bruikbaar';
    const t0 = Date.now();
    const fout = await replicas.lees(r, nooit).catch((e: Error) => e);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1990);
    expect(String(fout)).toMatch(/binnen 2000 ms/);
    replicas.meldFout(r, fout);
    expect(r.toestand).toBe('weg');
    await replicas.sluit();
  });
});

describe.skipIf(dialect === 'pglite')(`a primary that refuses pg_control_system() (${dialect})`, () => {
  const db = useTestDatabase();

  it('says so in one log line naming the function and the grant, instead of silently using no replica', async () => {
    const rol = 'insight_zonder_controle';
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      await admin.query(`DO $$ BEGIN CREATE ROLE ${rol} LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`);
      // Function privileges belong to the database: this test's own only.
      await admin.query('REVOKE EXECUTE ON FUNCTION pg_control_system() FROM PUBLIC');
    } finally {
      await admin.end();
    }
    const primair = new URL(db.url);
    primair.username = rol;
    const regels: { msg: string; reden?: string }[] = [];
    const log = pino({ level: 'info' }, { write: (s: string) => regels.push(JSON.parse(s)) });
    const replicas = new Replicas(primair.toString(), { urls: [db.url], poolConfig: {}, maxAchterstandMs: 1000, controleMs: 200, log });
    try {
      for (let i = 0; i < 3; i++) await replicas.controleer();
    } finally {
      await replicas.sluit();
    }
    const primairRegels = regels.filter((r) => /^primaire database/.test(r.msg));
    expect(primairRegels).toHaveLength(1);
    expect(primairRegels[0].reden).toMatch(/pg_control_system/);
    expect(primairRegels[0].reden).toMatch(/GRANT EXECUTE ON FUNCTION pg_control_system\(\)/);
  });
});
