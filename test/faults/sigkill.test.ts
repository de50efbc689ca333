import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maakAccount } from '../../src/domain/billing/tegoed.ts';
import { maakSleutel } from '../../src/domain/keys/sleutels.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { startOntvanger, type Ontvanger } from '../support/ontvanger.ts';
import { adresBody, maakVolledigAdres } from '../support/register.ts';
import { startServer, startServersTegelijk, verzoek, type HttpAntwoord, type ServerProces } from '../support/server.ts';
import { GEEN_SCHENDINGEN, verbruikPerAccount, zoekSchendingen } from './invarianten.ts';

/**
 * Issue 12: SIGKILL of a server process during charged load, repeated. Two `insight serve` processes on
 * one PostgreSQL database take a steady stream of charged calls (woz and adres, half of them with an
 * Idempotency-Key, two accounts of which one runs out of credits), while one process after the other is
 * killed with SIGKILL in the middle of it (FAULT_KILLS times, default 4) and started again. Afterwards:
 * - every idempotent call is retried with its key: an answer it had before comes back identical; one
 *   lost in a kill now gets an answer (after 409 while the dead process's claim is abandoned), and a
 *   second retry repeats it;
 * - per account, usage rows = the distinct charged answers seen, plus at most the calls without a key
 *   that were cut off by a kill (their charge may have committed before the answer went out);
 * - the invariants in SQL (invarianten.ts): no negative balance, ledger = balance, one debit per usage
 *   row and back, every webhook event belongs to a committed usage row and every usage row has one,
 *   an idempotent key charged at most once, a completed claim has its stored answer.
 */
const KILLS = Number(process.env.FAULT_KILLS ?? 4);
const WERKERS = 8;
const PADEN = ['/api/v1/inzicht/woz', '/api/v1/inzicht/adres'] as const;

interface Klant {
  naam: string;
  accountId: string;
  key: string;
}

interface IdemOproep {
  klant: Klant;
  pad: string;
  sleutel: string;
  eerste?: HttpAntwoord;
}

/** An answer without the two meta fields a replay sets (cached, gefactureerd_cent). */
function zonderReplay(body: unknown): unknown {
  const b = body as { meta?: Record<string, unknown> };
  if (!b?.meta) return body;
  const { cached: _c, gefactureerd_cent: _g, ...meta } = b.meta;
  return { ...b, meta };
}

