import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from './support/db.ts';
import { startServer, verzoek, type ServerProces } from './support/server.ts';
import { startOntvanger, type Ontvanger } from './support/ontvanger.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { maakSleutel } from '../src/domain/keys/sleutels.ts';

/**
 * Webhook delivery across real server processes on one PostgreSQL database: a SIGKILL in the middle of
 * a burst loses no event and duplicates none (per webhook-id), and two processes never send one row at once.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('webhook delivery across server processes (postgres)', () => {
  const db = useTestDatabase();
  const gestart: ServerProces[] = [];
  let r: Ontvanger;
  const env = { WEBHOOK_ALLOW_INSECURE: 'true', RATE_LIMIT_REST_PER_MIN: '100000' };
  beforeAll(async () => {
    r = await startOntvanger({ vertragingMs: 20 });
  });
  afterAll(async () => {
    await Promise.all(gestart.map((s) => s.stop()));
    await r?.sluit();
  });

  async function klant(credits: number) {
    const acc = await maakAccount(db.prisma, { naam: `wh-${Math.random()}`, credits });
    await db.prisma.account.update({ where: { id: acc.id }, data: { drempelCredits: 0 } });
    const k = await maakSleutel(db.prisma, { accountId: acc.id, naam: 'wh', now: new Date() });
    return { accountId: acc.id, key: k.key };
  }

  async function wachtTot(test: () => Promise<boolean>, ms: number, wat: string) {
    const tot = Date.now() + ms;
    while (!(await test())) {
      if (Date.now() > tot) throw new Error(`niet binnen ${ms} ms: ${wat}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  it('SIGKILL during a burst of 500 charged calls, then restart: every committed usage record has exactly one delivered event', async () => {
    const a = await startServer(db.url, env);
    gestart.push(a);
    const { accountId, key } = await klant(10_000);
    const reg = await verzoek(a.url, 'POST', '/api/v1/webhooks', { key, body: { url: `${r.base}/crash/ok`, events: ['inzicht.voltooid'] } });
    expect(reg.status, JSON.stringify(reg.body)).toBe(200);
    const adres = await maakVolledigAdres(db.prisma);
    let klaar = 0;
    const oproepen = Array.from({ length: 500 }, async (_, i) => {
      await new Promise((res) => setTimeout(res, i * 2));
      try {
        const res = await verzoek(a.url, 'POST', '/api/v1/inzicht/woz', { key, body: adresBody(adres) });
        if (res.status === 200) klaar++;
      } catch {
        // the process is gone
      }
    });
    await wachtTot(async () => klaar >= 150, 60_000, '150 oproepen');
    process.kill(a.pid, 'SIGKILL');
    await Promise.all(oproepen);
    const b = await startServer(db.url, env);
    gestart.push(b);
    const usage = await db.prisma.usageRecord.findMany({ where: { accountId }, select: { id: true } });
    expect(usage.length).toBeGreaterThanOrEqual(150);
    expect(usage.length).toBeLessThan(500);
    // Rows the killed process had claimed come back when their lease (timeout + 5 s) runs out.
    await wachtTot(
      async () => (await db.prisma.webhookDelivery.count({ where: { endpoint: { accountId }, toestand: { not: 'afgeleverd' } } })) === 0,
      60_000,
      'alles afgeleverd',
    );
    const perId = new Map<string, string>();
    for (const o of r.van('/crash/ok')) {
      const verzoekId = (JSON.parse(o.body) as { data: { verzoek_id: string } }).data.verzoek_id;
      const eerder = perId.get(String(o.headers['webhook-id']));
      if (eerder) expect(eerder).toBe(verzoekId);
      perId.set(String(o.headers['webhook-id']), verzoekId);
    }
    const ontvangenVerzoeken = [...perId.values()];
    expect(new Set(ontvangenVerzoeken).size).toBe(ontvangenVerzoeken.length);
    expect(new Set(ontvangenVerzoeken)).toEqual(new Set(usage.map((u) => u.id)));
    expect((await db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(10_000 - usage.length);
  }, 180_000);

  it('two processes on one database never send the same delivery row at the same time', async () => {
    const [p1, p2] = await Promise.all([startServer(db.url, env), startServer(db.url, env)]);
    gestart.push(p1, p2);
    const { key } = await klant(10);
    const reg = await verzoek(p1.url, 'POST', '/api/v1/webhooks', { key, body: { url: `${r.base}/twee/ok`, events: ['inzicht.voltooid'] } });
    expect(reg.status).toBe(200);
    const id = reg.body.data.id as string;
    await Promise.all(Array.from({ length: 200 }, (_, i) => verzoek(i % 2 ? p1.url : p2.url, 'POST', `/api/v1/webhooks/${id}/test`, { key, body: {} })));
    await r.wacht('/twee/ok', 200, 60_000);
    await new Promise((res) => setTimeout(res, 500));
    const ids = r.van('/twee/ok').map((o) => String(o.headers['webhook-id']));
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
    expect(r.maxGelijktijdigPerId).toBe(1);
  }, 120_000);
});
