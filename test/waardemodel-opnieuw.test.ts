import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Db } from '../src/db/client.ts';
import { maakModelHouder } from '../src/domain/valuation/houder.ts';
import { dialect, useTestDatabase } from './support/db.ts';
import { maakVerkopen } from './support/verkopen.ts';

describe(`a failed first model build is retried on its own (${dialect})`, () => {
  const db = useTestDatabase();

  it('with backoff and a log line per failure, until /readyz can say ready — no valuation needed', async () => {
    await maakVerkopen(db.prisma, { lat: 52.1, lon: 5.1, n: 300, van: '2022-01-01', tot: '2026-10-31' });
    // The database fails the build's first two queries (a hiccup at start-up), then answers again.
    let storing = 2;
    const haperend = new Proxy(db.prisma, {
      get(doel, naam, ontvanger) {
        if (naam === '$queryRaw' && storing > 0) {
          return () => {
            storing--;
            return Promise.reject(new Error('verbinding verbroken'));
          };
        }
        return Reflect.get(doel, naam, ontvanger);
      },
    }) as Db;
    const regels: string[] = [];
    const log = pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => (regels.push(String(c)), cb()) }));
    const houder = maakModelHouder(haperend, log, { wachtOpEerste: false, opnieuwMs: 50 });
    await expect(houder.vernieuw()).rejects.toThrow('verbinding verbroken');
    expect(houder.beschikbaar()).toBe(false);
    const tot = Date.now() + 120_000;
    while (!houder.beschikbaar() && Date.now() < tot) await new Promise((r) => setTimeout(r, 50));
    expect(houder.beschikbaar()).toBe(true);
    const gepland = regels.map((r) => JSON.parse(r)).filter((r) => r.msg.includes('nieuwe poging gepland'));
    expect(gepland.map((r) => r.opnieuwOverMs)).toEqual([50, 100]);
    expect(regels.some((r) => r.includes('"waardemodel gebouwd"'))).toBe(true);
  }, 180_000);
});
