/**
 * The delivery worker. Claims with `FOR UPDATE SKIP LOCKED` and a lease (`geclaimd_tot`): a process that
 * dies mid-send leaves a row that is claimed again when the lease runs out (at-least-once, same webhook-id).
 * Woken after a commit that wrote deliveries (LISTEN across processes), polling as the fallback. Bounded
 * concurrency overall and per endpoint, adaptive for fast receivers (docs/webhooks.md), so one slow
 * receiver cannot starve the others.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import { sqlRijen, type Database, type Db } from '../../db/client.ts';
import type { Services } from '../../core/context.ts';
import type { Resolver } from './doeladres.ts';
import { afleverUitkomsten, luisterNaarAfleveringen, meldNieuweAfleveringen, tijdstempel } from './gebeurtenissen.ts';
import { TIMEOUT_MS, Verbindingen, verstuur, type Uitslag } from './verzenden.ts';

/** After failed attempt n (1-based): decisions section 7. */
export const SCHEMA_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000];
export const MAX_POGINGEN = SCHEMA_MS.length + 1;
export const UITSCHAKELEN_NA_MS = 5 * 24 * 3600_000;
/** No attempt for longer than the schedule's longest step (24 h + 10 % jitter): the next failure starts a new streak. */
export const STREAK_PAUZE_MS = 27 * 3600_000;
/** After it the row counts as abandoned (its process died) and is claimed again. */
const LEASE_MARGE_MS = 5_000;
const MAX_WACHT_MS = LEASE_MARGE_MS / 2;
const PAUZE_NA_FOUT_MS = 100;
/** Gathered into one claim / one result statement while sends are in flight. */
const SAMENVOEG_MS = 5;
const MAX_PARTIJ = 200;

export interface BezorgerOpties {
  db: Db;
  now: () => Date;
  log: Logger;
  onveilig: boolean;
  resolver?: Resolver;
  maxTotaal?: number;
  /** The base limit (a new, slow or failing receiver). */
  maxPerEndpoint?: number;
  maxPerEndpointSnel?: number;
  snelMs?: number;
  pollMs?: number;
  timeoutMs?: number;
  random?: () => number;
  luisterVerbinding?: () => Promise<pg.Client>;
  /** After the LISTEN connection or an own connection is lost: how long before it is opened again (default 5 s). */
  luisterOpnieuwMs?: number;
  /** PostgreSQL: the worker's own connections, so its statements never queue behind request traffic. */
  eigenVerbinding?: () => Promise<pg.Client>;
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

/** `terug`: handed back unsent, no attempt counted. */
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

/** Reopened (at most every `luisterOpnieuwMs`, 5 s) after it broke; the pool meanwhile. */
class EigenVerbinding {
  private client?: pg.Client;
  private opent?: Promise<pg.Client | undefined>;
  private nietVoor = 0;
  private gesloten = false;
  /** Failed opens since the last good one: the first is logged as a warning, the rest at debug. */
  private misluktOpenen = 0;
  private readonly maak?: () => Promise<pg.Client>;
  private readonly db: Db;
  private readonly log: Logger;

  private readonly opnieuwMs: number;

