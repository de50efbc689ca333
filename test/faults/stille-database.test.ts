import { connect, createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maakAccount, leesSaldo } from '../../src/domain/billing/tegoed.ts';
import { maakSleutel } from '../../src/domain/keys/sleutels.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { adresBody, maakVolledigAdres } from '../support/register.ts';
import { startServer, verzoek, type ServerProces } from '../support/server.ts';

/**
 * A database host that silently drops packets (no RST, no ICMP: a firewall, a dead route). The server
 * process reaches PostgreSQL through a TCP relay this test owns; in `stil` mode the relay still accepts
 * connections but forwards nothing either way and closes nothing. Without DB_CONNECT_TIMEOUT_MS and
 * DB_QUERY_TIMEOUT_MS every request would hang for minutes; with them it gets the outage answer
 * (503 {fout} with Retry-After), uncharged, and the process recovers by itself when the packets flow again.
 */
class StilRelais {
  stil = false;
  port = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly doel: { host: string; port: number };
  constructor(doel: { host: string; port: number }) {
    this.doel = doel;
  }

  private volg(s: Socket) {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
    s.on('error', () => {});
  }

  async open(): Promise<void> {
    this.server = createServer((inkomend) => {
      this.volg(inkomend);
      // A connection made while silent never reaches the database: accepted, then nothing.
      if (this.stil) return;
      const uit = connect(this.doel.port, this.doel.host);
      this.volg(uit);
      inkomend.on('data', (b) => this.stil || uit.write(b));
      uit.on('data', (b) => this.stil || inkomend.write(b));
      inkomend.on('close', () => uit.destroy());
      uit.on('close', () => inkomend.destroy());
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (server.address() as { port: number }).port;
  }

  async sluit(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('a database host that silently drops packets (PostgreSQL behind a silent relay)', () => {
  let direct: TestDatabase;
  let relais: StilRelais;
  let server: ServerProces | undefined;
  beforeAll(async () => {
    direct = await createTestDatabase();
    const url = new URL(direct.url);
    relais = new StilRelais({ host: url.hostname, port: Number(url.port) });
    await relais.open();
  });
  afterAll(async () => {
    await server?.stop();
    await relais?.sluit();
    await direct?.close();
  });

  it('every request answers 503 {fout} with Retry-After instead of hanging, nothing is charged, and it recovers without restart', async () => {
    const url = new URL(direct.url);
    url.host = `127.0.0.1:${relais.port}`;
    server = await startServer(url.toString(), { DB_CONNECT_TIMEOUT_MS: '1000', DB_QUERY_TIMEOUT_MS: '1500', RATE_LIMIT_REST_PER_MIN: '100000' });
    const { id: accountId } = await maakAccount(direct.prisma, { naam: 'stil', credits: 1000 });
    const { key } = await maakSleutel(direct.prisma, { accountId, naam: 'stil', now: new Date() });
    const adres = await maakVolledigAdres(direct.prisma);
    const woz = () => verzoek(server!.url, 'POST', '/api/v1/inzicht/woz', { key, body: adresBody(adres) });
    // Warm: the pool holds open connections, which the silence then strands mid-statement.
    for (const r of await Promise.all(Array.from({ length: 8 }, woz))) expect(r.status).toBe(200);
    const saldo = await leesSaldo(direct.prisma, accountId);

    relais.stil = true;
    const t0 = performance.now();
    // Sent together: some find a pooled connection (its statement goes unanswered: query timeout),
    // the rest wait for a new one (never answered: connect timeout). A hang fails on the abort below.
    const tijdens = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const r = await fetch(`${server!.url}/api/v1/inzicht/woz`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(adresBody(adres)),
          signal: AbortSignal.timeout(60_000),
        });
        return { status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as Record<string, unknown> };
      }),
    );
    const stilMs = performance.now() - t0;
    for (const r of tijdens) {
      expect(r.status, JSON.stringify(r.body)).toBe(503);
      expect(Object.keys(r.body)).toEqual(['fout']);
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
    }
    relais.stil = false;
    let r = await woz();
    let pogingen = 1;
    for (; pogingen < 100 && r.status !== 200; pogingen++) {
      await new Promise((ok) => setTimeout(ok, 200));
      r = await woz();
    }
    console.log(`stille database: ${tijdens.length} verzoeken tijdens de stilte, alle 503 in ${Math.round(stilMs)} ms; hersteld na ${pogingen} poging(en)`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // Only the call after the recovery was charged (1 credit for woz).
    expect(await leesSaldo(direct.prisma, accountId)).toBe(saldo - 1);
  });

  it('a statement blocked longer than DB_QUERY_TIMEOUT_MS: 503, and the charge in it rolls back (not committed after the answer)', async () => {
    await server?.stop();
    server = await startServer(direct.url, { DB_QUERY_TIMEOUT_MS: '1000', RATE_LIMIT_REST_PER_MIN: '100000' });
    const { id: accountId } = await maakAccount(direct.prisma, { naam: 'geblokkeerd', credits: 10 });
    const { key } = await maakSleutel(direct.prisma, { accountId, naam: 'geblokkeerd', now: new Date() });
    const adres = await maakVolledigAdres(direct.prisma);
    const woz = () => verzoek(server!.url, 'POST', '/api/v1/inzicht/woz', { key, body: adresBody(adres) });
    expect((await woz()).status).toBe(200);
    // Another session holds the account row: the charge's UPDATE waits behind it (a slow server, not a gone one).
    const slot = new pg.Client({ connectionString: direct.url });
    await slot.connect();
    try {
      await slot.query('BEGIN');
      await slot.query('SELECT 1 FROM account WHERE id = $1 FOR UPDATE', [accountId]);
      const r = await woz();
      expect(r.status, JSON.stringify(r.body)).toBe(503);
      expect(Object.keys(r.body)).toEqual(['fout']);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      // Held a while longer than the client's own timeout would be: a charge still pending would commit on release.
      await new Promise((ok) => setTimeout(ok, 500));
    } finally {
      await slot.query('ROLLBACK');
      await slot.end();
    }
    await new Promise((ok) => setTimeout(ok, 500));
    expect(await leesSaldo(direct.prisma, accountId)).toBe(9);
    expect(await direct.prisma.usageRecord.count({ where: { accountId } })).toBe(1);
    let na = await woz();
    for (let i = 0; i < 30 && na.status !== 200; i++) {
      await new Promise((ok) => setTimeout(ok, 200));
      na = await woz();
    }
    expect(na.status).toBe(200);
    expect(await leesSaldo(direct.prisma, accountId)).toBe(8);
  });
});
