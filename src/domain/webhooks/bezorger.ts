/**
 * The delivery worker, inside the service process. It claims due deliveries with
 * `SELECT ... FOR UPDATE SKIP LOCKED` (several processes on one PostgreSQL never take the same row) and
 * marks them `bezig` with a lease (`geclaimd_tot`): a process that dies mid-send leaves a row that is
 * claimed again when the lease runs out — at-least-once, the same webhook-id every time.
 *
 * Woken right after a commit that wrote deliveries (in-process signal; LISTEN on PostgreSQL for other
 * processes), with polling as the fallback. Bounded concurrency overall and per endpoint, so one slow
 * receiver cannot starve the others. Retry schedule of decisions section 7 with ±10 % jitter; 410
 * disables the endpoint at once; failing for 5 days disables it with a reason.
 *
 * Throughput under a backlog (measured with `npm run bench:webhooks`): one claim statement takes due rows
 * for every endpoint with free slots at once (each endpoint's rows in turn, so a busy one cannot crowd
 * out the rest); outcomes are written by one statement per batch (whatever finished while the previous
 * batch was being written); connections to a receiver are kept alive (per checked address, see
 * Verbindingen) and each URL's SSRF check is reused for a few seconds. The per-endpoint limit adapts:
 * it starts at `maxPerEndpoint` and grows by one per answer faster than `snelMs` up to
 * `maxPerEndpointSnel`, and halves (never below `maxPerEndpoint`) on a slow answer or a failure — a fast
 * receiver gets more in flight, a slow or failing one stays at the base limit. A receiver above the base
 * limit also keeps a stock of claimed rows, so its sends never wait for a claim's round trip; on
 * PostgreSQL claims and outcomes go over the worker's own two connections, not the request pool.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import { sqlRijen, type Database, type Db } from '../../db/client.ts';
import type { Services } from '../../core/context.ts';
import type { Resolver } from './doeladres.ts';
import { afleverUitkomsten, luisterNaarAfleveringen, meldNieuweAfleveringen, tijdstempel } from './gebeurtenissen.ts';
import { TIMEOUT_MS, Verbindingen, verstuur, type Uitslag } from './verzenden.ts';

/** Wait after failed attempt n (1-based): attempt 1 is immediate, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const SCHEMA_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000];
export const MAX_POGINGEN = SCHEMA_MS.length + 1;
export const UITSCHAKELEN_NA_MS = 5 * 24 * 3600_000;
/** A claim outlives the send timeout by this much; after it the row counts as abandoned (its process died) and is claimed again. */
const LEASE_MARGE_MS = 5_000;
/** A claimed row not sent within this time after its claim is handed back (see bezorg). */
const MAX_WACHT_MS = LEASE_MARGE_MS / 2;
/** After a failed send its endpoint's slot stays taken this much longer (see bezorg). */
const PAUZE_NA_FOUT_MS = 100;
/** Wakes and outcomes within this time are gathered into one claim / one result statement while sends are in flight. */
const SAMENVOEG_MS = 5;
/** At most this many rows per claim statement and per result statement. */
const MAX_PARTIJ = 200;

