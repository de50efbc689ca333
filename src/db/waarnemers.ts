/** Per database client: each app (several per process in tests) follows its own client's events only. */
export function waarnemers<T>() {
  const per = new WeakMap<object, Set<(v: T) => void>>();
  return {
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