const wacht = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!process.env.TEST_DATABASE_URL)('SIGKILL of server processes during charged load (PostgreSQL)', () => {
  let db: TestDatabase;
  let ontvanger: Ontvanger;
  const alle: ServerProces[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
    ontvanger = await startOntvanger();
  });
  afterAll(async () => {
    await Promise.all(alle.map((s) => s.stop()));
    await ontvanger?.sluit();
    await db?.close();
  });

  it(`${KILLS} × SIGKILL mid-load on 2 processes: idempotent retries answer the same, each charge once, the money invariants hold in SQL`, async () => {
    const env = { WEBHOOK_ALLOW_INSECURE: 'true', RATE_LIMIT_REST_PER_MIN: '1000000' };
    const gestart = await startServersTegelijk(db.url, 2, env);
    alle.push(...gestart.servers);
    expect(gestart.fouten).toEqual([]);
    const slots: (ServerProces | null)[] = [...gestart.servers];
    const lopend = [0, 0];

    async function klant(naam: string, credits: number): Promise<Klant> {
      const acc = await maakAccount(db.prisma, { naam, credits });
      const { key } = await maakSleutel(db.prisma, { accountId: acc.id, naam, now: new Date() });
      const reg = await verzoek(gestart.servers[0].url, 'POST', '/api/v1/webhooks', { key, body: { url: `${ontvanger.base}/sigkill/ok`, events: ['inzicht.voltooid'] } });
      expect(reg.status, JSON.stringify(reg.body)).toBe(200);
      return { naam, accountId: acc.id, key };
    }
    // "ruim" can pay for every call; "krap" runs out during the load (402s from then on; balance must stop at 0).
    const ruim = await klant('ruim', 100_000);
    const krap = await klant('krap', 150);
    const adres = await maakVolledigAdres(db.prisma);
    const body = adresBody(adres);

    const perPad: Record<string, Record<string, number>> = {};
    const tel = (pad: string, uitkomst: string) => {
      perPad[pad] ??= {};
      perPad[pad][uitkomst] = (perPad[pad][uitkomst] ?? 0) + 1;
    };
    const idem: IdemOproep[] = [];
    /** Per account: charged answers seen without a key, and calls without a key cut off by a kill. */
    const zonderSleutel = new Map<Klant, { ok: number; verbroken: number }>([[ruim, { ok: 0, verbroken: 0 }], [krap, { ok: 0, verbroken: 0 }]]);
    const serverfouten: string[] = [];
    let volgnummer = 0;
    let sindsHerstart = 0;
    let stoppen = false;

    async function stuur(slot: number, k: Klant, pad: string, sleutel?: string): Promise<HttpAntwoord> {
      const s = slots[slot];
      if (!s) throw new Error('geen server');
      lopend[slot]++;
      try {
        return await verzoek(s.url, 'POST', pad, { key: k.key, body, headers: sleutel ? { 'idempotency-key': sleutel } : {} });
      } finally {
        lopend[slot]--;
      }
    }

    const werkers = Array.from({ length: WERKERS }, async () => {
      while (!stoppen) {
        const i = volgnummer++;
        const levend = slots.flatMap((s, n) => (s ? [n] : []));
        const slot = levend[i % levend.length];
        const k = i % 3 === 2 ? krap : ruim;
        const pad = PADEN[i % 2];
        const oproep: IdemOproep | undefined = (i >> 1) % 2 === 0 ? { klant: k, pad, sleutel: `sigkill-${i}` } : undefined;
        try {
          const r = await stuur(slot, k, pad, oproep?.sleutel);
          tel(pad, String(r.status));
          sindsHerstart++;
          if (r.status >= 500) serverfouten.push(`${r.status} ${JSON.stringify(r.body)}`);
          if (oproep) oproep.eerste = r;
          else if (r.status === 200) zonderSleutel.get(k)!.ok++;
        } catch {
          tel(pad, 'verbroken');
          if (!oproep) zonderSleutel.get(k)!.verbroken++;
        }
        if (oproep) idem.push(oproep);
        await wacht(25);
      }
    });

    const kills: { slot: number; inFlight: number }[] = [];
    const herstartMs: number[] = [];
    try {
      for (let k = 0; k < KILLS; k++) {
        const slot = k % 2;
        // Mid-load: after a stretch of answers, and only with requests in flight on the victim.
        while (sindsHerstart < 60 || lopend[slot] === 0) await wacht(5);
        const slachtoffer = slots[slot]!;
        kills.push({ slot, inFlight: lopend[slot] });
        process.kill(slachtoffer.pid, 'SIGKILL');
        slots[slot] = null;
        const t0 = performance.now();
        const nieuw = await startServer(db.url, env);
        alle.push(nieuw);
        herstartMs.push(Math.round(performance.now() - t0));
        slots[slot] = nieuw;
        sindsHerstart = 0;
      }
      while (sindsHerstart < 60) await wacht(5);
    } finally {
      stoppen = true;
      await Promise.all(werkers);
    }

    // Every idempotent call again, with its key: the same answer, or (cut off before) now one.
    let na409 = 0;
    const tot = Date.now() + 120_000;
    async function herhaal(o: IdemOproep): Promise<HttpAntwoord> {
      for (;;) {
        const r = await stuur(0, o.klant, o.pad, o.sleutel);
        if (r.status !== 409) return r;
        // The killed process's claim: taken over once its request's deadline has passed (REQUEST_TIMEOUT_MS + DB_QUERY_TIMEOUT_MS).
        na409++;
        if (Date.now() > tot) return r;
        await wacht(1000 * Number(r.headers.get('retry-after') ?? 1));
      }
    }
    const herhaald: { o: IdemOproep; tweede: HttpAntwoord; derde?: HttpAntwoord }[] = [];
    let volgende = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (volgende < idem.length) {
          const o = idem[volgende++];
          const tweede = await herhaal(o);
          herhaald.push({ o, tweede, derde: o.eerste ? undefined : await herhaal(o) });
        }
      }),
    );
    expect(serverfouten).toEqual([]);
    const verloren = herhaald.filter((h) => !h.o.eerste).length;
    for (const { o, tweede, derde } of herhaald) {
      // The retry of a stored (200) answer is its replay (decisions section 5): the same status and data,
      // meta.cached true, meta.gefactureerd_cent 0, Idempotent-Replayed: true. A 402 is not stored: refused again alike.
      const [eerder, later] = o.eerste ? [o.eerste, tweede] : [tweede, derde!];
      expect(later.status, `${o.sleutel}: ${JSON.stringify(later.body)}`).toBe(eerder.status);
      expect(zonderReplay(later.body), o.sleutel).toEqual(zonderReplay(eerder.body));
      expect([200, 402]).toContain(later.status);
      if (o.klant === ruim) expect(later.status).toBe(200);
      if (later.status === 200) {
        expect(later.headers.get('idempotent-replayed'), o.sleutel).toBe('true');
        expect(later.body.meta).toMatchObject({ cached: true, gefactureerd_cent: 0 });
      }
    }

    const samenvatting = [];
    for (const k of [ruim, krap]) {
      const { verbruik, credits, saldo } = await verbruikPerAccount(db.url, k.accountId);
      const idemOk = herhaald.filter((h) => h.o.klant === k && h.tweede.status === 200).length;
      const z = zonderSleutel.get(k)!;
      samenvatting.push(`${k.naam}: ${verbruik} verbruiksregels (${idemOk} idempotent, ${z.ok} zonder sleutel gezien, ${z.verbroken} zonder sleutel verbroken), saldo ${saldo}`);
      expect(verbruik).toBeGreaterThanOrEqual(idemOk + z.ok);
      expect(verbruik).toBeLessThanOrEqual(idemOk + z.ok + z.verbroken);
      expect(credits).toBe(verbruik);
    }
    expect((await verbruikPerAccount(db.url, krap.accountId)).saldo).toBe(0);
    expect(await zoekSchendingen(db.url)).toEqual(GEEN_SCHENDINGEN);

    console.log(
      `sigkill: ${volgnummer} verzoeken over 2 processen, per pad ${JSON.stringify(perPad)}; ${kills.length} × SIGKILL ` +
        `(in behandeling bij de kill: ${kills.map((k) => k.inFlight).join(', ')}; herstart in ${herstartMs.join(', ')} ms); ` +
        `${idem.length} idempotente verzoeken herhaald (${verloren} zonder eerste antwoord, ${na409} × 409 tijdens het wachten op een verlaten claim); ${samenvatting.join('; ')}`,
    );
  });
});