export interface BezorgerOpties {
  db: Db;
  now: () => Date;
  log: Logger;
  onveilig: boolean;
  resolver?: Resolver;
  /** Deliveries claimed and not yet recorded, per process. */
  maxTotaal?: number;
  /** Sends in flight per endpoint: the base limit (a new, slow or failing receiver). */
  maxPerEndpoint?: number;
  /** The most a receiver that keeps answering fast gets (default: half of maxTotaal). */
  maxPerEndpointSnel?: number;
  /** An answer faster than this raises the endpoint's limit by one. */
  snelMs?: number;
  pollMs?: number;
  timeoutMs?: number;
  /** 0..1; jitter source (tests pass a fixed one). */
  random?: () => number;
  /** PostgreSQL: a plain connection for LISTEN webhook_aflevering (other processes' commits). */
  luisterVerbinding?: () => Promise<pg.Client>;
  /**
   * PostgreSQL: opens the worker's own connections (one for claims, one for outcomes), so its statements
   * never wait for a connection behind the request traffic in the shared pool. Without it (PGlite), or
   * while such a connection is down, the statements go through the pool.
   */
  eigenVerbinding?: () => Promise<pg.Client>;
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

/** One outcome waiting for the next result statement; `terug`: handed back at shutdown, no attempt counted. */
interface Vastlegging {
  c: Claim;
  u: Uitslag | { soort: 'terug' };
  klaar: () => void;
  mislukt: (err: unknown) => void;
}

export function wachttijd(poging: number, random: () => number): number {
  const basis = SCHEMA_MS[Math.min(poging, SCHEMA_MS.length) - 1];
  return Math.round(basis * (0.9 + 0.2 * random()));
}

type Instellingen = Required<Omit<BezorgerOpties, 'resolver' | 'luisterVerbinding' | 'eigenVerbinding' | 'maxPerEndpointSnel'>> &
  Pick<BezorgerOpties, 'resolver' | 'luisterVerbinding' | 'eigenVerbinding'> & { maxPerEndpointSnel: number };

/** One of the worker's own connections, reopened (at most every 5 s) after it broke; the pool meanwhile. */
class EigenVerbinding {
  private client?: pg.Client;
  private opent?: Promise<pg.Client | undefined>;
  private nietVoor = 0;
  private gesloten = false;
  private readonly maak?: () => Promise<pg.Client>;
  private readonly db: Db;
  private readonly log: Logger;

  constructor(maak: (() => Promise<pg.Client>) | undefined, db: Db, log: Logger) {
    this.maak = maak;
    this.db = db;
    this.log = log;
  }

  async rijen<T>(naam: string, tekst: string, waarden: unknown[]): Promise<T[]> {
    const c = await this.verbinding();
    if (!c) return sqlRijen<T>(this.db, tekst, waarden);
    return (await c.query({ name: naam, text: tekst, values: waarden })).rows as T[];
  }

  private verbinding(): Promise<pg.Client | undefined> | pg.Client | undefined {
    if (this.client || !this.maak || this.gesloten) return this.client;
    if (this.opent) return this.opent;
    if (performance.now() < this.nietVoor) return undefined;
    const maak = this.maak;
    this.opent = (async () => {
      try {
        const c = await maak();
        const weg = () => {
          if (this.client === c) this.client = undefined;
        };
        c.on('error', (err) => {
          this.log.warn({ err }, 'webhooks: eigen verbinding verbroken; via de pool tot hij terug is');
          weg();
        });
        c.on('end', weg);
        if (this.gesloten) {
          await c.end().catch(() => {});
          return undefined;
        }
        this.client = c;
        return c;
      } catch (err) {
        this.log.warn({ err }, 'webhooks: eigen verbinding niet te openen; via de pool');
        this.nietVoor = performance.now() + 5_000;
        return undefined;
      } finally {
        this.opent = undefined;
      }
    })();
    return this.opent;
  }

  async sluit(): Promise<void> {
    this.gesloten = true;
    await this.opent;
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => {});
  }
}

export class Bezorger {
  private readonly o: Instellingen;
  /** Claimed rows of this process until their outcome is written (the overall bound; never claimed again by us meanwhile). */
  private readonly bezig = new Map<string, Promise<void>>();
  /** Rows claimed per endpoint until their outcome is written (the claim's per-endpoint bound). */
  private readonly geclaimdPer = new Map<string, number>();
  /** Sends in flight per endpoint, and in all. */
  private readonly perEndpoint = new Map<string, number>();
  private lopend = 0;
  /** Claimed rows waiting for a send slot (first come, first served per endpoint), and their number per endpoint. */
  private readonly wachtenden: { e: string; klaar: (mag: boolean) => void }[] = [];
  private readonly wachtendPer = new Map<string, number>();
  /** The adaptive per-endpoint limit, for endpoints above the base limit. */
  private readonly limiet = new Map<string, number>();
  private readonly wachtrij: Vastlegging[] = [];
  private schrijft = false;
  private readonly verbindingen: Verbindingen;
  private readonly stop = new AbortController();
  private gestopt = false;
  private pompt = false;
  private nogEens = false;
  private laatsteHerstel = Number.NEGATIVE_INFINITY;
  /** Since when claiming fails and how often since: logged when it starts and when it ends, not per poll. */
  private claimStoring: { sinds: number; mislukt: number } | null = null;
  private pomping: Promise<void> = Promise.resolve();
  private gepland?: NodeJS.Timeout;
  private schrijfGepland?: NodeJS.Timeout;
  private timer?: NodeJS.Timeout;
  private verloopTimer?: NodeJS.Timeout;
  private losmaken?: () => void;
  private luisteraar?: pg.Client;
  private readonly claimVerbinding: EigenVerbinding;
  private readonly uitslagVerbinding: EigenVerbinding;

