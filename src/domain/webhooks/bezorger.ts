/**
 * The delivery worker, inside the service process. It claims due deliveries with
 * `SELECT ... FOR UPDATE SKIP LOCKED` (several processes on one PostgreSQL never take the same row) and
 * marks them `bezig` with a lease (`geclaimd_tot`): a process that dies mid-send leaves a row that is
 * claimed again when the lease runs out — at-least-once, the same webhook-id every time.
 *
 * Woken right after a commit that wrote deliveries (in-process signal; LISTEN on PostgreSQL for other
 * processes), with polling as the fallback. Bounded concurrency overall and per endpoint, so one slow
 * receiver holds at most MAX_PER_ENDPOINT of the MAX_TOTAAL slots. Retry schedule of decisions section 7
 * with ±10 % jitter; 410 disables the endpoint at once; failing for 5 days disables it with a reason.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Database, Db } from '../../db/client.ts';
import type { Services } from '../../core/context.ts';
import type { Resolver } from './doeladres.ts';
import { afleverUitkomsten, luisterNaarAfleveringen, meldNieuweAfleveringen, tijdstempel } from './gebeurtenissen.ts';
import { TIMEOUT_MS, verstuur, type Uitslag } from './verzenden.ts';

/** Wait after failed attempt n (1-based): attempt 1 is immediate, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const SCHEMA_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000];
export const MAX_POGINGEN = SCHEMA_MS.length + 1;
export const UITSCHAKELEN_NA_MS = 5 * 24 * 3600_000;
/** A claim outlives the send timeout by this much; after it the row counts as abandoned (its process died) and is claimed again. */
const LEASE_MARGE_MS = 5_000;

export interface BezorgerOpties {
  db: Db;
  now: () => Date;
  log: Logger;
  onveilig: boolean;
  resolver?: Resolver;
  maxTotaal?: number;
  maxPerEndpoint?: number;
  pollMs?: number;
  timeoutMs?: number;
  /** 0..1; jitter source (tests pass a fixed one). */
  random?: () => number;
  /** PostgreSQL: a plain connection for LISTEN webhook_aflevering (other processes' commits). */
  luisterVerbinding?: () => Promise<pg.Client>;
  /** Run the sleutel.verloopt check this often (ms); 0: never. */
  verloopControleMs?: number;
}

interface Claim {
  id: string;
  event_id: string;
  endpoint_id: string;
  pogingen: number;
  body: string;
  url: string;
  geheim: string;
  vorig_geheim: string | null;
  vorig_geheim_tot: Date | null;
}

export function wachttijd(poging: number, random: () => number): number {
  const basis = SCHEMA_MS[Math.min(poging, SCHEMA_MS.length) - 1];
  return Math.round(basis * (0.9 + 0.2 * random()));
}

export class Bezorger {
  private readonly o: Required<Omit<BezorgerOpties, 'resolver' | 'luisterVerbinding'>> & Pick<BezorgerOpties, 'resolver' | 'luisterVerbinding'>;
  private readonly bezig = new Map<string, Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  private readonly stop = new AbortController();
  private gestopt = false;
  private pompt = false;
  private nogEens = false;
  private timer?: NodeJS.Timeout;
  private verloopTimer?: NodeJS.Timeout;
  private losmaken?: () => void;
  private luisteraar?: pg.Client;

  constructor(o: BezorgerOpties) {
    this.o = { maxTotaal: 64, maxPerEndpoint: 8, pollMs: 1000, timeoutMs: TIMEOUT_MS, random: Math.random, verloopControleMs: 60_000, ...o };
  }

  async start(): Promise<void> {
    this.losmaken = luisterNaarAfleveringen(() => this.wek());
    if (this.o.luisterVerbinding) {
      try {
        const c = await this.o.luisterVerbinding();
        c.on('notification', () => this.wek());
        c.on('error', (err) => this.o.log.warn({ err }, 'webhooks: LISTEN-verbinding verbroken; alleen polling'));
        await c.query('LISTEN webhook_aflevering');
        this.luisteraar = c;
      } catch (err) {
        this.o.log.warn({ err }, 'webhooks: LISTEN niet mogelijk; alleen polling');
      }
    }
    this.timer = setInterval(() => this.wek(), this.o.pollMs);
    this.timer.unref();
    if (this.o.verloopControleMs > 0) {
      const controle = () => void meldVerlopendeSleutels(this.o.db, this.o.now()).catch((err) => this.o.log.warn({ err }, 'webhooks: verloopcontrole mislukt'));
      this.verloopTimer = setInterval(controle, this.o.verloopControleMs);
      this.verloopTimer.unref();
      controle();
    }
    this.wek();
  }

