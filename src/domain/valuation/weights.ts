/**
 * Similarity weights of comparables and the weighted statistics built on them.
 */

/** Bandwidths of the similarity kernel (each factor is 1 for a perfect match). */
export interface WeightParams {
  /** Distance bandwidth as a multiple of the adaptive radius (distance to the k-th nearest comparable). */
  afstandFactor: number;
  /** Smallest distance bandwidth in metres: next-door and same-block sales weigh alike. */
  afstandMin: number;
  /** Which nearest comparable sets the adaptive radius. */
  afstandK: number;
  /** Bandwidth of |log(area ratio)|. */
  oppervlakte: number;
  /** Bandwidth of the build-year difference, in years. */
  bouwjaar: number;
  /** Bandwidth of the sale's age at the peildatum, in months. */
  ouderdom: number;
  /** Bandwidth of the total |log| attribute adjustment. */
  correctie: number;
}

export const DEFAULT_WEIGHTS: WeightParams = {
  afstandFactor: 1,
  afstandMin: 150,
  afstandK: 8,
  oppervlakte: 0.4,
  bouwjaar: 20,
  ouderdom: 18,
  correctie: 0.3,
};

/**
 * Similarity weight: a product of smooth kernels, so no single criterion is a cliff. Distance uses a
 * Cauchy kernel (heavy tail: a slightly farther but otherwise identical sale still counts); the
 * others are Gaussian.
 */
export function similarityWeight(p: WeightParams, distance: number, bandwidth: number, dLogOpp: number, dYear: number, ageMonths: number, adjustment: number): number {
  const u = distance / bandwidth;
  let w = 1 / (1 + u * u);
  const a = dLogOpp / p.oppervlakte;
  const c = adjustment / p.correctie;
  let e = a * a + c * c;
  if (dYear === dYear) {
    const yr = dYear / p.bouwjaar;
    e += yr * yr;
  }
  const t = ageMonths / p.ouderdom;
  e += t * t;
  w *= Math.exp(-0.5 * e);
  return w;
}

/** (sum w)^2 / sum w^2: how many equally weighted comparables the weights are worth. */
export function effectiveCount(weights: ArrayLike<number>, n = weights.length): number {
  let s = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    s += weights[i];
    s2 += weights[i] * weights[i];
  }
  return s2 > 0 ? (s * s) / s2 : 0;
}

/**
 * Weighted median of `values[0..n)`: the value where the cumulative weight (in value order) crosses
 * half the total. When it lands exactly on a boundary the two neighbours are averaged, so an even
 * set of equal weights gives the ordinary median. `order` is scratch space of at least n entries.
 */
export function weightedMedian(values: ArrayLike<number>, weights: ArrayLike<number>, n = values.length, order: number[] = []): number {
  if (n === 0) return NaN;
  order.length = n;
  let total = 0;
  for (let i = 0; i < n; i++) {
    order[i] = i;
    total += weights[i];
  }
  sorteerIndices(order, values, n);
  const half = total / 2;
  let cum = 0;
  for (let k = 0; k < n; k++) {
    cum += weights[order[k]];
    if (cum > half * (1 + 1e-12)) return values[order[k]];
    if (Math.abs(cum - half) <= half * 1e-12) {
      for (let j = k + 1; j < n; j++) if (weights[order[j]] > 0) return (values[order[k]] + values[order[j]]) / 2;
      return values[order[k]];
    }
  }
  return values[order[n - 1]];
}

/**
 * order[0..n) sorted by values, ties in index order (a stable sort). A valuation sorts at most 40
 * comparables (maxAantal): insertion sort without a comparator callback, about a third of the time of
 * Array.prototype.sort there; larger sets (model fitting) take the library sort.
 */
function sorteerIndices(order: number[], values: ArrayLike<number>, n: number): void {
  if (n > 64) {
    order.sort((i, j) => values[i] - values[j]);
    return;
  }
  for (let i = 1; i < n; i++) {
    const o = order[i];
    const v = values[o];
    let j = i - 1;
    while (j >= 0 && values[order[j]] > v) {
      order[j + 1] = order[j];
      j--;
    }
    order[j + 1] = o;
  }
}

/** Weighted median of |values - centre|: a robust spread that one odd sale cannot blow up. */
export function weightedMad(values: ArrayLike<number>, weights: ArrayLike<number>, centre: number, n: number, scratch: Float64Array, order: number[] = []): number {
  for (let i = 0; i < n; i++) scratch[i] = Math.abs(values[i] - centre);
  return weightedMedian(scratch, weights, n, order);
}

/** k-th smallest (0-based) of a[0..n) by quickselect; reorders a. */
export function kthSmallest(a: Float64Array, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const tmp = a[i];
        a[i] = a[j];
        a[j] = tmp;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}