  constructor(o: BezorgerOpties) {
    const maxTotaal = o.maxTotaal ?? 64;
    const maxPerEndpoint = o.maxPerEndpoint ?? 8;
    this.o = {
      maxTotaal,
      maxPerEndpoint,
      pollMs: 1000,
      timeoutMs: TIMEOUT_MS,
      random: Math.random,
      verloopControleMs: 60_000,
      snelMs: 500,
      ...o,
      maxPerEndpointSnel: Math.min(maxTotaal, Math.max(maxPerEndpoint, o.maxPerEndpointSnel ?? Math.floor(maxTotaal / 2))),
    };
    this.verbindingen = new Verbindingen({ onveilig: this.o.onveilig, resolver: this.o.resolver });
    this.claimVerbinding = new EigenVerbinding(this.o.eigenVerbinding, this.o.db, this.o.log);
    this.uitslagVerbinding = new EigenVerbinding(this.o.eigenVerbinding, this.o.db, this.o.log);
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

  /**
   * Claim and send what is due (coalesced: a wake during a pump runs one more round). With sends in
   * flight, wakes within SAMENVOEG_MS are gathered into one claim (a fast receiver has claimed stock to
   * send meanwhile); an idle worker claims at once, so a lone event still goes out within milliseconds.
   */
  wek(): void {
    if (this.gestopt || this.gepland) return;
    if (this.lopend > 0 && !this.pompt) {
      this.gepland = setTimeout(() => {
        this.gepland = undefined;
        this.wekNu();
      }, SAMENVOEG_MS);
      return;
    }
    this.wekNu();
  }

  private wekNu(): void {
    if (this.gestopt) return;
    if (this.pompt) {
      this.nogEens = true;
      return;
    }
    this.pompt = true;
    this.pomping = this.pomp()
      .then(() => {
        if (!this.claimStoring) return;
        this.o.log.warn({ mislukt: this.claimStoring.mislukt, duurMs: Date.now() - this.claimStoring.sinds }, 'webhooks: claimen lukt weer');
        this.claimStoring = null;
      })
      .catch((err) => {
        if (this.claimStoring) this.claimStoring.mislukt++;
        else {
          this.claimStoring = { sinds: Date.now(), mislukt: 1 };
          this.o.log.warn({ err }, 'webhooks: claimen mislukt; opnieuw bij elke poll, gemeld als het weer lukt');
        }
      })
      .finally(() => {
        this.pompt = false;
        if (this.nogEens) {
          this.nogEens = false;
          this.wek();
        }
      });
  }

  /** Deliveries claimed by this process and not yet recorded (tests, shutdown). */
  get actief(): number {
    return this.bezig.size;
  }

  /** The current send limit of one endpoint in this process. */
  limietVan(endpointId: string): number {
    return this.limiet.get(endpointId) ?? this.o.maxPerEndpoint;
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
      // Claimed and not yet recorded: at most twice the send bound (room for the fast endpoints' stock).
      const vrij = Math.min(2 * this.o.maxTotaal - this.bezig.size, MAX_PARTIJ);
      if (vrij <= 0 || this.gestopt) return;
      // What each endpoint this process knows may still claim: its send limit plus, for a receiver that
      // proved fast (limit above the base), a stock of twice as many claimed rows (ready to go, or sent and
      // awaiting the next outcome statement), so its sends never wait for a claim's or an outcome's round
      // trip; minus what it holds claimed. Unknown endpoints: the base limit.
      const bekend = new Set([...this.geclaimdPer.keys(), ...this.limiet.keys()]);
      const ruimte = [...bekend].map((e) => {
        const limiet = this.limietVan(e);
        const voorraad = limiet > this.o.maxPerEndpoint ? 2 * limiet : 0;
        return { e, vrij: Math.max(0, limiet + voorraad - (this.geclaimdPer.get(e) ?? 0)) };
      });
      const now = this.o.now();
      // Rows whose lease ran out (their process died) are looked for once per poll interval, not in every
      // claim: under a backlog that index range is mostly dead entries of rows already delivered.
      const herstel = performance.now() - this.laatsteHerstel >= this.o.pollMs;
      if (herstel) this.laatsteHerstel = performance.now();
      const rijen = await this.claimVerbinding.rijen<Claim>(
        'webhook_claim',
        // Per endpoint, at most its free room of due rows, locked (SKIP LOCKED) straight off the
        // (endpoint, toestand, volgende_poging) index in that index's order, so a backlog of thousands costs
        // no sort and no scan; with $7 also rows of a dead process whose lease ran out. Then each endpoint's
        // first row before any endpoint's second (rang), up to the overall free room. Candidates locked and
        // not taken are free again when the statement ends.
        `WITH kandidaat AS MATERIALIZED (
           SELECT w.id AS endpoint_id, coalesce(b.vrij, $4::int) AS vrij, c.id, c.volgende_poging FROM webhook w
           LEFT JOIN jsonb_to_recordset($3::jsonb) AS b(e uuid, vrij int) ON b.e = w.id
           CROSS JOIN LATERAL (
             SELECT l.id, l.volgende_poging FROM webhook_aflevering l
             WHERE l.endpoint_id = w.id AND l.toestand = 'wachtend' AND l.volgende_poging <= $1::timestamptz
             ORDER BY l.volgende_poging LIMIT coalesce(b.vrij, $4::int)
             FOR UPDATE SKIP LOCKED
           ) c
           WHERE w.actief
           UNION ALL
           SELECT w.id, coalesce(b.vrij, $4::int), c.id, c.volgende_poging FROM webhook w
           LEFT JOIN jsonb_to_recordset($3::jsonb) AS b(e uuid, vrij int) ON b.e = w.id
           CROSS JOIN LATERAL (
             SELECT l.id, l.volgende_poging FROM webhook_aflevering l
             WHERE l.endpoint_id = w.id AND l.toestand = 'bezig' AND l.geclaimd_tot <= $1::timestamptz
               AND NOT (l.id::text IN (SELECT jsonb_array_elements_text($6::jsonb)))
             LIMIT coalesce(b.vrij, $4::int)
             FOR UPDATE SKIP LOCKED
           ) c
           WHERE $7::boolean AND w.actief
         ), geclaimd AS (
           SELECT id FROM (SELECT id, vrij, row_number() OVER (PARTITION BY endpoint_id ORDER BY volgende_poging) AS rang FROM kandidaat) k
           WHERE rang <= vrij
           ORDER BY rang
           LIMIT $2::int
         )
         UPDATE webhook_aflevering l SET toestand = 'bezig', geclaimd_tot = $5::timestamptz, bijgewerkt_op = $1::timestamptz
         FROM webhook_gebeurtenis g, webhook w
         -- An id array, so the rows are found by primary key (a join with the CTE may be planned as a scan of the table).
         WHERE l.id = ANY (ARRAY(SELECT id FROM geclaimd)) AND g.id = l.event_id AND w.id = l.endpoint_id
         RETURNING l.id, l.event_id, l.endpoint_id, l.pogingen, g.payload::text AS body, w.url, w.geheim, w.vorig_geheim, w.vorig_geheim_tot`,
        [
          now, vrij, JSON.stringify(ruimte), this.o.maxPerEndpoint, new Date(now.getTime() + this.o.timeoutMs + LEASE_MARGE_MS),
          // Never this process's own rows still in flight, whatever the clock says about their lease.
          JSON.stringify([...this.bezig.keys()]),
          herstel,
        ],
      );
      const geclaimdOp = performance.now();
      for (const c of rijen) {
        this.geclaimdPer.set(c.endpoint_id, (this.geclaimdPer.get(c.endpoint_id) ?? 0) + 1);
        const p = this.bezorg(c, geclaimdOp)
          .catch((err) => this.o.log.error({ err, aflevering: c.id }, 'webhooks: aflevering mislukt'))
          .finally(() => {
            this.bezig.delete(c.id);
            const n = (this.geclaimdPer.get(c.endpoint_id) ?? 1) - 1;
            if (n <= 0) this.geclaimdPer.delete(c.endpoint_id);
            else this.geclaimdPer.set(c.endpoint_id, n);
            this.wek();
          });
        this.bezig.set(c.id, p);
      }
      // Another round only if the overall bound, not the endpoints' room, cut this claim short.
      if (rijen.length < vrij) return;
    }
  }

