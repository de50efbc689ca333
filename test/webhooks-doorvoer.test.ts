import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { startOntvanger } from './support/ontvanger.ts';
import { Bezorger, type BezorgerOpties } from '../src/domain/webhooks/bezorger.ts';
import { maakEndpoint, wijzigEndpoint } from '../src/domain/webhooks/beheer.ts';
import { schrijfGebeurtenis } from '../src/domain/webhooks/gebeurtenissen.ts';
import { OngeldigDoel, type Resolver } from '../src/domain/webhooks/doeladres.ts';
import { Verbindingen } from '../src/domain/webhooks/verzenden.ts';

/**
 * Delivery under a backlog: claims in batches that respect each endpoint's limit (a slow receiver stays
 * at the base limit, a fast one gets more, never above its ceiling), kept-alive connections, several
 * workers on one database never sending one row at once, and a shutdown that hands back claimed rows.
 */
describe(`webhook delivery under a backlog (${dialect})`, () => {
  let t: TestApp;
  const log = pino({ level: 'silent' });
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  function bezorger(o: Partial<BezorgerOpties> = {}): Bezorger {
    return new Bezorger({
      db: t.db.prisma, now: () => new Date(), log, onveilig: true, pollMs: 25, verloopControleMs: 0,
      luisterVerbinding: t.db.openRawConnection, eigenVerbinding: t.db.openRawConnection, ...o,
    });
  }

  /** An account with one endpoint at `url`; returns a function that writes n events for it. */
  async function endpoint(url: string, resolver?: Resolver): Promise<{ id: string; accountId: string; schrijf: (n: number) => Promise<string[]> }> {
    const acc = await t.account(0);
    const { endpoint: e } = await maakEndpoint(t.db.prisma, { accountId: acc.id, url, events: ['inzicht.voltooid'], now: new Date(), onveilig: true, resolver });
    return {
      id: e.id,
      accountId: acc.id,
      async schrijf(n) {
        const ids: string[] = [];
        for (let i = 0; i < n; i++) {
          const id = await schrijfGebeurtenis(t.db.prisma, { accountId: acc.id, type: 'inzicht.voltooid', data: { volgnummer: i }, now: new Date() });
          if (id) ids.push(id);
        }
        return ids;
      },
    };
  }

  /** The most rows of each endpoint claimed (`bezig`) at once, sampled until `klaar` resolves. */
  async function meetClaims(klaar: Promise<unknown>): Promise<Map<string, number>> {
    const max = new Map<string, number>();
    let stop = false;
    void klaar.finally(() => {
      stop = true;
    });
    while (!stop) {
      const rijen = await t.db.prisma.$queryRawUnsafe<{ endpoint_id: string; n: number }[]>(
        `SELECT endpoint_id::text, count(*)::int AS n FROM webhook_aflevering WHERE toestand = 'bezig' GROUP BY endpoint_id`,
      );
      for (const r of rijen) max.set(r.endpoint_id, Math.max(max.get(r.endpoint_id) ?? 0, r.n));
      await new Promise((r) => setTimeout(r, 5));
    }
    return max;
  }

  it('a batch claim never exceeds an endpoint\'s limit: a slow receiver stays at the base, a fast one gets more but never above its ceiling', async () => {
    const snel = await startOntvanger({ vertragingMs: 20 });
    const traag = await startOntvanger({ vertragingMs: 400 });
    const b = bezorger({ maxPerEndpoint: 2, maxPerEndpointSnel: 6, maxTotaal: 16, snelMs: 250 });
    try {
      const s = await endpoint(`${snel.base}/doorvoer/ok`);
      const l = await endpoint(`${traag.base}/doorvoer/ok`);
      const langzaam = await l.schrijf(6);
      const vlug = await s.schrijf(120);
      await b.start();
      const klaar = Promise.all([snel.wacht('/doorvoer/ok', vlug.length, 60_000), traag.wacht('/doorvoer/ok', langzaam.length, 60_000)]);
      const geclaimd = await meetClaims(klaar);
      await b.leeg();
      // Every event once, per webhook-id.
      expect(new Set(snel.van('/doorvoer/ok').map((o) => o.headers['webhook-id']))).toEqual(new Set(vlug));
      expect(snel.van('/doorvoer/ok')).toHaveLength(vlug.length);
      expect(traag.van('/doorvoer/ok')).toHaveLength(langzaam.length);
      // Slow: never more than the base limit in flight, nor claimed (no stock for a receiver that has not proved fast).
      expect(traag.maxGelijktijdigPerPad.get('/doorvoer/ok')).toBe(2);
      expect(geclaimd.get(l.id) ?? 0).toBeLessThanOrEqual(2);
      // Fast: more than the base in flight, at most its ceiling; claimed at most the ceiling plus twice as much stock.
      expect(snel.maxGelijktijdigPerPad.get('/doorvoer/ok')).toBeGreaterThan(2);
      expect(snel.maxGelijktijdigPerPad.get('/doorvoer/ok')).toBeLessThanOrEqual(6);
      expect(geclaimd.get(s.id) ?? 0).toBeLessThanOrEqual(18);
      expect(await t.db.prisma.webhookDelivery.count({ where: { endpointId: { in: [s.id, l.id] }, NOT: { toestand: 'afgeleverd' } } })).toBe(0);
      expect(await t.db.prisma.webhookDelivery.count({ where: { endpointId: { in: [s.id, l.id] }, pogingen: { not: 1 } } })).toBe(0);
    } finally {
      await b.sluit(100);
      await snel.sluit();
      await traag.sluit();
    }
  });

  it('two workers on one database never send one delivery row at the same time, and send each row once', async () => {
    const r = await startOntvanger({ vertragingMs: 2 });
    const [b1, b2] = [bezorger({ maxPerEndpoint: 4 }), bezorger({ maxPerEndpoint: 4 })];
    try {
      const e = await endpoint(`${r.base}/twee-werkers/ok`);
      const ids = await e.schrijf(300);
      await Promise.all([b1.start(), b2.start()]);
      await r.wacht('/twee-werkers/ok', ids.length, 60_000);
      await Promise.all([b1.leeg(), b2.leeg()]);
      const ontvangen = r.van('/twee-werkers/ok').map((o) => String(o.headers['webhook-id']));
      expect(ontvangen).toHaveLength(ids.length);
      expect(new Set(ontvangen)).toEqual(new Set(ids));
      expect(r.maxGelijktijdigPerId).toBe(1);
    } finally {
      await Promise.all([b1.sluit(100), b2.sluit(100)]);
      await r.sluit();
    }
  });

  it('keeps connections to a receiver alive: many deliveries over a few connections', async () => {
    let verbindingen = 0;
    let verzoeken = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        verzoeken++;
        res.writeHead(204).end();
      });
    });
    server.on('connection', () => verbindingen++);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const b = bezorger({ maxPerEndpoint: 2, maxPerEndpointSnel: 4 });
    try {
      const e = await endpoint(`http://127.0.0.1:${(server.address() as { port: number }).port}/hook`);
      const ids = await e.schrijf(60);
      await b.start();
      await b.leeg();
      expect(verzoeken).toBe(ids.length);
      // At most one connection per concurrent send (4), not one per delivery.
      expect(verbindingen).toBeLessThanOrEqual(4);
    } finally {
      await b.sluit(100);
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    }
  });

  it('shutdown with claimed rows waiting: nothing stays claimed, unsent rows go back without an attempt', async () => {
    const r = await startOntvanger({ vertragingMs: 5 });
    const b = bezorger({ maxPerEndpoint: 2, maxPerEndpointSnel: 8, snelMs: 1000 });
    const e = await endpoint(`${r.base}/sluiten/ok`);
    const ids = await e.schrijf(200);
    await b.start();
    await r.wacht('/sluiten/ok', 40, 60_000);
    await b.sluit(2_000);
    const rijen = await t.db.prisma.webhookDelivery.findMany({ where: { endpointId: e.id }, select: { toestand: true, pogingen: true, geclaimdTot: true, event: { select: { id: true } } } });
    const ontvangen = new Set(r.van('/sluiten/ok').map((o) => String(o.headers['webhook-id'])));
    await r.sluit();
    expect(rijen).toHaveLength(ids.length);
    expect(rijen.filter((x) => x.toestand === 'bezig' || x.geclaimdTot !== null)).toHaveLength(0);
    // Delivered rows are exactly those received; the rest wait, due again, without an attempt counted.
    expect(new Set(rijen.filter((x) => x.toestand === 'afgeleverd').map((x) => x.event.id))).toEqual(ontvangen);
    expect(rijen.filter((x) => x.toestand === 'wachtend').every((x) => x.pogingen === 0)).toBe(true);
    expect(rijen.filter((x) => x.toestand === 'wachtend').length).toBeGreaterThan(0);
  });

  it('a 410 from a fast receiver: nothing more is sent, its claimed stock goes back unsent and goes out when switched on again', async () => {
    let ontvangen = 0;
    let weg = false;
    let terug = false;
    let naWeg = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const gone = ++ontvangen > 150 && !terug;
        if (weg && gone) naWeg++;
        setTimeout(() => {
          weg ||= gone;
          res.writeHead(gone ? 410 : 204).end();
        }, gone ? 5 : 1);
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const b = bezorger({ maxPerEndpoint: 2, maxPerEndpointSnel: 16, maxTotaal: 64 });
    try {
      const e = await endpoint(`http://127.0.0.1:${(server.address() as { port: number }).port}/snel-dan-weg`);
      const ids = await e.schrijf(400);
      const tel = (toestand: string) => t.db.prisma.webhookDelivery.count({ where: { endpointId: e.id, toestand } });
      const wachtTot = async (klaar: () => Promise<boolean>) => {
        for (const tot = Date.now() + 30_000; !(await klaar()); await new Promise((ok) => setTimeout(ok, 25))) {
          if (Date.now() > tot) throw new Error('niet klaar binnen de tijd');
        }
      };
      await b.start();
      await wachtTot(async () => weg && b.actief === 0 && (await tel('bezig')) === 0);
      // At most what was in flight when the first 410 came back.
      expect(naWeg).toBeLessThanOrEqual(16);
      expect(await t.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: e.id } })).toMatchObject({ actief: false });
      const rijen = await t.db.prisma.webhookDelivery.findMany({ where: { endpointId: e.id }, select: { toestand: true, pogingen: true, laatsteStatus: true } });
      const mislukt = rijen.filter((x) => x.toestand === 'mislukt');
      expect(mislukt.length).toBe(ontvangen - 150);
      expect(mislukt.every((x) => x.laatsteStatus === 410)).toBe(true);
      expect(rijen.filter((x) => x.toestand === 'afgeleverd')).toHaveLength(150);
      expect(rijen.filter((x) => x.toestand === 'wachtend' && x.pogingen === 0)).toHaveLength(ids.length - ontvangen);
      terug = true;
      await wijzigEndpoint(t.db.prisma, { accountId: e.accountId, id: e.id, actief: true, onveilig: true });
      await wachtTot(async () => (await tel('wachtend')) === 0 && (await tel('bezig')) === 0);
      expect(await tel('afgeleverd')).toBe(ids.length - mislukt.length);
    } finally {
      await b.sluit(100);
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    }
  });

  it('a lookup slower than the timeout fails that attempt within it, so another worker never sends the row meanwhile', async () => {
    const r = await startOntvanger();
    const snel: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    // Longer than the claim's lease (timeout + 5 s).
    const traag: Resolver = async (host) => new Promise((ok) => setTimeout(() => ok(snel(host)), 6_500));
    const e = await endpoint(`http://ontvanger.test:${new URL(r.base).port}/traag-dns/ok`, snel);
    const b1 = bezorger({ resolver: traag, timeoutMs: 400, random: () => 0 });
    const b2 = bezorger({ resolver: snel, timeoutMs: 400 });
    const begin = Date.now();
    try {
      const [id] = await e.schrijf(1);
      await b1.start();
      await new Promise((ok) => setTimeout(ok, 300));
      await b2.start();
      let eerste = await t.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: e.id } });
      while (eerste.pogingen === 0 && Date.now() - begin < 10_000) {
        await new Promise((ok) => setTimeout(ok, 25));
        eerste = await t.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: e.id } });
      }
      await b1.sluit(100);
      await r.wacht('/traag-dns/ok', 1, 10_000);
      await new Promise((ok) => setTimeout(ok, Math.max(0, begin + 7_500 - Date.now())));
      expect(r.van('/traag-dns/ok').map((o) => o.headers['webhook-id'])).toEqual([id]);
      expect(eerste).toMatchObject({ toestand: 'wachtend', pogingen: 1, laatsteFout: 'Niet verstuurd: de host is niet binnen 0.4 s opgezocht.' });
      expect(await t.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: e.id } })).toMatchObject({ toestand: 'afgeleverd', pogingen: 2 });
    } finally {
      await Promise.all([b1.sluit(100), b2.sluit(100)]);
      await r.sluit();
    }
  }, 30_000);
});

