/**
 * Streaming replicas for register reads (docs/replicas.md). A background check keeps each replica's state,
 * never a request. Lag is the age of the newest primary WAL sample the replica has replayed, not
 * `now() - pg_last_xact_replay_timestamp()`, which grows on an idle primary and stays small when the
 * standby has lost it. Hysteresis (`volgendeToestand`) keeps a loaded machine from making it flap.
 */
import type { Logger } from 'pino';
import pg from 'pg';

export type ReplicaToestand = 'onbekend' | 'bruikbaar' | 'achter' | 'weg';
export const REPLICA_TOESTANDEN: readonly ReplicaToestand[] = ['onbekend', 'bruikbaar', 'achter', 'weg'];

export interface Replica {
  /** host:port/database, never a password: the metric label and the log field. */
  naam: string;
  pool: pg.Pool;
  toestand: ReplicaToestand;
  achterstandS: number | null;
}

export interface ReplicaOpties {
  urls: string[];
  poolConfig: Omit<pg.PoolConfig, 'connectionString'> & { leestijdMs?: number };
  maxAchterstandMs: number;
  controleMs: number;
  log?: Logger;
}

/** A standby of the primary has the primary's identity (pg_control_system() needs EXECUTE). */
const IDENTITEIT = "(SELECT system_identifier FROM pg_control_system())::text || '/' || current_database() AS identiteit";

/** What the register reads read (adressen.ts, opvragen.ts): a replica whose user may not read one of them serves nothing. */
export const REGISTERTABELLEN = ['adres', 'woz_waarde', 'energielabel', 'woningtype', 'adres_invloed'] as const;
const LEESPROEF = `SELECT ${REGISTERTABELLEN.map((t) => `(SELECT 1 FROM ${t} LIMIT 0)`).join(', ')}`;

function lsnGetal(lsn: string): bigint {
  const [hoog, laag] = lsn.split('/');
  return (BigInt(`0x${hoog}`) << 32n) + BigInt(`0x${laag}`);
}

/** A read on a replica given up after this (it can always be read from the primary), so a silent one holds no batch (bundel.ts) for DB_QUERY_TIMEOUT_MS. */
export function leesGrensMs(controleMs: number): number {
  return Math.max(2 * controleMs, 2_000);
}

/** A read abandoned because its replica stopped being usable meanwhile: says nothing about the replica. */
class NietMeerBruikbaar extends Error {}

