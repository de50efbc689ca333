import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { maakAccount } from '../../src/domain/billing/tegoed.ts';
import { maakSleutel } from '../../src/domain/keys/sleutels.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { maakVolledigAdres } from '../support/register.ts';
import { startServer, startServersTegelijk, verzoek, type ServerProces } from '../support/server.ts';
import { GEEN_SCHENDINGEN, verbruikPerAccount, zoekSchendingen } from './invarianten.ts';

/**
 * SIGKILL of server processes during MCP tool calls (decisions section 5: an MCP call holds no claim;
 * its answer is stored by the statement that charges it). Two `insight serve` processes take a stream of
 * tool calls over a small set of argument sets, so identical calls meet all the time (at once, and
 * later as replays), from two accounts of which one runs out of credits; one process after the other
 * is killed mid-load and started again. Afterwards every argument set is called twice more: the second
 * call is always an uncharged replay of the same data; each stored answer was charged exactly once
 * (one usage row per stored answer, none without one); the money invariants hold in SQL.
 */
const KILLS = Number(process.env.FAULT_KILLS ?? 4);
const WERKERS = 8;
const TOOLS = ['woz', 'property_address', 'influences'] as const;

interface Klant {
  naam: string;
  accountId: string;
  keyId: string;
  key: string;
}

interface ToolAntwoord {
  http: number;
  isError: boolean;
  inhoud: { status?: number; fout?: string; data?: unknown; meta?: { cached: boolean; gefactureerd_cent: number } };
}

const wacht = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function roep(url: string, key: string, tool: string, args: Record<string, unknown>): Promise<ToolAntwoord> {
  const r = await verzoek(url, 'POST', '/mcp', {
    key,
    headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } },
  });
  const b = r.body as { result?: { isError?: boolean; structuredContent: ToolAntwoord['inhoud'] } };
  return { http: r.status, isError: b.result ? (b.result.isError ?? false) : true, inhoud: b.result?.structuredContent ?? (r.body as ToolAntwoord['inhoud']) };
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('SIGKILL of server processes during MCP tool calls (PostgreSQL)', () => {
  let db: TestDatabase;
  const alle: ServerProces[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(alle.map((s) => s.stop()));
    await db?.close();
  });

  it(`${KILLS} × SIGKILL mid-load: identical calls charged once, replays uncharged and identical, the money invariants hold`, async () => {
    const env = { RATE_LIMIT_MCP_TOOLS_PER_MIN: '1000000', RATE_LIMIT_MCP_PROTOCOL_PER_MIN: '1000000' };
    const gestart = await startServersTegelijk(db.url, 2, env);
    alle.push(...gestart.servers);
    expect(gestart.fouten).toEqual([]);
    const slots: (ServerProces | null)[] = [...gestart.servers];
    const lopend = [0, 0];

    async function klant(naam: string, credits: number): Promise<Klant> {
      const acc = await maakAccount(db.prisma, { naam, credits });
      const s = await maakSleutel(db.prisma, { accountId: acc.id, naam, now: new Date() });
      const keyId = (await db.prisma.apiKey.findFirstOrThrow({ where: { accountId: acc.id } })).id;
      return { naam, accountId: acc.id, keyId, key: s.key };
    }
    // "ruim" pays for every call; "krap" runs out during the load (402 from then on, replays stay free).
    const ruim = await klant('ruim', 100_000);
    const krap = await klant('krap', 8);
    const adressen = await Promise.all(Array.from({ length: 6 }, () => maakVolledigAdres(db.prisma)));
    const oproepen = adressen.flatMap((a) => TOOLS.map((tool) => ({ tool, args: { postcode: a.postcode, huisnummer: a.huisnummer } })));

    const uitkomsten: Record<string, number> = {};
    const tel = (u: string) => {
      uitkomsten[u] = (uitkomsten[u] ?? 0) + 1;
    };
    const onverwacht: string[] = [];
    let volgnummer = 0;
    let sindsHerstart = 0;
    let stoppen = false;

    const werkers = Array.from({ length: WERKERS }, async () => {
      while (!stoppen) {
        const i = volgnummer++;
        const levend = slots.flatMap((s, n) => (s ? [n] : []));
        const slot = levend[i % levend.length];
        const s = slots[slot];
        const k = i % 3 === 2 ? krap : ruim;
        const o = oproepen[(i >> 1) % oproepen.length];
        if (!s) continue;
        lopend[slot]++;
        try {
          const r = await roep(s.url, k.key, o.tool, o.args);
          sindsHerstart++;
          if (r.http !== 200 || (r.isError && r.inhoud.status !== 402)) onverwacht.push(`${r.http} ${JSON.stringify(r.inhoud)}`);
          tel(r.isError ? String(r.inhoud.status) : r.inhoud.meta?.cached ? 'herhaling' : 'nieuw');
        } catch {
          tel('verbroken');
        } finally {
          lopend[slot]--;
        }
        await wacht(10);
      }
    });

    const herstartMs: number[] = [];
    try {
      for (let n = 0; n < KILLS; n++) {
        const slot = n % 2;
        while (sindsHerstart < 60 || lopend[slot] === 0) await wacht(5);
        process.kill(slots[slot]!.pid, 'SIGKILL');
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
    expect(onverwacht).toEqual([]);

    // Every argument set twice more on a live process: the second call is a replay of the first's data.
    const url = slots[0]!.url;
    for (const k of [ruim, krap]) {
      for (const o of oproepen) {
        const eerste = await roep(url, k.key, o.tool, o.args);
        const tweede = await roep(url, k.key, o.tool, o.args);
        if (k === ruim || !eerste.isError) {
          expect(eerste.isError, `${k.naam} ${o.tool}: ${JSON.stringify(eerste.inhoud)}`).toBe(false);
          expect(tweede.isError).toBe(false);
          expect(tweede.inhoud.meta).toMatchObject({ cached: true, gefactureerd_cent: 0 });
          expect(tweede.inhoud.data).toEqual(eerste.inhoud.data);
        } else {
          // krap without credits and without a stored answer for these arguments: refused alike, twice.
          expect([eerste.inhoud.status, tweede.inhoud.status]).toEqual([402, 402]);
        }
      }
    }

    // Charged exactly once per stored answer: usage rows of 200 per key = stored MCP answers of 200 per key.
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      for (const k of [ruim, krap]) {
        const { rows } = await c.query(
          `SELECT (SELECT count(*) FROM verbruik WHERE key_id = $1 AND kanaal = 'mcp' AND status = 200)::int AS verbruik,
                  (SELECT count(*) FROM idempotentie WHERE key_id = $1 AND scope = 'mcp' AND status = 200)::int AS opgeslagen`,
          [k.keyId],
        );
        expect(rows[0].verbruik, k.naam).toBe(rows[0].opgeslagen);
        expect(rows[0].opgeslagen, k.naam).toBeLessThanOrEqual(oproepen.length);
      }
    } finally {
      await c.end();
    }
    expect((await verbruikPerAccount(db.url, krap.accountId)).saldo).toBeGreaterThanOrEqual(0);
    expect(await zoekSchendingen(db.url)).toEqual(GEEN_SCHENDINGEN);
    console.log(`mcp-sigkill: ${volgnummer} tool calls over 2 processes, ${JSON.stringify(uitkomsten)}; ${KILLS} × SIGKILL, restarted in ${herstartMs.join(', ')} ms`);
  });
});