describe('SSRF check reused briefly per URL, and connections per checked address', () => {
  it('reuses a check within its validity, checks again after it, and never hands out one agent for two addresses', async () => {
    const dns: Record<string, string[]> = { 'ontvanger.voorbeeld.nl': ['93.184.216.34'] };
    let opgezocht = 0;
    const resolver: Resolver = async (host) => {
      opgezocht++;
      return (dns[host] ?? []).map((address) => ({ address, family: 4 as const }));
    };
    const kort = new Verbindingen({ onveilig: false, resolver, geldigMs: 60_000 });
    const d1 = await kort.doel('https://ontvanger.voorbeeld.nl/hook');
    await kort.doel('https://ontvanger.voorbeeld.nl/hook');
    expect(opgezocht).toBe(1);
    expect(d1.adres.address).toBe('93.184.216.34');
    // After the validity the host is resolved and checked again: now private, so refused.
    const nul = new Verbindingen({ onveilig: false, resolver, geldigMs: 0 });
    await nul.doel('https://ontvanger.voorbeeld.nl/hook');
    dns['ontvanger.voorbeeld.nl'] = ['10.0.0.7'];
    await expect(nul.doel('https://ontvanger.voorbeeld.nl/hook')).rejects.toBeInstanceOf(OngeldigDoel);
    // Another public address: another agent (its sockets only ever connect to the address it was made for).
    dns['ontvanger.voorbeeld.nl'] = ['93.184.216.35'];
    const d2 = await nul.doel('https://ontvanger.voorbeeld.nl/hook');
    expect(nul.agent(d2)).not.toBe(nul.agent(d1));
    expect(nul.agent(d2)).toBe(nul.agent(d2));
    kort.sluit();
    nul.sluit();
  });

  it('concurrent sends to one URL share one lookup; a failed lookup is not reused', async () => {
    let opgezocht = 0;
    let antwoord: string[] = [];
    const resolver: Resolver = async () => {
      opgezocht++;
      await new Promise((r) => setTimeout(r, 50));
      return antwoord.map((address) => ({ address, family: 4 as const }));
    };
    const v = new Verbindingen({ onveilig: false, resolver, geldigMs: 60_000 });
    const fout = await Promise.allSettled(Array.from({ length: 8 }, () => v.doel('https://ontvanger.voorbeeld.nl/hook')));
    expect(fout.every((x) => x.status === 'rejected' && x.reason instanceof OngeldigDoel)).toBe(true);
    expect(opgezocht).toBe(1);
    antwoord = ['93.184.216.34'];
    const doelen = await Promise.all(Array.from({ length: 8 }, () => v.doel('https://ontvanger.voorbeeld.nl/hook')));
    expect(opgezocht).toBe(2);
    expect(new Set(doelen.map((d) => d.adres.address))).toEqual(new Set(['93.184.216.34']));
    v.sluit();
  });
});
