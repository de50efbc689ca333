/**
 * Natural batching of one statement per hot row (group commit in the application).
 *
 * Every charge of one account updates that account's row, and every rate-limit check of one key updates
 * that key's row. Under a customer's concurrent batch job those statements queued on the row lock
 * inside PostgreSQL: each commit woke every waiting backend, which re-read the row and went back to
 * sleep, so most of the database's CPU went into the queue rather than the work (bench/README.md).
 *
 * A Bundelaar sends at most one statement per key at a time from this process (the rate-limit check and
 * the charge use one key for all their requests, so the statement covers every hot row of its kind that
 * is asked for meanwhile, grouped per row inside it; the address reads likewise). A request that
 * finds none in flight goes at once, alone: no timer, no added latency when traffic is light. Requests
 * that arrive while one is in flight wait for it and then go together, as one statement that handles
 * them in arrival order in one transaction. Several processes still meet on the row lock in
 * PostgreSQL, but each with one statement instead of one per request.
 *
 * Why not DataLoader: it batches what arrives within one tick of the event loop and then sends, so
 * concurrent requests that arrive a few ms apart would still each send their own statement, and it
 * caches by key, which a charge must never do.
 *
 * A failed batch statement fails each of its requests with that error (nothing of the batch
 * committed); a per-item failure is the batch function's to report per item.
 */
import { sqlRijen, type Db } from './client.ts';

export interface BundelOpties<In, Uit> {
  /** Handles the items of one group in arrival order; returns one result (or Error) per item, same order. */
  verwerk: (groep: string, items: In[]) => Promise<(Uit | Error)[]>;
  /** At most this many items in one statement (the rest go in the next). */
  maxGrootte: number;
}

interface Wachtend<In, Uit> {
  item: In;
  klaar: (u: Uit) => void;
  fout: (e: unknown) => void;
}

export class Bundelaar<In, Uit> {
  /** Groups with a statement in flight, and what arrived for them meanwhile (oldest first). */
  private readonly wachtrijen = new Map<string, Wachtend<In, Uit>[]>();

  private readonly opties: BundelOpties<In, Uit>;

  constructor(opties: BundelOpties<In, Uit>) {
    this.opties = opties;
  }

  voer(groep: string, item: In): Promise<Uit> {
    return new Promise<Uit>((klaar, fout) => {
      const rij = this.wachtrijen.get(groep);
      if (rij) {
        rij.push({ item, klaar, fout });
        return;
      }
      this.wachtrijen.set(groep, []);
      void this.stuur(groep, [{ item, klaar, fout }]);
    });
  }

  private async stuur(groep: string, deel: Wachtend<In, Uit>[]): Promise<void> {
    try {
      const uitkomsten = await this.opties.verwerk(
        groep,
        deel.map((w) => w.item),
      );
      deel.forEach((w, i) => {
        const u = uitkomsten[i];
        if (u instanceof Error) w.fout(u);
        else if (u === undefined) w.fout(new Error(`bundel ${groep}: geen uitkomst voor item ${i}`));
        else w.klaar(u);
      });
    } catch (e) {
      for (const w of deel) w.fout(e);
    }
    const rij = this.wachtrijen.get(groep);
    if (!rij || rij.length === 0) {
      this.wachtrijen.delete(groep);
      return;
    }
    void this.stuur(groep, rij.splice(0, this.opties.maxGrootte));
  }
}

/** One Bundelaar per database client (tests run several in one process), made on first use. */
export function perDatabase<In, Uit>(opties: (db: Db) => BundelOpties<In, Uit>): (db: Db) => Bundelaar<In, Uit> {
  const bundelaars = new WeakMap<Db, Bundelaar<In, Uit>>();
  return (db) => {
    let b = bundelaars.get(db);
    if (!b) bundelaars.set(db, (b = new Bundelaar(opties(db))));
    return b;
  };
}

/**
 * The items of one batch grouped by the hot row they meet on (`groepVan`), each group with its items'
 * places in the batch, the groups sorted by that key: statements of several processes then lock their
 * rows in one order (the rate-limit check and the charge).
 */
export function groepeer<T>(items: T[], groepVan: (item: T) => string): { items: T[]; plaatsen: number[] }[] {
  const groepen = new Map<string, { items: T[]; plaatsen: number[] }>();
  items.forEach((item, j) => {
    const k = groepVan(item);
    let g = groepen.get(k);
    if (!g) groepen.set(k, (g = { items: [], plaatsen: [] }));
    g.items.push(item);
    g.plaatsen.push(j);
  });
  return [...groepen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g);
}

/**
 * A reader of the rows of one statement per id for the requests in flight, read together: `tekst` takes
 * the ids as one array ($1) and names each row's id `sleutel`; every request gets the rows of its id in
 * the statement's order (none: an empty list). A lone request goes at once. `lees`: registerRijen for
 * register data a replica may serve; the default reads the primary.
 */
export function rijenPerSleutel<R>(tekst: string, opties: { maxGrootte?: number; lees?: typeof sqlRijen } = {}): (db: Db, sleutel: string) => Promise<R[]> {
  const { maxGrootte = 64, lees = sqlRijen } = opties;
  const lezer = perDatabase<string, R[]>((db) => ({
    maxGrootte,
    async verwerk(_, sleutels) {
      const rijen = await lees<R & { sleutel: string }>(db, tekst, [sleutels]);
      const perSleutel = new Map<string, R[]>(sleutels.map((k) => [k, []]));
      for (const r of rijen) perSleutel.get(r.sleutel)?.push(r);
      return sleutels.map((k) => perSleutel.get(k) as R[]);
    },
  }));
  return (db, sleutel) => lezer(db).voer('rijen', sleutel);
}