  /** A send slot for one endpoint: at once if it and the process are under their bounds, else in turn; false when stopping. */
  private slot(e: string): Promise<boolean> {
    if (this.gestopt) return Promise.resolve(false);
    if (!this.wachtendPer.has(e) && this.lopend < this.o.maxTotaal && (this.perEndpoint.get(e) ?? 0) < this.limietVan(e)) {
      this.neemSlot(e);
      return Promise.resolve(true);
    }
    this.wachtendPer.set(e, (this.wachtendPer.get(e) ?? 0) + 1);
    return new Promise((klaar) => this.wachtenden.push({ e, klaar }));
  }

  private neemSlot(e: string): void {
    this.perEndpoint.set(e, (this.perEndpoint.get(e) ?? 0) + 1);
    this.lopend++;
  }

  /** Hand freed slots to waiting rows, oldest first, skipping endpoints that are at their limit. */
  private geefSlotsUit(): void {
    for (let i = 0; i < this.wachtenden.length && this.lopend < this.o.maxTotaal; ) {
      const w = this.wachtenden[i];
      if ((this.perEndpoint.get(w.e) ?? 0) >= this.limietVan(w.e)) {
        i++;
        continue;
      }
      this.wachtenden.splice(i, 1);
      const n = (this.wachtendPer.get(w.e) ?? 1) - 1;
      if (n <= 0) this.wachtendPer.delete(w.e);
      else this.wachtendPer.set(w.e, n);
      this.neemSlot(w.e);
      w.klaar(true);
    }
  }

