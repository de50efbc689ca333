import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/env.ts';
import type { Services } from '../src/core/context.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { maakAccount, leesSaldo } from '../src/domain/billing/tegoed.ts';
import { maakSleutel } from '../src/domain/keys/sleutels.ts';
import { maakGebruiker } from '../src/domain/gebruikers/gebruikers.ts';
import { maakModelHouder } from '../src/domain/valuation/houder.ts';
import { createLogger } from '../src/logging.ts';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { mcpClient } from './support/mcp.ts';

/**
 * Issue 12 item 4: PostgreSQL unreachable. The app reaches its database through a TCP relay this test
 * owns; closing the relay (and cutting its connections) is the outage, reopening it on the same port the
 * recovery. The shared PostgreSQL itself is never stopped.
 */
class Relais {
  private server: Server | undefined;
  private sockets = new Set<Socket>();
  port = 0;
  private doel: { host: string; port: number };
  constructor(doel: { host: string; port: number }) {
    this.doel = doel;
  }
  /** A partition, not a refusal: connections are accepted and every byte dropped. */
  zwart = false;
  partitie(): void {
    this.zwart = true;
    for (const s of this.sockets) s.destroy();
  }
  async open(): Promise<void> {
    this.server = createServer((inkomend) => {
      if (this.zwart) {
        this.sockets.add(inkomend);
        inkomend.on('close', () => this.sockets.delete(inkomend));
        inkomend.on('error', () => {});
        inkomend.resume();
        return;
      }
      const uit = connect(this.doel.port, this.doel.host);
      for (const s of [inkomend, uit]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      inkomend.pipe(uit).pipe(inkomend);
    });
    await new Promise<void>((resolve) => this.server?.listen(this.port, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as { port: number }).port;
  }
  async sluit(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

describe.skipIf(!testDatabaseUrl)('database outage (PostgreSQL behind a relay)', () => {
  let direct: TestDatabase;
  let viaRelais: Database;
  let relais: Relais;
  let app: FastifyInstance;
  const regels: string[] = [];
  let key: string;
  let accountId: string;
  let adres: { postcode: string; huisnummer: number };

  beforeAll(async () => {
    direct = await createTestDatabase();
    const url = new URL(direct.url);
    relais = new Relais({ host: url.hostname, port: Number(url.port) });
    await relais.open();
    url.host = `127.0.0.1:${relais.port}`;
    viaRelais = await openDatabase({ databaseUrl: url.toString(), dataDir: '' });
    const config = loadConfig({}, { LOG_LEVEL: 'info', DEMO_SEED: 'false', METRICS_TOKEN: 'metrics-token-storing' });
    const log = createLogger(config, new Writable({ write: (c, _e, cb) => (regels.push(String(c)), cb()) }));
    const services: Services = { db: viaRelais.prisma, config, now: () => new Date(), log, waardemodel: maakModelHouder(viaRelais.prisma, log, { controleMs: 0 }) };
    app = await buildApp({ services });
    await app.ready();
    ({ id: accountId } = await maakAccount(direct.prisma, { naam: 'storing', credits: 100 }));
    key = (await maakSleutel(direct.prisma, { accountId, naam: 'storing', now: new Date() })).key;
    adres = await maakVolledigAdres(direct.prisma);
  });
  afterAll(async () => {
    await app?.close();
    await viaRelais?.close();
    await relais?.sluit();
    await direct?.close();
  });

  const woz = () =>
    app.inject({ method: 'POST', url: '/api/v1/inzicht/woz', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: adresBody(adres) });

  it('answers 503 {fout} with Retry-After while unreachable, charges nothing, logs the outage once, and recovers without restart', async () => {
    expect((await woz()).statusCode).toBe(200);
    const saldo = await leesSaldo(direct.prisma, accountId);
    await relais.sluit();
    const tijdens = [];
    for (let i = 0; i < 20; i++) tijdens.push(await woz());
    tijdens.push(await app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${key}` } }));
    for (const r of tijdens) {
      expect(r.statusCode, r.body).toBe(503);
      expect(Object.keys(r.json())).toEqual(['fout']);
      expect(r.json().fout).toMatch(/database|tijdelijk/i);
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(await leesSaldo(direct.prisma, accountId)).toBe(saldo);
    const storingRegels = regels.filter((r) => /"level":(40|50)/.test(r));
    expect(storingRegels.length, storingRegels.join('\n')).toBe(1);
    expect(storingRegels[0]).toMatch(/database onbereikbaar/);

    await relais.open();
    let r = await woz();
    for (let i = 0; i < 50 && r.statusCode === 503; i++) {
      await new Promise((ok) => setTimeout(ok, 100));
      r = await woz();
    }
    expect(r.statusCode).toBe(200);
    await new Promise((ok) => setTimeout(ok, 1500));
    const herstel = regels.filter((l) => /database weer bereikbaar/.test(l));
    expect(herstel).toHaveLength(1);
    expect(JSON.parse(herstel[0]).geweigerd).toBeGreaterThanOrEqual(21);
  });

  it('the web app over /trpc gets the same 503 {fout} with Retry-After (not 500), for login, queries and mutations alike', async () => {
    const email = 'storing@voorbeeld.nl';
    const wachtwoord = 'een-lang-genoeg-wachtwoord';
    await maakGebruiker(direct.prisma, { accountId, email, wachtwoord });
    const aanmelden = () =>
      app.inject({ method: 'POST', url: '/trpc/sessie.aanmelden', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ email, wachtwoord }) });
    const login = await aanmelden();
    expect(login.statusCode, login.body).toBe(200);
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    const csrf = login.json().result.data.csrf as string;
    const saldo = () => app.inject({ method: 'GET', url: '/trpc/tegoed.saldo', headers: { cookie } });
    const maakSleutel = () =>
      app.inject({ method: 'POST', url: '/trpc/sleutels.maak', headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' }, payload: JSON.stringify({ naam: 'tijdens storing' }) });
    expect((await saldo()).statusCode).toBe(200);

    await relais.sluit();
    for (const r of [await saldo(), await maakSleutel(), await aanmelden()]) {
      expect(r.statusCode, r.body).toBe(503);
      expect(r.json().error.data.fout).toMatch(/database|tijdelijk/i);
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
    await relais.open();
    let r = await saldo();
    for (let i = 0; i < 50 && r.statusCode === 503; i++) {
      await new Promise((ok) => setTimeout(ok, 100));
      r = await saldo();
    }
    expect(r.statusCode, r.body).toBe(200);
    expect(await direct.prisma.apiKey.count({ where: { accountId, naam: 'tijdens storing' } })).toBe(0);
  });
  // Issue 24 item 18: one behaviour during an outage on /mcp too — HTTP 503 {fout} with Retry-After for a
  // protocol message and for a tool call alike (a tool call of an already known key was a 200 tool result).
  it('MCP: every message, tool calls of a known key included, gets HTTP 503 {fout} with Retry-After', async () => {
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const c = await mcpClient(base, key);
    const argumenten = { postcode: adres.postcode, huisnummer: adres.huisnummer };
    expect((await c.callTool({ name: 'woz', arguments: argumenten })).isError).toBeFalsy();
    const saldo = await leesSaldo(direct.prisma, accountId);
    await relais.sluit();
    await expect(c.callTool({ name: 'woz', arguments: { ...argumenten, toevoeging: null } })).rejects.toMatchObject({ code: 503, message: expect.stringMatching(/tijdelijk niet bereikbaar/) });
    const kop = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const bericht of [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'property_address', arguments: argumenten } },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]) {
      const r = await fetch(`${base}/mcp`, { method: 'POST', headers: kop, body: JSON.stringify(bericht) });
      expect(r.status, bericht.method).toBe(503);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Object.keys((await r.json()) as object)).toEqual(['fout']);
    }
    expect(await leesSaldo(direct.prisma, accountId)).toBe(saldo);
    await relais.open();
    for (let i = 0; i < 50 && (await woz()).statusCode === 503; i++) await new Promise((ok) => setTimeout(ok, 100));
    await c.close().catch(() => {});
  });

  it('/metrics answers within seconds while the database is partitioned (a query held, not refused)', async () => {
    const scrape = async () => {
      const t0 = Date.now();
      const r = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer metrics-token-storing' } });
      return { status: r.statusCode, ms: Date.now() - t0, body: r.body };
    };
    expect((await scrape()).body).toMatch(/insight_webhook_wachtrij\{toestand="wachtend"\}/);
    relais.partitie();
    try {
      for (let i = 0; i < 2; i++) {
        const s = await scrape();
        expect(s.status).toBe(200);
        expect(s.ms, 'a Prometheus scrape times out after 10 s').toBeLessThan(3_000);
      }
    } finally {
      relais.zwart = false;
    }
    for (let i = 0; i < 50 && (await woz()).statusCode === 503; i++) await new Promise((ok) => setTimeout(ok, 100));
  }, 30_000);

  it('a charge statement that runs after the client gave up on it (a stalled server) rolls back, so the 503 it got charged nothing', async () => {
    const [{ id: sleutelId }] = await direct.prisma.$queryRawUnsafe<{ id: string }[]>('SELECT id::text FROM api_sleutel WHERE account_id = $1::uuid LIMIT 1', accountId);
    const nu = new Date();
    const item = {
      verzoek: randomUUID(), account: accountId, sleutel: sleutelId, kanaal: 'rest', voorziening: 'woz', status: 200, credits: 1, eenheid_cent: 5, adres: null,
      nu: nu.toISOString(), tijdstempel: String(Math.floor(nu.getTime() / 1000)), event_id: `msg_${randomUUID()}`, event_type: 'inzicht.voltooid', event_data: {}, laag_id: `msg_${randomUUID()}`,
    };
    const saldo = await leesSaldo(direct.prisma, accountId);
    const afrekenen = (verstuurd: Date) =>
      direct.prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe("SET LOCAL statement_timeout = '15s'");
        return tx.$queryRawUnsafe('SELECT * FROM afrekenen_bundels($1::jsonb, $2::timestamptz)', JSON.stringify([[item]]), verstuurd.toISOString());
      });
    await expect(afrekenen(new Date(Date.now() - 16_000))).rejects.toThrow(/leestijd van de client/);
    expect(await leesSaldo(direct.prisma, accountId)).toBe(saldo);
    expect(await direct.prisma.usageRecord.count({ where: { id: item.verzoek } })).toBe(0);
    await afrekenen(new Date());
    expect(await leesSaldo(direct.prisma, accountId)).toBe(saldo - 1);
  });

  it('a charge waiting on a lock when its connection is cut (its process killed) does not commit when the lock goes: nobody got that answer', async () => {
    expect((await woz()).statusCode).toBe(200);
    const saldo = await leesSaldo(direct.prisma, accountId);
    const verbruik = await direct.prisma.usageRecord.count({ where: { accountId } });
    const admin = new pg.Client({ connectionString: direct.url });
    await admin.connect();
    try {
      await admin.query('BEGIN');
      await admin.query('SELECT 1 FROM account WHERE id = $1::uuid FOR UPDATE', [accountId]);
      const antwoord = woz();
      // Any backend but this one waiting on a lock: the account row's is the only one held here.
      const wachtend = async () =>
        (await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`)).rows[0].n;
      await expect.poll(wachtend, { timeout: 20_000 }).toBe(1);
      relais.partitie();
      expect((await antwoord).statusCode).toBe(503);
      // The database notices the lost client at its next check (every second), not when it next writes to it.
      await new Promise((ok) => setTimeout(ok, 2_500));
      await admin.query('COMMIT');
      await expect.poll(wachtend, { timeout: 5_000 }).toBe(0);
      await new Promise((ok) => setTimeout(ok, 300));
      expect(await leesSaldo(direct.prisma, accountId)).toBe(saldo);
      expect(await direct.prisma.usageRecord.count({ where: { accountId } })).toBe(verbruik);
    } finally {
      relais.zwart = false;
      await admin.end().catch(() => {});
    }
    for (let i = 0; i < 50 && (await woz()).statusCode === 503; i++) await new Promise((ok) => setTimeout(ok, 100));
  }, 30_000);

  it('a database that takes no writes (a standby after a failover): 503 with Retry-After, not 500; /readyz says so; back when writable', async () => {
    const admin = new pg.Client({ connectionString: direct.url });
    await admin.connect();
    await admin.query('SET default_transaction_read_only = off');
    const naam = new URL(direct.url).pathname.slice(1);
    const zet = async (aan: boolean) => {
      await admin.query(`ALTER DATABASE "${naam}" SET default_transaction_read_only = ${aan ? 'on' : 'off'}`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    };
    const saldo = await leesSaldo(direct.prisma, accountId);
    try {
      await zet(true);
      const statussen: number[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await woz();
        statussen.push(r.statusCode);
        if (r.statusCode === 503) expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect(statussen).not.toContain(500);
      expect(statussen.at(-1)).toBe(503);
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().fout).toMatch(/alleen leesopdrachten/);
      expect(await leesSaldo(direct.prisma, accountId)).toBe(saldo);
    } finally {
      await zet(false);
      await admin.end();
    }
    let r = await woz();
    for (let i = 0; i < 50 && r.statusCode !== 200; i++) {
      await new Promise((ok) => setTimeout(ok, 100));
      r = await woz();
    }
    expect(r.statusCode).toBe(200);
  }, 30_000);
});