  constructor(maak: (() => Promise<pg.Client>) | undefined, db: Db, log: Logger, opnieuwMs: number) {
    this.maak = maak;
    this.opnieuwMs = opnieuwMs;
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
        if (this.misluktOpenen) this.log.info({ mislukt: this.misluktOpenen }, 'webhooks: eigen verbinding weer open');
        this.misluktOpenen = 0;
        return c;
      } catch (err) {
        if (this.misluktOpenen++ === 0) this.log.warn({ err }, 'webhooks: eigen verbinding niet te openen; via de pool');
        else this.log.debug({ err, mislukt: this.misluktOpenen }, 'webhooks: eigen verbinding nog niet te openen');
        this.nietVoor = performance.now() + this.opnieuwMs;
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
  /** Never claimed again by us meanwhile. */
  private readonly bezig = new Map<string, Promise<void>>();
  private readonly geclaimdPer = new Map<string, number>();
  private readonly perEndpoint = new Map<string, number>();
  private lopend = 0;
  private readonly wachtenden: { e: string; klaar: (mag: boolean) => void }[] = [];
  private readonly wachtendPer = new Map<string, number>();
  private readonly limiet = new Map<string, number>();
  /** Switched off by a 410 here: when its outcome was written (Infinity until then). */
  private readonly uit = new Map<string, number>();
  private readonly wachtrij: Vastlegging[] = [];
  private schrijft = false;
  private readonly verbindingen: Verbindingen;
  private readonly stop = new AbortController();
  private gestopt = false;
  private pompt = false;
  private nogEens = false;
  private laatsteHerstel = Number.NEGATIVE_INFINITY;
  /** Logged when it starts and when it ends, not per poll. */
  private claimStoring: { sinds: number; mislukt: number } | null = null;
  private pomping: Promise<void> = Promise.resolve();
  private gepland?: NodeJS.Timeout;
  private schrijfGepland?: NodeJS.Timeout;
  private timer?: NodeJS.Timeout;
  private verloopTimer?: NodeJS.Timeout;
  private losmaken?: () => void;
  private luisteraar?: pg.Client;
  private luisterTimer?: NodeJS.Timeout;
  private luisterMislukt = false;
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
      luisterOpnieuwMs: 5_000,
      snelMs: 500,
      ...o,
      maxPerEndpointSnel: Math.min(maxTotaal, Math.max(maxPerEndpoint, o.maxPerEndpointSnel ?? Math.floor(maxTotaal / 2))),
    };
    this.verbindingen = new Verbindingen({ onveilig: this.o.onveilig, resolver: this.o.resolver });
    this.claimVerbinding = new EigenVerbinding(this.o.eigenVerbinding, this.o.db, this.o.log, this.o.luisterOpnieuwMs);
    this.uitslagVerbinding = new EigenVerbinding(this.o.eigenVerbinding, this.o.db, this.o.log, this.o.luisterOpnieuwMs);
  }

  async start(): Promise<void> {
    this.losmaken = luisterNaarAfleveringen(() => this.wek());
    await this.luister();
    this.timer = setInterval(() => this.wek(), this.o.pollMs);
    this.timer.unref();
    if (this.o.verloopControleMs > 0) {
      let mislukt = 0;
      const controle = () =>
        void meldVerlopendeSleutels(this.o.db, this.o.now()).then(
          () => {
            if (mislukt) this.o.log.info({ mislukt }, 'webhooks: verloopcontrole lukt weer');
            mislukt = 0;
          },
          (err) => (mislukt++ === 0 ? this.o.log.warn({ err }, 'webhooks: verloopcontrole mislukt') : this.o.log.debug({ err, mislukt }, 'webhooks: verloopcontrole mislukt opnieuw')),
        );
      this.verloopTimer = setInterval(controle, this.o.verloopControleMs);
      this.verloopTimer.unref();
      controle();
    }
    this.wek();
  }

