/**
 * Observers of one kind of event per database client, for /metrics: each app (several in one process in
 * the tests) follows the events of its own database client only.
 */
export function waarnemers<T>() {
  const per = new WeakMap<object, Set<(v: T) => void>>();
  return {
    /** Call `fn` with every event on `db`. Returns the unsubscribe. */
    volg(db: object, fn: (v: T) => void): () => void {
      let set = per.get(db);
      if (!set) per.set(db, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    },
    meld(db: object, v: T): void {
      for (const fn of per.get(db) ?? []) fn(v);
    },
  };
}
