/**
 * In-memory spatial index of the held sales, one static k-d tree (KDBush) per market segment so a
 * query never even visits the other segment's sales.
 */
import KDBush from 'kdbush';
import type { SalesTable } from './sales-table.ts';

export interface SegmentIndex {
  tree: KDBush;
  /** Row in the SalesTable of each tree item. */
  rows: Int32Array;
}

export interface SpatialIndex {
  segments: SegmentIndex[];
}

/** Build a k-d tree per segment over the projected (metre) coordinates of `rows` of the table. */
export function buildSpatialIndex(table: SalesTable, rows: ArrayLike<number>, segmentCount = 2): SpatialIndex {
  const perSegment: number[][] = Array.from({ length: segmentCount }, () => []);
  for (let k = 0; k < rows.length; k++) perSegment[table.segment[rows[k]]].push(rows[k]);
  const segments = perSegment.map((list) => {
    // KDBush refuses 0 items; an empty tree with one far-away dummy keeps the query path uniform.
    const tree = new KDBush(Math.max(1, list.length), 32);
    if (list.length === 0) tree.add(1e12, 1e12);
    for (const r of list) tree.add(table.x[r], table.y[r]);
    tree.finish();
    return { tree, rows: Int32Array.from(list.length ? list : [-1]) };
  });
  return { segments };
}

/**
 * Rows of the table within `radius` metres of (x, y) in one segment, written into `out`.
 * Returns how many were written.
 */
export function rowsWithin(index: SpatialIndex, segment: number, x: number, y: number, radius: number, out: number[]): number {
  const s = index.segments[segment];
  const n = s.tree.withinInto(x, y, radius, out);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const r = s.rows[out[i]];
    if (r >= 0) out[k++] = r;
  }
  return k;
}