export function replicaNaam(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || 5432}${u.pathname}`;
}

/** Outside the pool: a pool busy with requests must not make a check wait (and a replica look gone). */
class Controleverbinding {
  private client: pg.Client | undefined;
  private gesloten = false;
  private readonly url: string;
  private readonly timeoutMs: number;

  constructor(url: string, timeoutMs: number) {
    this.url = url;
    this.timeoutMs = timeoutMs;
  }

  async vraag<T>(tekst: string): Promise<T> {
    if (this.gesloten) throw new Error('controleverbinding gesloten');
    try {
      if (!this.client) {
        const c = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: this.timeoutMs, query_timeout: this.timeoutMs });
        c.on('error', () => {});
        this.client = c;
        await c.connect();
      }
      return (await this.client.query(tekst)).rows[0] as T;
    } catch (e) {
      if (isVerbindingsfout(e)) this.sluit();
      throw e;
    }
  }

  sluit(voorgoed = false): void {
    this.gesloten ||= voorgoed;
    this.client?.end().catch(() => {});
    this.client = undefined;
  }
}

/** The server cannot serve reads now, as opposed to one statement failing. */
function isVerbindingsfout(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return /^(08|57P|53|28)/.test(code) || code === '3D000';
}

export type Waarneming =
  | { soort: 'achterstand'; ms: number }
  | { soort: 'onbereikbaar' }
  /** Not a standby, of another database, or its user may not read the register: definite. */
  | { soort: 'ongeschikt' };

export interface Reeks {
  fout: number;
  goed: number;
}

export const STORING_RONDES = 2;
export const HERSTEL_RONDES = 2;

export function volgendeToestand(huidig: ReplicaToestand, reeks: Reeks, w: Waarneming, grensMs: number): ReplicaToestand {
  if (w.soort === 'ongeschikt') {
    reeks.goed = 0;
    return 'weg';
  }
  if (w.soort === 'onbereikbaar') {
    reeks.goed = 0;
    reeks.fout++;
    return huidig === 'bruikbaar' && reeks.fout < STORING_RONDES ? 'bruikbaar' : 'weg';
  }
  reeks.fout = 0;
  if (w.ms > grensMs) {
    reeks.goed = 0;
    return 'achter';
  }
  if (huidig === 'bruikbaar' || huidig === 'onbekend') return 'bruikbaar';
  reeks.goed = w.ms <= grensMs / 2 ? reeks.goed + 1 : 0;
  return reeks.goed >= HERSTEL_RONDES ? 'bruikbaar' : huidig;
}

export class Replicas {
  readonly lijst: Replica[];
  private readonly opties: ReplicaOpties;
  private readonly primair: Controleverbinding;
  private readonly controles: Controleverbinding[];
  /** Oldest first, for the last 2 × maxAchterstandMs. */
  private monsters: { t: number; lsn: bigint }[] = [];
  private primairIdentiteit: string | undefined;
  private primairFout: string | null = null;
  private readonly reeksen = new Map<Replica, Reeks>();
  private readonly lezers = new Map<Replica, Set<(e: Error) => void>>();
  private volgende = 0;
  private timer: NodeJS.Timeout | undefined;
  private gestopt = false;

  constructor(primairUrl: string, opties: ReplicaOpties) {
    this.opties = opties;
    const timeoutMs = Math.max(opties.controleMs, 2_000);
    this.primair = new Controleverbinding(primairUrl, timeoutMs);
    this.lijst = opties.urls.map((url) => {
      const pool = new pg.Pool({ ...opties.poolConfig, connectionString: url });
      pool.on('error', () => {});
      return { naam: replicaNaam(url), pool, toestand: 'onbekend', achterstandS: null };
    });
    this.controles = opties.urls.map((url) => new Controleverbinding(url, timeoutMs));
  }

  start(): Promise<void> {
    const ronde = async () => {
      await this.controleer();
      if (!this.gestopt) this.timer = setTimeout(ronde, this.opties.controleMs).unref();
    };
    return ronde();
  }

  kies(): Replica | undefined {
    const n = this.lijst.length;
    for (let i = 0; i < n; i++) {
      const r = this.lijst[(this.volgende + i) % n];
      if (r.toestand === 'bruikbaar') {
        this.volgende = (this.volgende + i + 1) % n;
        return r;
      }
    }
    return undefined;
  }

  /** `lees` on `r`, failing after leesGrensMs (then `r` is weg: meldFout) or as soon as `r` stops being usable. */
  async lees<T>(r: Replica, lees: () => Promise<T>): Promise<T> {
    const grens = leesGrensMs(this.opties.controleMs);
    let timer: NodeJS.Timeout | undefined;
    let opgeven: (e: Error) => void = () => {};
    const opgegeven = new Promise<never>((_, fout) => {
      opgeven = fout;
      timer = setTimeout(() => fout(new Error(`geen antwoord op een registerlezing binnen ${grens} ms`)), grens);
    });
    let set = this.lezers.get(r);
    if (!set) this.lezers.set(r, (set = new Set()));
    set.add(opgeven);
    const uit = lees();
    uit.catch(() => {});
    try {
      return await Promise.race([uit, opgegeven]);
    } finally {
      clearTimeout(timer);
      set.delete(opgeven);
    }
  }

  /** If the server is gone, stop sending it reads now rather than at the next check. */
  meldFout(r: Replica, e: unknown): void {
    if (e instanceof NietMeerBruikbaar || !isVerbindingsfout(e)) return;
    const reeks = this.reeksen.get(r);
    if (reeks) reeks.goed = 0;
    this.zet(r, 'weg', null, { reden: (e as Error).message });
  }

  async controleer(): Promise<void> {
    const nu = Date.now();
    try {
      const { lsn, identiteit } = await this.primair.vraag<{ lsn: string; identiteit: string }>(`SELECT pg_current_wal_lsn()::text AS lsn, ${IDENTITEIT}`);
      this.primairIdentiteit = identiteit;
      this.monsters.push({ t: nu, lsn: lsnGetal(lsn) });
      this.monsters = this.monsters.filter((m) => m.t >= nu - 2 * this.opties.maxAchterstandMs);
      if (this.primairFout !== null) this.opties.log?.info({ vorige_reden: this.primairFout }, 'primaire database weer te controleren: replica’s kunnen weer registerlezingen krijgen');
      this.primairFout = null;
    } catch (e) {
      // Without samples every lag grows until none serves. Refused (a primary without EXECUTE on
      // pg_control_system()) would silently run without replicas: say why, once.
      const code = (e as { code?: string }).code;
      const reden =
        code === '42501'
          ? `${(e as Error).message}: de replicacontrole leest pg_control_system() op de primaire database; geef de gebruiker van DATABASE_URL dat recht (GRANT EXECUTE ON FUNCTION pg_control_system() TO …) of laat DATABASE_REPLICA_URL weg`
          : (e as Error).message;
      if (reden !== this.primairFout) this.opties.log?.warn({ reden }, 'primaire database niet te controleren: geen replica krijgt registerlezingen tot dat weer lukt');
      this.primairFout = reden;
    }
    await Promise.all(this.lijst.map((r, i) => this.controleerReplica(r, this.controles[i], nu)));
  }

  private async controleerReplica(r: Replica, verbinding: Controleverbinding, nu: number): Promise<void> {
    let stand: { herstel: boolean; lsn: string | null; identiteit: string };
    try {
      stand = await verbinding.vraag(`SELECT pg_is_in_recovery() AS herstel, pg_last_wal_replay_lsn()::text AS lsn, ${IDENTITEIT}`);
    } catch (e) {
      this.neem(r, { soort: 'onbereikbaar' }, null, { reden: (e as Error).message });
      return;
    }
    if (!stand.herstel || stand.lsn === null) {
      this.neem(r, { soort: 'ongeschikt' }, null, { reden: 'geen standby (gepromoveerd of geen replica)' });
      return;
    }
    if (this.primairIdentiteit && stand.identiteit !== this.primairIdentiteit) {
      this.neem(r, { soort: 'ongeschikt' }, null, { reden: `geen standby van DATABASE_URL: ander cluster of andere database (${stand.identiteit}, primair ${this.primairIdentiteit})` });
      return;
    }
    try {
      await verbinding.vraag(LEESPROEF);
    } catch (e) {
      const reden = `${(e as Error).message}${(e as { code?: string }).code === '42501' ? `: geef de gebruiker van deze replica leesrecht (GRANT SELECT ON ${REGISTERTABELLEN.join(', ')} TO …, op de primaire database)` : ''}`;
      this.neem(r, isVerbindingsfout(e) ? { soort: 'onbereikbaar' } : { soort: 'ongeschikt' }, null, { reden });
      return;
    }
    const gespeeld = lsnGetal(stand.lsn);
    if (this.monsters.length === 0) return;
    let bereikt: { t: number } | undefined;
    for (let i = this.monsters.length - 1; i >= 0 && !bereikt; i--) if (this.monsters[i].lsn <= gespeeld) bereikt = this.monsters[i];
    const grens = this.opties.maxAchterstandMs;
    if (bereikt) {
      const achterstandMs = nu - bereikt.t;
      this.neem(r, { soort: 'achterstand', ms: achterstandMs }, achterstandMs / 1000);
      return;
    }
    const minstens = nu - this.monsters[0].t;
    if (minstens > grens) this.neem(r, { soort: 'achterstand', ms: minstens }, minstens / 1000);
    else r.achterstandS = null;
  }

  private neem(r: Replica, w: Waarneming, achterstandS: number | null, extra: Record<string, unknown> = {}): void {
    let reeks = this.reeksen.get(r);
    if (!reeks) this.reeksen.set(r, (reeks = { fout: 0, goed: 0 }));
    this.zet(r, volgendeToestand(r.toestand, reeks, w, this.opties.maxAchterstandMs), achterstandS, extra);
  }

  private zet(r: Replica, toestand: ReplicaToestand, achterstandS: number | null, extra: Record<string, unknown> = {}): void {
    if (this.gestopt) return;
    r.achterstandS = achterstandS;
    if (r.toestand === toestand) return;
    const van = r.toestand;
    r.toestand = toestand;
    for (const opgeven of this.lezers.get(r) ?? []) opgeven(new NietMeerBruikbaar(`replica ${toestand}`));
    const velden = { replica: r.naam, van, toestand, achterstand_s: achterstandS, max_achterstand_s: this.opties.maxAchterstandMs / 1000, ...extra };
    if (toestand === 'bruikbaar') this.opties.log?.info(velden, 'replica bruikbaar: registerlezingen gaan naar deze replica');
    else this.opties.log?.warn(velden, 'replica niet bruikbaar: registerlezingen gaan naar de andere replica’s of de primaire database');
  }

  async sluit(): Promise<void> {
    this.gestopt = true;
    clearTimeout(this.timer);
    this.primair.sluit(true);
    for (const c of this.controles) c.sluit(true);
    await Promise.all(this.lijst.map((r) => r.pool.end().catch(() => {})));
  }
}