  /** LISTEN on its own connection; one lost (a database restart) is opened again every LUISTER_OPNIEUW_MS, polling meanwhile. */
  private async luister(): Promise<void> {
    if (!this.o.luisterVerbinding || this.gestopt) return;
    const opnieuw = () => {
      if (this.gestopt || this.luisterTimer) return;
      this.luisterTimer = setTimeout(() => {
        this.luisterTimer = undefined;
        void this.luister();
      }, this.o.luisterOpnieuwMs);
      this.luisterTimer.unref();
    };
    let c: pg.Client | undefined;
    try {
      c = await this.o.luisterVerbinding();
      const verbinding = c;
      verbinding.on('notification', () => this.wek());
      const weg = (err?: Error) => {
        if (this.luisteraar !== verbinding) return;
        this.luisteraar = undefined;
        void verbinding.end().catch(() => {});
        if (this.gestopt) return;
        this.o.log.warn({ err }, 'webhooks: LISTEN-verbinding verbroken; polling tot ze weer open is');
        this.luisterMislukt = true;
        opnieuw();
      };
      verbinding.on('error', weg);
      verbinding.on('end', () => weg());
      await verbinding.query('LISTEN webhook_aflevering');
      if (this.gestopt) {
        await verbinding.end().catch(() => {});
        return;
      }
      this.luisteraar = verbinding;
      if (this.luisterMislukt) {
        this.luisterMislukt = false;
        this.o.log.warn('webhooks: LISTEN-verbinding weer open');
        this.wek();
      }
    } catch (err) {
      void c?.end().catch(() => {});
      if (!this.luisterMislukt) this.o.log.warn({ err }, 'webhooks: LISTEN niet mogelijk; polling en opnieuw proberen');
      this.luisterMislukt = true;
      opnieuw();
    }
  }

  /** Coalesced. An idle worker claims at once, so a lone event goes out within milliseconds. */
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

  get actief(): number {
    return this.bezig.size;
  }

