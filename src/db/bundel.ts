/**
 * Natural batching (group commit in the application): at most one statement per hot row key in flight
 * from this process. Concurrent charges of one account (or limit checks of one key) otherwise queue on
 * the row lock, and every commit wakes every waiting backend. A request that finds none in flight goes at
 * once, alone (no timer); what arrives meanwhile goes together in the next statement, in arrival order.
 * Not DataLoader: it batches one event-loop tick only, and caches by key, which a charge must never do.
 * A failed batch statement fails each of its requests; a per-item failure is the batch function's to report.
 */
import { sqlRijen, type Db } from './client.ts';

export interface BundelOpties<In, Uit> {
  /** Returns one result (or Error) per item, in arrival order. */
  verwerk: (groep: string, items: In[]) => Promise<(Uit | Error)[]>;
  maxGrootte: number;
}

interface Wachtend<In, Uit> {
  item: In;
  klaar: (u: Uit) => void;
  fout: (e: unknown) => void;
}

export class Bundelaar<In, Uit> {
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

/** One per database client (tests run several in one process). */
export function perDatabase<In, Uit>(opties: (db: Db) => BundelOpties<In, Uit>): (db: Db) => Bundelaar<In, Uit> {
  const bundelaars = new WeakMap<Db, Bundelaar<In, Uit>>();
  return (db) => {
    let b = bundelaars.get(db);
    if (!b) bundelaars.set(db, (b = new Bundelaar(opties(db))));
    return b;
  };
}

/** Groups sorted by key, so statements of several processes lock their rows in one order. */
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
 * A batch as one JSON parameter (arrays are estimated by their length: planned at every execution), read per item
 * in a LATERAL subquery with OFFSET 0, so the one plan looks each item up by an index even before there are statistics.
 */
export function batchParameter(items: unknown[]): string {
  return JSON.stringify(items);
}

/** The rows per id of the requests in flight ($1: batchParameter of the ids; rows name their id `id`). */
export function rijenPerId<R>(tekst: string, maxGrootte = 64): (db: Db, id: string) => Promise<R[]> {
  const lezer = perDatabase<string, R[]>((db) => ({
    maxGrootte,
    async verwerk(_, ids) {
      const rijen = await sqlRijen<R & { id: string }>(db, tekst, [batchParameter([...new Set(ids)])]);
      const perId = new Map<string, R[]>(ids.map((id) => [id, []]));
      for (const r of rijen) perId.get(r.id)?.push(r);
      return ids.map((id) => perId.get(id) as R[]);
    },
  }));
  return (db, id) => lezer(db).voer('rijen', id);
}