  /** A send finished (or was not made: u null): free its slot and adapt the endpoint's limit to how the receiver answered. */
  private verzonden(endpointId: string, u: Uitslag | null, duurMs: number): void {
    const n = (this.perEndpoint.get(endpointId) ?? 1) - 1;
    if (n <= 0) this.perEndpoint.delete(endpointId);
    else this.perEndpoint.set(endpointId, n);
    this.lopend--;
    if (u) {
      const oud = this.limietVan(endpointId);
      const nieuw = u.soort === 'ok' && duurMs < this.o.snelMs ? Math.min(this.o.maxPerEndpointSnel, oud + 1) : Math.max(this.o.maxPerEndpoint, Math.floor(oud / 2));
      if (nieuw > this.o.maxPerEndpoint) this.limiet.set(endpointId, nieuw);
      else this.limiet.delete(endpointId);
    }
    this.geefSlotsUit();
    // A freed slot: claim more (results are written separately, in batches).
    this.wek();
  }

  private async bezorg(c: Claim, geclaimdOp: number): Promise<void> {
    const mag = await this.slot(c.endpoint_id);
    // A send must start within the lease's margin after the claim, so it ends before the lease does and no
    // other process can take the row meanwhile; a row that waited longer (its receiver slowed down), or
    // that is still waiting at shutdown, is handed back unsent.
    if (!mag || performance.now() - geclaimdOp > MAX_WACHT_MS) {
      if (mag) this.verzonden(c.endpoint_id, null, 0);
      await this.vastleggen(c, { soort: 'terug' });
      return;
    }
    const now = this.o.now();
    const geheimen = [c.geheim];
    if (c.vorig_geheim && c.vorig_geheim_tot && new Date(c.vorig_geheim_tot) > now) geheimen.push(c.vorig_geheim);
    const begin = performance.now();
    let u: Uitslag;
    try {
      u = await verstuur(
        { id: c.event_id, body: c.body, url: c.url, geheimen },
        { now, onveilig: this.o.onveilig, timeoutMs: this.o.timeoutMs, signal: this.stop.signal, verbindingen: this.verbindingen },
      );
    } catch (err) {
      this.verzonden(c.endpoint_id, { soort: 'fout', status: null, fout: '' }, 0);
      throw err;
    }
    const duur = performance.now() - begin;
    // A success frees its slot at once (its outcome is written with the next batch). A failure holds it
    // until its outcome is written and PAUZE_NA_FOUT_MS more, so a failing or hanging receiver is not
    // hammered with the rest of its backlog the moment an attempt fails.
    if (u.soort === 'ok') this.verzonden(c.endpoint_id, u, duur);
    try {
      // Shutting down: hand the row back untouched (no attempt counted), due at once for the next process.
      await this.vastleggen(c, this.stop.signal.aborted && u.soort === 'fout' ? { soort: 'terug' } : u);
      if (u.soort !== 'ok' && !this.gestopt) await new Promise((r) => setTimeout(r, PAUZE_NA_FOUT_MS));
    } finally {
      if (u.soort !== 'ok') this.verzonden(c.endpoint_id, u, duur);
    }
  }