  /** Claim and send what is due now (coalesced: a wake during a pump runs one more round). */
  wek(): void {
    if (this.gestopt) return;
    if (this.pompt) {
      this.nogEens = true;
      return;
    }
    this.pompt = true;
    void this.pomp()
      .catch((err) => this.o.log.warn({ err }, 'webhooks: claimen mislukt'))
      .finally(() => {
        this.pompt = false;
        if (this.nogEens) {
          this.nogEens = false;
          this.wek();
        }
      });
  }

  /** Deliveries in flight in this process (tests, shutdown). */
  get actief(): number {
    return this.bezig.size;
  }

  /** Resolves once nothing is due or in flight (tests). */
  async leeg(maxMs = 30_000): Promise<void> {
    const tot = Date.now() + maxMs;
    while (Date.now() < tot) {
      if (this.bezig.size === 0 && !this.pompt) {
        const [r] = await this.o.db.$queryRawUnsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM webhook_aflevering l JOIN webhook w ON w.id = l.endpoint_id
           WHERE w.actief AND ((l.toestand = 'wachtend' AND l.volgende_poging <= $1::timestamptz) OR l.toestand = 'bezig')`,
          this.o.now(),
        );
        if (r.n === 0 && this.bezig.size === 0) return;
        this.wek();
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('webhooks: niet leeg binnen de tijd');
  }

  private async pomp(): Promise<void> {
    for (;;) {
      const vrij = this.o.maxTotaal - this.bezig.size;
      if (vrij <= 0 || this.gestopt) return;
      const bezet = [...this.perEndpoint].map(([e, n]) => ({ e, n }));
      const now = this.o.now();
      const rijen = await this.o.db.$queryRawUnsafe<Claim[]>(
        // Candidates per endpoint (at most its free slots) straight off the (endpoint, toestand,
        // volgende_poging) index, so a backlog of thousands costs no sort; then lock what is still due.
        `WITH kandidaat AS (
           SELECT c.id FROM webhook w
           LEFT JOIN jsonb_to_recordset($3::jsonb) AS b(e uuid, n int) ON b.e = w.id
           CROSS JOIN LATERAL (
             SELECT u.id FROM (
               (SELECT l.id FROM webhook_aflevering l
                WHERE l.endpoint_id = w.id AND l.toestand = 'wachtend' AND l.volgende_poging <= $1::timestamptz
                ORDER BY l.volgende_poging LIMIT greatest($4 - coalesce(b.n, 0), 0))
               UNION ALL
               (SELECT l.id FROM webhook_aflevering l
                WHERE l.endpoint_id = w.id AND l.toestand = 'bezig' AND l.geclaimd_tot <= $1::timestamptz
                  AND NOT (l.id::text IN (SELECT jsonb_array_elements_text($6::jsonb)))
                LIMIT greatest($4 - coalesce(b.n, 0), 0))
             ) u LIMIT greatest($4 - coalesce(b.n, 0), 0)
           ) c
           WHERE w.actief
         ), geclaimd AS (
           SELECT l.id FROM webhook_aflevering l
           WHERE l.id IN (SELECT id FROM kandidaat)
             AND ((l.toestand = 'wachtend' AND l.volgende_poging <= $1::timestamptz) OR (l.toestand = 'bezig' AND l.geclaimd_tot <= $1::timestamptz))
           LIMIT $2
           FOR UPDATE OF l SKIP LOCKED
         )
         UPDATE webhook_aflevering l SET toestand = 'bezig', geclaimd_tot = $5::timestamptz, bijgewerkt_op = $1::timestamptz
         FROM geclaimd k, webhook_gebeurtenis g, webhook w
         WHERE l.id = k.id AND g.id = l.event_id AND w.id = l.endpoint_id
         RETURNING l.id, l.event_id, l.endpoint_id, l.pogingen, g.payload::text AS body, w.url, w.geheim, w.vorig_geheim, w.vorig_geheim_tot`,
        now, Math.min(vrij, 100), JSON.stringify(bezet), this.o.maxPerEndpoint, new Date(now.getTime() + this.o.timeoutMs + LEASE_MARGE_MS),
        // Never this process's own rows still in flight, whatever the clock says about their lease.
        JSON.stringify([...this.bezig.keys()]),
      );
      if (rijen.length === 0) return;
      for (const c of rijen) {
        this.perEndpoint.set(c.endpoint_id, (this.perEndpoint.get(c.endpoint_id) ?? 0) + 1);
        const p = this.bezorg(c)
          .catch((err) => this.o.log.error({ err, aflevering: c.id }, 'webhooks: aflevering mislukt'))
          .finally(() => {
            this.bezig.delete(c.id);
            const n = (this.perEndpoint.get(c.endpoint_id) ?? 1) - 1;
            if (n <= 0) this.perEndpoint.delete(c.endpoint_id);
            else this.perEndpoint.set(c.endpoint_id, n);
            this.wek();
          });
        this.bezig.set(c.id, p);
      }
    }
  }

  private async bezorg(c: Claim): Promise<void> {
    const now = this.o.now();
    const geheimen = [c.geheim];
    if (c.vorig_geheim && c.vorig_geheim_tot && new Date(c.vorig_geheim_tot) > now) geheimen.push(c.vorig_geheim);
    const u = await verstuur(
      { id: c.event_id, body: c.body, url: c.url, geheimen },
      { now, onveilig: this.o.onveilig, resolver: this.o.resolver, timeoutMs: this.o.timeoutMs, signal: this.stop.signal },
    );
    if (this.stop.signal.aborted && u.soort === 'fout') {
      // Shutting down: hand the row back untouched (no attempt counted), due at once for the next process.
      await this.o.db.$executeRawUnsafe(`UPDATE webhook_aflevering SET toestand = 'wachtend', geclaimd_tot = NULL WHERE id = $1::uuid AND toestand = 'bezig'`, c.id);
      return;
    }
    await legUitslagVast(this.o.db, c, u, this.o.now(), this.o.random);
    afleverUitkomsten.meld(this.o.db, u.soort === 'ok' ? 'afgeleverd' : u.soort === 'weg' ? 'weg' : c.pogingen + 1 >= MAX_POGINGEN ? 'opgegeven' : 'opnieuw');
  }

  /** Stop claiming; wait for in-flight sends up to `maxMs`, then abort them and hand their rows back. */
  async sluit(maxMs = 5_000): Promise<void> {
    this.gestopt = true;
    clearInterval(this.timer);
    clearInterval(this.verloopTimer);
    this.losmaken?.();
    const alles = Promise.allSettled([...this.bezig.values()]);
    const t = setTimeout(() => this.stop.abort(), maxMs);
    await alles;
    clearTimeout(t);
    this.stop.abort();
    await this.luisteraar?.end().catch(() => {});
  }
}

async function legUitslagVast(db: Db, c: Claim, u: Uitslag, now: Date, random: () => number): Promise<void> {
  const poging = c.pogingen + 1;
  if (u.soort === 'ok') {
    // One statement (no transaction round trips): the row delivered, and the endpoint's failure streak over.
    await db.$executeRawUnsafe(
      `WITH a AS (
         UPDATE webhook_aflevering SET toestand = 'afgeleverd', pogingen = $2, laatste_status = $3, laatste_fout = NULL, geclaimd_tot = NULL, bijgewerkt_op = $4::timestamptz
         WHERE id = $1::uuid RETURNING endpoint_id
       )
       UPDATE webhook w SET falend_sinds = NULL FROM a WHERE w.id = a.endpoint_id AND w.falend_sinds IS NOT NULL`,
      c.id, poging, u.status, now,
    );
    return;
  }
  if (u.soort === 'weg') {
    await db.$transaction([
      db.$executeRawUnsafe(
        `UPDATE webhook_aflevering SET toestand = 'mislukt', pogingen = $2, laatste_status = 410, laatste_fout = 'Ontvanger antwoordde 410 Gone; webhook uitgeschakeld.', geclaimd_tot = NULL, bijgewerkt_op = $3::timestamptz WHERE id = $1::uuid`,
        c.id, poging, now,
      ),
      db.$executeRawUnsafe(
        `UPDATE webhook SET actief = false, uitgeschakeld_op = $2::timestamptz, uitschakel_reden = 'De ontvanger antwoordde 410 Gone.' WHERE id = $1::uuid AND actief`,
        c.endpoint_id, now,
      ),
    ]);
    return;
  }
  const laatste = poging >= MAX_POGINGEN;
  await db.$transaction([
    db.$executeRawUnsafe(
      `UPDATE webhook_aflevering SET toestand = $2, pogingen = $3, laatste_status = $4, laatste_fout = $5, volgende_poging = $6::timestamptz, geclaimd_tot = NULL, bijgewerkt_op = $7::timestamptz WHERE id = $1::uuid`,
      c.id, laatste ? 'mislukt' : 'wachtend', poging, u.status, u.fout.slice(0, 500), laatste ? now : new Date(now.getTime() + wachttijd(poging, random)), now,
    ),
    // The failure streak starts at the first failure since the last success; 5 days of it switches the endpoint off.
    db.$executeRawUnsafe(
      `UPDATE webhook SET falend_sinds = coalesce(falend_sinds, $2::timestamptz),
         actief = CASE WHEN coalesce(falend_sinds, $2::timestamptz) <= $2::timestamptz - make_interval(secs => $3::double precision / 1000) THEN false ELSE actief END,
         uitgeschakeld_op = CASE WHEN actief AND coalesce(falend_sinds, $2::timestamptz) <= $2::timestamptz - make_interval(secs => $3::double precision / 1000) THEN $2::timestamptz ELSE uitgeschakeld_op END,
         uitschakel_reden = CASE WHEN actief AND coalesce(falend_sinds, $2::timestamptz) <= $2::timestamptz - make_interval(secs => $3::double precision / 1000)
           THEN 'Vijf dagen lang geen geslaagde aflevering (laatste fout: ' || left($4, 200) || ').' ELSE uitschakel_reden END
       WHERE id = $1::uuid`,
      c.endpoint_id, now, UITSCHAKELEN_NA_MS, u.fout,
    ),
  ]);
}

/**
 * sleutel.verloopt: 7 days and 1 day before a valid key expires, once each (the stamp on the key row and
 * the event are written in one statement). A key that is already within a day gets only the 1-day event.
 */
export async function meldVerlopendeSleutels(db: Db, now: Date): Promise<number> {
  let n = 0;
  for (const [kolom, dagen, vanaf] of [['verloop_melding_1d_op', 1, 0], ['verloop_melding_op', 7, 1]] as const) {
    const rijen = await db.$queryRawUnsafe<{ id: string }[]>(
      `WITH m AS (
         UPDATE api_sleutel SET ${kolom} = $1::timestamptz
         WHERE ingetrokken_op IS NULL AND ${kolom} IS NULL
           AND verloopt_op > $1::timestamptz + make_interval(days => $4) AND verloopt_op <= $1::timestamptz + make_interval(days => $3)
         RETURNING id, account_id, voorvoegsel, naam, verloopt_op
       )
       SELECT m.id, webhook_schrijf(m.account_id, 'msg_' || replace(gen_random_uuid()::text, '-', ''), 'sleutel.verloopt', $2,
         jsonb_build_object('sleutel_voorvoegsel', m.voorvoegsel, 'naam', m.naam, 'dagen', $3::int,
           'verloopt_op', to_char(m.verloopt_op AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"+00:00"')), $1::timestamptz) AS geschreven
       FROM m`,
      now, tijdstempel(now), dagen, vanaf,
    );
    n += rijen.length;
  }
  if (n) meldNieuweAfleveringen();
  return n;
}

/** The worker of a serving process: the service's clock and settings, LISTEN on PostgreSQL. */
export async function startBezorger(services: Services, db: Pick<Database, 'openRawConnection'>, opts: Partial<BezorgerOpties> = {}): Promise<Bezorger> {
  const b = new Bezorger({
    db: services.db,
    now: services.now,
    log: services.log,
    onveilig: services.config.WEBHOOK_ALLOW_INSECURE,
    resolver: services.webhookResolver,
    luisterVerbinding: db.openRawConnection,
    ...opts,
  });
  await b.start();
  return b;
}
