/**
 * Holds the fitted valuation models of this process, one per part of the register (the demo town and
 * the real register: neither learns from the other's sales). They are built at start-up and rebuilt when the
 * held data changes (an import by the CLI, possibly in another process, finishes): a cheap vintage
 * query at most every `controleMs` decides, in the background: a request never waits for it. Nothing
 * is fitted per request; a rebuild runs in the background while the previous model keeps answering.
 */
import type { Logger } from 'pino';
import { buitenVerzoek } from '../../logging.ts';
import type { Db } from '../../db/client.ts';
import type { Deel } from '../register/demo/opzet.ts';
import { buildModelForStorage } from './build-worker.ts';
import type { ValuationModel } from './index.ts';
import { leesModelOpslag, modelUitOpslag, OpslagBeschadigd, slaModelOp } from './opslag.ts';
import { laadPrijsindex, laadVerkopenTabel } from './gegevens.ts';

export type Modellen = Record<Deel, ValuationModel>;

export interface ModelHouder {
  /** The current model of a part (default the real register). Before the first build: waits for it, or (`wachtOpEerste: false`) throws WaardemodelNietGereed. */
  model(deel?: Deel): Promise<ValuationModel>;
  /** Whether a valuation can be answered now (a model is built, or requests wait for the first). */
  beschikbaar(): boolean;
  /** The stored models when they fit the held data, else fitted and stored (a server start). */
  laad(): Promise<Modellen>;
  /** Fit again now, whatever is stored (after an import in this process; `insight waardemodel bouwen`). */
  vernieuw(): Promise<Modellen>;
  /** The models in use (for /metrics): when they were built, how long the build took, on how many sales in all; null before the first build. */
  staat(): ModelStaat | null;
}

export interface ModelStaat {
  gebouwdOp: number;
  bouwMs: number;
  verkopen: number;
  /** Both parts loaded from the stored models (opslag.ts) instead of fitted. */
  uitOpslag: boolean;
}

/** A valuation asked before the first model is built, by a holder that does not let requests wait. */
export class WaardemodelNietGereed extends Error {
  constructor() {
    super('Het waardemodel wordt nog gebouwd (na een start duurt dat tot een minuut); probeer het zo opnieuw. Er is niets gefactureerd.');
    this.name = 'WaardemodelNietGereed';
  }
}

/** The database failed to read the stored model (not: the stored model is missing or stale). */
class OpslagLeesfout extends Error {
  constructor(cause: unknown) {
    super('opgeslagen waardemodel niet te lezen', { cause });
    this.name = 'OpslagLeesfout';
  }
}

/** Builds since the last successful one whose read of the stored model failed, before the next fits anyway. */
const LEESFOUTEN_VOOR_FIT = 2;

/** The imports whose data the model reads (gegevens.ts): sales, their WOZ values, the price index. */
const MODEL_IMPORTS = ['verkopen', 'woz', 'prijsindex'];

/** What the model was fitted on, and whether such an import runs now (< 6 h, not finished or failed): no refit then. */
async function vintage(db: Db): Promise<{ v: string; importBezig: boolean }> {
  const [r] = await db.$queryRaw<{ v: string; bezig: boolean }[]>`
    SELECT concat_ws('|', (SELECT count(*) FROM verkoop), (SELECT max(transactiedatum) FROM verkoop), (SELECT count(*) FROM prijsindex),
                          (SELECT max(klaar_op) FROM import_run WHERE soort = ANY(${MODEL_IMPORTS}))) AS v,
           EXISTS (SELECT 1 FROM import_run WHERE klaar_op IS NULL AND samenvatting IS NULL AND soort = ANY(${MODEL_IMPORTS})
                                          AND gestart_op > now() - interval '6 hours') AS bezig`;
  return { v: r.v, importBezig: r.bezig };
}

/**
 * One part's model: the stored one when it was fitted on this vintage by this code (opslag.ts), else
 * fitted in a worker from the held sales (read straight into the columns it fits on, which move to
 * it) and stored for the next start and the other processes.
 *
 * A store the database failed to read (a timeout, a lost connection) is not a reason to fit: at
 * national size a fit costs a minute and 1.5 GB, and the database that failed the read would likely
 * fail the sales too. Unless `leesfoutFitten`, that fails the build, which is retried (planOpnieuw, or
 * the next vintage check); stored bytes that fail their checksum or do not deserialise are fitted
 * again at once.
 */
async function modelVan(db: Db, log: Logger, deel: Deel, v: string, vers: boolean, leesfoutFitten: boolean): Promise<{ model: ValuationModel; uitOpslag: boolean }> {
  let bytes: Uint8Array | null = null;
  if (!vers) {
    try {
      bytes = await leesModelOpslag(db, deel, v);
      if (bytes) return { model: modelUitOpslag(bytes), uitOpslag: true };
    } catch (err) {
      if (!bytes && !(err instanceof OpslagBeschadigd)) {
        if (!leesfoutFitten) throw new OpslagLeesfout(err);
        log.warn({ err, deel }, 'opgeslagen waardemodel opnieuw niet te lezen: toch opnieuw bouwen');
      } else log.warn({ err, deel }, 'opgeslagen waardemodel onleesbaar: opnieuw bouwen');
    }
  }
  const index = await laadPrijsindex(db, deel);
  const fit = buildModelForStorage(await laadVerkopenTabel(db, deel), index.punten.length ? { priceIndex: index.punten, indexBron: index.bron ?? undefined } : {});
  const { model, opslag } = await fit;
  try {
    await slaModelOp(db, deel, v, opslag);
  } catch (err) {
    // The model answers all the same; the next start fits it again.
    log.warn({ err, deel }, 'waardemodel opslaan mislukt');
  }
  return { model, uitOpslag: false };
}