  /** Queue an outcome for the next result statement; resolves once it is written. */
  private vastleggen(c: Claim, u: Vastlegging['u']): Promise<void> {
    return new Promise((klaar, mislukt) => {
      this.wachtrij.push({ c, u, klaar, mislukt });
      this.schrijf();
    });
  }

  /**
   * One result statement at a time; outcomes that arrive meanwhile go together in the next. With sends
   * still in flight the statement waits SAMENVOEG_MS for more outcomes to join it.
   */
  private schrijf(nu = false): void {
    if (this.schrijft || this.wachtrij.length === 0 || (this.schrijfGepland && !nu)) return;
    if (!nu && this.lopend > 0 && !this.gestopt && this.wachtrij.length < MAX_PARTIJ) {
      this.schrijfGepland = setTimeout(() => {
        this.schrijfGepland = undefined;
        this.schrijf(true);
      }, SAMENVOEG_MS);
      return;
    }
    this.schrijft = true;
    const partij = this.wachtrij.splice(0, MAX_PARTIJ);
    void legUitslagenVast(this.uitslagVerbinding, partij, this.o.now(), this.o.random)
      .then(
        () => {
          for (const v of partij) {
            v.klaar();
            // /metrics: the outcome of each attempt (a row handed back at shutdown was no attempt).
            if (v.u.soort !== 'terug') {
              afleverUitkomsten.meld(this.o.db, v.u.soort === 'ok' ? 'afgeleverd' : v.u.soort === 'weg' ? 'weg' : v.c.pogingen + 1 >= MAX_POGINGEN ? 'opgegeven' : 'opnieuw');
            }
          }
        },
        (err) => {
          // The rows stay `bezig` until their lease runs out, then they are sent again (at-least-once).
          for (const v of partij) v.mislukt(err);
        },
      )
      .finally(() => {
        this.schrijft = false;
        this.schrijf();
      });
  }

  /** Stop claiming; wait for in-flight sends up to `maxMs`, then abort them and hand their rows back. */
  async sluit(maxMs = 5_000): Promise<void> {
    this.gestopt = true;
    clearTimeout(this.gepland);
    clearInterval(this.timer);
    clearInterval(this.verloopTimer);
    this.losmaken?.();
    // A claim still running hands its rows to sends that are waited for (or aborted) below.
    await this.pomping;
    // Rows waiting for a slot are handed back at once.
    for (const w of this.wachtenden.splice(0)) w.klaar(false);
    this.wachtendPer.clear();
    const alles = Promise.allSettled([...this.bezig.values()]);
    const t = setTimeout(() => this.stop.abort(), maxMs);
    await alles;
    clearTimeout(t);
    this.stop.abort();
    this.verbindingen.sluit();
    await this.luisteraar?.end().catch(() => {});
    await Promise.all([this.claimVerbinding.sluit(), this.uitslagVerbinding.sluit()]);
  }
}

/**
 * The outcomes of one batch in one statement: each delivery row, and per endpoint its failure streak
 * (a success in the batch ends it; a failure starts it; 5 days of it disables the endpoint) or, after a
 * 410, the endpoint disabled at once. Atomic: a 410 never leaves a row written without its endpoint.
 */
