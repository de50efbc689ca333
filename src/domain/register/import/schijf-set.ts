/** A set of keys (with a value each) in a temporary SQLite file: a run's keys without holding them in the heap. */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { tijdelijkeMap } from './tijdelijk.ts';

export class SchijfSet {
  readonly #dir = tijdelijkeMap('insight-set-');
  readonly #db = new DatabaseSync(path.join(this.#dir, 'set.sqlite'));
  readonly #zet: StatementSync;
  readonly #lees: StatementSync;
  #inTx = 0;

  constructor() {
    this.#db.exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; CREATE TABLE s (k TEXT PRIMARY KEY, w TEXT) WITHOUT ROWID;');
    this.#zet = this.#db.prepare('INSERT OR IGNORE INTO s (k, w) VALUES (?, ?)');
    this.#lees = this.#db.prepare('SELECT w FROM s WHERE k = ?');
  }

  /** The value already held for `k` (which stays), or undefined when `k` is new. */
  zet(k: string, w = ''): string | undefined {
    const oud = this.#lees.get(k) as { w: string } | undefined;
    if (oud) return oud.w;
    if (this.#inTx === 0) this.#db.exec('BEGIN');
    this.#zet.run(k, w);
    if (++this.#inTx >= 10_000) this.#commit();
    return undefined;
  }

  heeft(k: string): boolean {
    return this.#lees.get(k) !== undefined;
  }

  /** Every key with its value, in key order. */
  alle(): Iterable<{ k: string; w: string }> {
    this.#commit();
    return this.#db.prepare('SELECT k, w FROM s ORDER BY k').iterate() as Iterable<{ k: string; w: string }>;
  }

  #commit(): void {
    if (this.#inTx > 0) this.#db.exec('COMMIT');
    this.#inTx = 0;
  }

  sluit(): void {
    try {
      this.#db.close();
    } catch {}
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