export interface HouderOpties {
  /** Least time between two vintage checks (default 30 s). */
  controleMs?: number;
  now?: () => number;
  /** Default true: a request before the first build waits for it. The server sets it to false: it listens at once and a valuation answers 503 until the model is there (/readyz says when). */
  wachtOpEerste?: boolean;
  /** Wait before retrying a failed first build (default 5 s), doubled per failure up to `maxOpnieuwMs` (default 5 min). */
  opnieuwMs?: number;
  maxOpnieuwMs?: number;
}

export function maakModelHouder(db: Db, log: Logger, opts: HouderOpties = {}): ModelHouder {
  const controleMs = opts.controleMs ?? 30_000;
  const opnieuwMs = opts.opnieuwMs ?? 5_000;
  const maxOpnieuwMs = opts.maxOpnieuwMs ?? 300_000;
  const wachtOpEerste = opts.wachtOpEerste ?? true;
  const now = opts.now ?? Date.now;
  let huidig: Promise<Modellen> | null = null;
  let huidigeVintage = '';
  let laatsteControle = 0;
  let bouwt: Promise<Modellen> | null = null;
  /** Whether the build running fits whatever is stored (vernieuw), rather than loading it when it fits. */
  let bouwtVers = false;
  let staat: ModelStaat | null = null;
  let volgendeStaat: ModelStaat | null = null;
  let gebouwd = false;
  let mislukt = 0;
  let leesfouten = 0;
  let opnieuw: NodeJS.Timeout | null = null;

  /** One part after the other, so the peak memory stays that of the larger part. */
  async function bouw(vers: boolean): Promise<Modellen> {
    const { v } = await vintage(db);
    const start = now();
    const modellen = {} as Modellen;
    const per = {} as Record<Deel, number>;
    let geladen = true;
    for (const deel of ['demo', 'register'] as const) {
      const m = await modelVan(db, log, deel, v, vers, leesfouten >= LEESFOUTEN_VOOR_FIT).catch((err: unknown) => {
        if (err instanceof OpslagLeesfout) leesfouten++;
        throw err;
      });
      modellen[deel] = m.model;
      per[deel] = m.model.info.verkopen;
      geladen &&= m.uitOpslag;
    }
    leesfouten = 0;
    const aantal = per.demo + per.register;
    log.info({ verkopen: aantal, perDeel: per, indexBron: modellen.register.info.indexBron, ms: now() - start, uitOpslag: geladen }, geladen ? 'waardemodel geladen' : 'waardemodel gebouwd');
    huidigeVintage = v;
    volgendeStaat = { gebouwdOp: now(), bouwMs: now() - start, verkopen: aantal, uitOpslag: geladen };
    return modellen;
  }

  function herbouw(vers = false): Promise<Modellen> {
    // A build already running serves the caller, unless it asked for a fresh fit and the running one
    // may load the stored model: then the fit follows it.
    if (!bouwt || (vers && !bouwtVers)) {
      const vorige = bouwt;
      const begonnen = vorige ? vorige.then(
        () => bouw(vers),
        () => bouw(vers),
      ) : bouw(vers);
      const nieuw: Promise<Modellen> = begonnen.finally(() => {
        if (bouwt === nieuw) {
          bouwt = null;
          bouwtVers = false;
        }
      });
      bouwt = nieuw;
      bouwtVers = vers;
    }
    const p = bouwt;
    p.then((m) => {
      huidig = Promise.resolve(m);
      staat = volgendeStaat;
      gebouwd = true;
      mislukt = 0;
    }).catch((err) => {
      log.error({ err }, 'waardemodel bouwen mislukt');
      if (!gebouwd) planOpnieuw();
    });
    return p;
  }

  /**
   * Without a model /readyz stays 503, and behind a load balancer no valuation arrives to start
   * another build: so a failed first build is retried on its own, with backoff.
   */
  function planOpnieuw(): void {
    if (opnieuw) return;
    const ms = Math.min(maxOpnieuwMs, opnieuwMs * 2 ** mislukt++);
    log.warn({ pogingen: mislukt, opnieuwOverMs: ms }, 'waardemodel: eerste bouw mislukt, nieuwe poging gepland');
    opnieuw = setTimeout(() => {
      opnieuw = null;
      if (!gebouwd) herbouw().catch(() => {});
    }, ms);
    opnieuw.unref();
  }

  /** Compare the vintage in the background; a changed one starts a rebuild. Never awaited by a request. */
  function controleer(): void {
    laatsteControle = now();
    // Outside the request that noticed it: its lines must not carry that request's id.
    buitenVerzoek(() =>
      vintage(db)
        .then(({ v, importBezig }) => {
          if (v !== huidigeVintage && !importBezig) void herbouw();
        })
        .catch((err) => log.error({ err }, 'controle op nieuwe verkopen mislukt')),
    );
  }

  return {
    async model(deel = 'register') {
      if (!huidig && !wachtOpEerste) {
        // Not while a retry is planned: its backoff gives a failing database time (and counts the failed reads).
        if (!bouwt && !opnieuw) buitenVerzoek(() => herbouw().catch(() => {}));
        throw new WaardemodelNietGereed();
      }
      if (!huidig) {
        const p = herbouw();
        huidig = p;
        // A failed first build is not kept as the answer: the next request (or the retry) builds again.
        p.catch(() => {
          if (huidig === p) huidig = null;
        });
        laatsteControle = now();
        return (await p)[deel];
      }
      if (now() - laatsteControle >= controleMs) controleer();
      return (await huidig)[deel];
    },
    beschikbaar: () => wachtOpEerste || huidig !== null,
    laad: () => herbouw(false),
    vernieuw: () => herbouw(true),
    staat: () => staat,
  };
}
