import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { maakModelHouder } from '../src/domain/valuation/houder.ts';
import { dialect, useTestDatabase } from './support/db.ts';
import { maakVerkopen } from './support/verkopen.ts';

const slaap = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`the value model is fitted again only on what it reads, and not half-way through an import (${dialect})`, () => {
  const db = useTestDatabase();

  it('an import of other data does not refit; sales arriving in an open sales import wait for its end', async () => {
    await maakVerkopen(db.prisma, { lat: 52.1, lon: 5.1, n: 300, van: '2022-01-01', tot: '2026-10-31' });
    const regels: string[] = [];
    const log = pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => (regels.push(String(c)), cb()) }));
    const houder = maakModelHouder(db.prisma, log, { controleMs: 0 });
    const klaar = () => regels.filter((r) => /"waardemodel (gebouwd|geladen)"/.test(r)).length;
    await houder.model();
    expect(klaar()).toBe(1);
    /** A valuation triggers the vintage check; the fits it may start are waited for (a fit here takes 1–3 s). */
    const naControle = async (verwacht: number) => {
      const voor = klaar();
      await houder.model();
      const tot = Date.now() + (verwacht > voor ? 60_000 : 10_000);
      while (klaar() === voor && Date.now() < tot) await slaap(200);
      return klaar();
    };

    // A finished energy-label import: the model reads no labels.
    await db.prisma.importRun.create({ data: { soort: 'energielabels', bestand: 'ep.csv', sha256: '', klaarOp: new Date() } });
    expect(await naControle(1)).toBe(1);

    // A sales import under way with part of its rows in: no fit on half the sales.
    const run = await db.prisma.importRun.create({ data: { soort: 'verkopen', bestand: 'verkopen.csv', sha256: '' } });
    await maakVerkopen(db.prisma, { lat: 52.1, lon: 5.1, n: 20, van: '2026-06-01', tot: '2026-10-31', prefix: 'deel' });
    expect(await naControle(1)).toBe(1);

    // Finished: fitted on all of them.
    await db.prisma.importRun.update({ where: { id: run.id }, data: { klaarOp: new Date() } });
    expect(await naControle(2)).toBe(2);
    expect(JSON.parse(regels.at(-1) ?? '{}').verkopen).toBe(320);
  }, 180_000);
});