  limietVan(endpointId: string): number {
    return this.limiet.get(endpointId) ?? this.o.maxPerEndpoint;
  }

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
      // At most twice the send bound: room for the fast endpoints' stock.
      const vrij = Math.min(2 * this.o.maxTotaal - this.bezig.size, MAX_PARTIJ);
      if (vrij <= 0 || this.gestopt) return;
      // A receiver that proved fast may hold a stock of twice its limit, so its sends never wait for a round trip.
      const bekend = new Set([...this.geclaimdPer.keys(), ...this.limiet.keys()]);
      const ruimte = [...bekend].map((e) => {
        const limiet = this.limietVan(e);
        const voorraad = limiet > this.o.maxPerEndpoint ? 2 * limiet : 0;
        return { e, vrij: Math.max(0, limiet + voorraad - (this.geclaimdPer.get(e) ?? 0)) };
      });
      const now = this.o.now();
      // Once per poll interval, not per claim: under a backlog that index range is mostly dead entries.
      const herstel = performance.now() - this.laatsteHerstel >= this.o.pollMs;
      if (herstel) this.laatsteHerstel = performance.now();
      const gevraagd = performance.now();
      const rijen = await this.claimVerbinding.rijen<Claim>(
        'webhook_claim',
        // Straight off the (endpoint, toestand, volgende_poging) index in its order, so a backlog costs no sort
        // and no scan; each endpoint's first row before any endpoint's second (rang).
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
        // Claimed after the 410 was written: switched on again.
        if ((this.uit.get(c.endpoint_id) ?? Number.POSITIVE_INFINITY) < gevraagd) this.uit.delete(c.endpoint_id);
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
      if (rijen.length < vrij) return;
    }
  }

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
    this.wek();
  }

  private async bezorg(c: Claim, geclaimdOp: number): Promise<void> {
    const mag = await this.slot(c.endpoint_id);
    // A send must start within the lease's margin, so it ends before the lease does; a row that waited
    // longer, is still waiting at shutdown, or whose endpoint a 410 switched off, is handed back unsent.
    if (!mag || performance.now() - geclaimdOp > MAX_WACHT_MS || this.uit.has(c.endpoint_id)) {
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
    if (u.soort === 'weg') this.uit.set(c.endpoint_id, Number.POSITIVE_INFINITY);
    // A failure holds its slot until its outcome is written and PAUZE_NA_FOUT_MS more, so a failing
    // receiver is not hammered with the rest of its backlog.
    if (u.soort === 'ok') this.verzonden(c.endpoint_id, u, duur);
    try {
      // Shutting down: hand the row back untouched, due at once for the next process.
      await this.vastleggen(c, this.stop.signal.aborted && u.soort === 'fout' ? { soort: 'terug' } : u);
      if (u.soort !== 'ok' && !this.gestopt) await new Promise((r) => setTimeout(r, PAUZE_NA_FOUT_MS));
    } finally {
      if (u.soort === 'weg') this.uit.set(c.endpoint_id, performance.now());
      if (u.soort !== 'ok') this.verzonden(c.endpoint_id, u, duur);
    }
  }

  private vastleggen(c: Claim, u: Vastlegging['u']): Promise<void> {
    return new Promise((klaar, mislukt) => {
      this.wachtrij.push({ c, u, klaar, mislukt });
      this.schrijf();
    });
  }

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

  async sluit(maxMs = 5_000): Promise<void> {
    this.gestopt = true;
    clearTimeout(this.gepland);
    clearInterval(this.timer);
    clearInterval(this.verloopTimer);
    clearTimeout(this.luisterTimer);
    this.losmaken?.();
    await this.pomping;
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

/** Atomic: a 410 never leaves a row written without its endpoint disabled. */
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
     ), s0 AS (
       SELECT w.id, e.ok, e.weg, e.fout, e.laatste_fout,
         CASE WHEN w.laatst_gefaald_op >= $2::timestamptz - make_interval(secs => $4::double precision / 1000) THEN w.falend_sinds END AS sinds
       FROM webhook w JOIN e ON e.endpoint_id = w.id
       WHERE w.id = ANY (ARRAY(SELECT endpoint_id FROM e)) AND (e.weg OR e.fout OR w.falend_sinds IS NOT NULL)
     ), s AS (
       SELECT s0.*, NOT s0.ok AND s0.fout AND coalesce(s0.sinds, $2::timestamptz) <= $2::timestamptz - make_interval(secs => $3::double precision / 1000) AS vijf_dagen
       FROM s0
     )
     UPDATE webhook w SET
       falend_sinds = CASE WHEN s.ok THEN NULL WHEN s.fout THEN coalesce(s.sinds, $2::timestamptz) ELSE w.falend_sinds END,
       laatst_gefaald_op = CASE WHEN s.ok THEN NULL WHEN s.fout THEN $2::timestamptz ELSE w.laatst_gefaald_op END,
       actief = CASE WHEN s.weg OR s.vijf_dagen THEN false ELSE w.actief END,
       uitgeschakeld_op = CASE WHEN w.actief AND (s.weg OR s.vijf_dagen) THEN $2::timestamptz ELSE w.uitgeschakeld_op END,
       uitschakel_reden = CASE
         WHEN w.actief AND s.weg THEN 'De ontvanger antwoordde 410 Gone.'
         WHEN w.actief AND s.vijf_dagen THEN 'Vijf dagen lang geen geslaagde aflevering (laatste fout: ' || left(s.laatste_fout, 200) || ').'
         ELSE w.uitschakel_reden END
     FROM s WHERE w.id = ANY (ARRAY(SELECT id FROM s)) AND w.id = s.id`,
    [JSON.stringify(rijen), now, UITSCHAKELEN_NA_MS, STREAK_PAUZE_MS],
  );
}

/** 7 days and 1 day before expiry, once each; a key already within a day gets only the 1-day event. */
export async function meldVerlopendeSleutels(db: Db, now: Date): Promise<number> {
  let n = 0;
  for (const [kolom, dagen, vanaf] of [['verloop_melding_1d_op', 1, 0], ['verloop_melding_op', 7, 1]] as const) {
    const rijen = await db.$queryRawUnsafe<{ id: string }[]>(
      `WITH m AS (
         UPDATE api_sleutel SET ${kolom} = $1::timestamptz
         WHERE ingetrokken_op IS NULL AND ${kolom} IS NULL
           AND verloopt_op > $1::timestamptz + make_interval(days => $4) AND verloopt_op <= $1::timestamptz + make_interval(days => $3)
           -- A key made with 3 days to live was never 7 days from it; one made to live exactly 1 day (its expiry
           -- set from the application's clock, aangemaakt_op a moment later by the database's) was.
           AND aangemaakt_op <= verloopt_op - make_interval(days => $3) + interval '1 minute'
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