async function legUitslagenVast(db: EigenVerbinding, partij: Pick<Vastlegging, 'c' | 'u'>[], now: Date, random: () => number): Promise<void> {
  const rijen = partij.map(({ c, u }, i) => {
    const poging = c.pogingen + 1;
    if (u.soort === 'terug') return { i, id: c.id, endpoint_id: c.endpoint_id, soort: 'terug', toestand: 'wachtend', pogingen: c.pogingen, status: null, fout: null, volgende: null };
    if (u.soort === 'ok') return { i, id: c.id, endpoint_id: c.endpoint_id, soort: 'ok', toestand: 'afgeleverd', pogingen: poging, status: u.status, fout: null, volgende: null };
    if (u.soort === 'weg') {
      return { i, id: c.id, endpoint_id: c.endpoint_id, soort: 'weg', toestand: 'mislukt', pogingen: poging, status: 410, fout: 'Ontvanger antwoordde 410 Gone; webhook uitgeschakeld.', volgende: null };
    }
    const laatste = poging >= MAX_POGINGEN;
    return {
      i, id: c.id, endpoint_id: c.endpoint_id, soort: 'fout', toestand: laatste ? 'mislukt' : 'wachtend', pogingen: poging, status: u.status, fout: u.fout.slice(0, 500),
      volgende: laatste ? now : new Date(now.getTime() + wachttijd(poging, random)),
    };
  });
  await db.rijen(
    'webhook_uitslagen',
    `WITH u AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS u(i int, id uuid, endpoint_id uuid, soort text, toestand text, pogingen int, status int, fout text, volgende timestamptz)
     ), a AS (
       UPDATE webhook_aflevering l SET toestand = u.toestand, pogingen = u.pogingen,
         laatste_status = CASE WHEN u.soort = 'terug' THEN l.laatste_status ELSE u.status END,
         laatste_fout = CASE WHEN u.soort = 'terug' THEN l.laatste_fout ELSE u.fout END,
         volgende_poging = coalesce(u.volgende, l.volgende_poging), geclaimd_tot = NULL,
         bijgewerkt_op = CASE WHEN u.soort = 'terug' THEN l.bijgewerkt_op ELSE $2::timestamptz END
       -- By primary key (an id array: a join with the JSON rows may be planned as a scan of the whole table).
       FROM u WHERE l.id = ANY (ARRAY(SELECT id FROM u)) AND l.id = u.id AND (u.soort <> 'terug' OR l.toestand = 'bezig')
       RETURNING l.id
     ), e AS (
       SELECT endpoint_id, bool_or(soort = 'ok') AS ok, bool_or(soort = 'weg') AS weg, bool_or(soort = 'fout') AS fout,
         (array_agg(fout ORDER BY i DESC) FILTER (WHERE soort = 'fout'))[1] AS laatste_fout
       FROM u WHERE soort <> 'terug' GROUP BY endpoint_id
     ), s AS (
       SELECT w.id, e.ok, e.weg, e.fout, e.laatste_fout,
         NOT e.ok AND e.fout AND coalesce(w.falend_sinds, $2::timestamptz) <= $2::timestamptz - make_interval(secs => $3::double precision / 1000) AS vijf_dagen
       FROM webhook w JOIN e ON e.endpoint_id = w.id
       WHERE w.id = ANY (ARRAY(SELECT endpoint_id FROM e)) AND (e.weg OR e.fout OR w.falend_sinds IS NOT NULL)
     )
     UPDATE webhook w SET
       falend_sinds = CASE WHEN s.ok THEN NULL WHEN s.fout THEN coalesce(w.falend_sinds, $2::timestamptz) ELSE w.falend_sinds END,
       actief = CASE WHEN s.weg OR s.vijf_dagen THEN false ELSE w.actief END,
       uitgeschakeld_op = CASE WHEN w.actief AND (s.weg OR s.vijf_dagen) THEN $2::timestamptz ELSE w.uitgeschakeld_op END,
       uitschakel_reden = CASE
         WHEN w.actief AND s.weg THEN 'De ontvanger antwoordde 410 Gone.'
         WHEN w.actief AND s.vijf_dagen THEN 'Vijf dagen lang geen geslaagde aflevering (laatste fout: ' || left(s.laatste_fout, 200) || ').'
         ELSE w.uitschakel_reden END
     FROM s WHERE w.id = ANY (ARRAY(SELECT id FROM s)) AND w.id = s.id`,
    [JSON.stringify(rijen), now, UITSCHAKELEN_NA_MS],
  );
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
    eigenVerbinding: db.openRawConnection,
    ...opts,
  });
  await b.start();
  return b;
}
