import type pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Bezorger } from '../src/domain/webhooks/bezorger.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect, testDatabaseUrl } from './support/db.ts';

/**
 * The webhook worker during a database outage logs like the request path does: one line when claiming
 * starts to fail and one when it works again (with how often it failed), not one per poll.
 */
describe(`webhook worker during a database outage (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('warns once when claiming fails and once when it works again', async () => {
    const regels: { msg: string; mislukt?: number }[] = [];
    const log = pino({ level: 'warn' }, { write: (s: string) => void regels.push(JSON.parse(s)) });
    let kapot = true;
    const prisma = t.db.prisma;
    // The worker's statements fail as they do when the database is unreachable.
    const db = new Proxy(prisma, {
      get(doel, naam, ontvanger) {
        if (naam === '$queryRawUnsafe' && kapot) return () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
        const v = Reflect.get(doel, naam, ontvanger);
        return typeof v === 'function' ? v.bind(doel) : v;
      },
    });
    const b = new Bezorger({ db, now: () => new Date(), log, onveilig: true, pollMs: 20, verloopControleMs: 0 });
    await b.start();
    try {
      await new Promise((r) => setTimeout(r, 600));
      expect(regels.map((r) => r.msg)).toEqual(['webhooks: claimen mislukt; opnieuw bij elke poll, gemeld als het weer lukt']);
      kapot = false;
      await expect.poll(() => regels.length, { timeout: 10_000 }).toBe(2);
      expect(regels.map((r) => r.msg)).toEqual(['webhooks: claimen mislukt; opnieuw bij elke poll, gemeld als het weer lukt', 'webhooks: claimen lukt weer']);
      // Several polls failed (every 20 ms for 600 ms; fewer on a busy machine), yet one line said so.
      expect(regels[1].mislukt).toBeGreaterThan(1);
    } finally {
      await b.sluit();
    }
  });
  it.skipIf(!testDatabaseUrl)('a LISTEN connection lost (its backend ended, as in a database restart) is opened again: other processes wake the worker again', async () => {
    const regels: { msg: string }[] = [];
    const log = pino({ level: 'warn' }, { write: (s: string) => void regels.push(JSON.parse(s)) });
    // Polling every minute: within this test only a notification wakes the worker.
    const b = new Bezorger({
      db: t.db.prisma, now: () => new Date(), log, onveilig: true, pollMs: 60_000, verloopControleMs: 0,
      luisterVerbinding: t.db.openRawConnection, luisterOpnieuwMs: 50,
    });
    const luisteraars = () =>
      t.db.prisma.$queryRawUnsafe<{ pid: number }[]>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN webhook_aflevering'`);
    await b.start();
    try {
      const [eerste] = await luisteraars();
      expect(eerste).toBeDefined();
      await t.db.prisma.$queryRawUnsafe(`SELECT pg_terminate_backend(${eerste.pid})`);
      await expect.poll(async () => (await luisteraars()).map((r) => r.pid).filter((p) => p !== eerste.pid).length, { timeout: 10_000 }).toBe(1);
      await expect.poll(() => regels.map((r) => r.msg), { timeout: 5_000 }).toContain('webhooks: LISTEN-verbinding weer open');
      const wek = vi.spyOn(b, 'wek');
      await t.db.prisma.$executeRawUnsafe(`SELECT pg_notify('webhook_aflevering', '')`);
      await expect.poll(() => wek.mock.calls.length, { timeout: 5_000 }).toBeGreaterThan(0);
      expect(regels.filter((r) => r.msg.startsWith('webhooks: LISTEN-verbinding verbroken'))).toHaveLength(1);
    } finally {
      await b.sluit();
    }
    // Closed with the worker: no listening backend left behind, no reconnect after the close.
    await new Promise((r) => setTimeout(r, 150));
    expect(await luisteraars()).toEqual([]);
  });
});

// Session 28 (operations review): during an outage the worker's own connections and its expiry check logged a
// warning (with a stack) at every retry, ~720 lines an hour per process; now once when it starts failing and once
// when it works again, the retries at debug.
describe(`webhook worker: one warning per outage for its own connections and its expiry check (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('own connection that cannot be opened and an expiry check that fails: one warning each over many retries', async () => {
    const regels: { msg: string; mislukt?: number }[] = [];
    const log = pino({ level: 'info' }, { write: (s: string) => void regels.push(JSON.parse(s)) });
    let kapot = true;
    const weigering = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    const db = new Proxy(t.db.prisma, {
      get(doel, naam, ontvanger) {
        if (kapot && typeof naam === 'string' && naam.startsWith('$')) return weigering;
        if (kapot && naam === 'apiKey') return new Proxy({}, { get: () => weigering });
        const v = Reflect.get(doel, naam, ontvanger);
        return typeof v === 'function' ? v.bind(doel) : v;
      },
    });
    const b = new Bezorger({
      db, now: () => new Date(), log, onveilig: true, pollMs: 20, verloopControleMs: 30, luisterOpnieuwMs: 20,
      eigenVerbinding: () => (kapot ? weigering() : t.db.openRawConnection!()) as Promise<pg.Client>,
    });
    await b.start();
    try {
      await new Promise((r) => setTimeout(r, 800));
      const tel = (msg: string) => regels.filter((r) => r.msg === msg).length;
      expect(tel('webhooks: eigen verbinding niet te openen; via de pool')).toBe(1);
      expect(tel('webhooks: verloopcontrole mislukt')).toBe(1);
      kapot = false;
      await expect.poll(() => tel('webhooks: verloopcontrole lukt weer'), { timeout: 10_000 }).toBe(1);
      expect(regels.find((r) => r.msg === 'webhooks: verloopcontrole lukt weer')?.mislukt).toBeGreaterThan(1);
    } finally {
      await b.sluit();
    }
  });
});
