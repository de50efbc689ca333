/**
 * A small histogram gradient-boosted regression tree ensemble (squared loss), written here because
 * no well-kept pure-JavaScript GBDT exists on npm (checked: ml-xgboost is an unmaintained wasm build,
 * decision-tree and ml-cart are single trees / exact splits, far too slow for 10^5 rows).
 *
 * Method (as LightGBM/XGBoost "hist"): every feature is cut into at most `bins` quantile bins once;
 * each tree grows depth-wise, choosing per node the split with the largest squared-loss gain from
 * per-bin gradient sums; leaves are shrunk by `lambda` and the learning rate. Missing values (NaN)
 * form bin 0 and always go left, so a split "x <= t" sends NaN left too. Rows are subsampled per
 * tree with a fixed hash (deterministic: the same data give the same model). With a validation set
 * the ensemble stops when the validation mean absolute error has not improved for `patience` trees
 * and keeps the best prefix. Monotone constraints (XGBoost's basic method): a split on a constrained
 * feature keeps its children's values in order and bounds their subtrees by the midpoint; NaN-or-not is free.
 */

import { kthSmallest } from './weights.ts';

export interface GbdtParams {
  /** Most trees (the validation set usually stops earlier). */
  maxTrees: number;
  depth: number;
  learningRate: number;
  /** Fewest training rows in a leaf. */
  minLeaf: number;
  /** L2 shrinkage of leaf values (in rows). */
  lambda: number;
  /** Most bins per feature (<= 255). */
  bins: number;
  /** Share of rows each tree sees. */
  subsample: number;
  /** Stop after this many trees without a better validation error. */
  patience: number;
  /**
   * Huber loss: each tree fits the residuals clipped at this quantile of their absolute values
   * (0.9 as in Friedman's M-regression); 1 = squared loss.
   */
  huberQuantile: number;
  /** Per feature +1 (prediction non-decreasing in it), -1 (non-increasing) or 0 (free; so is any past the end). */
  monotone: readonly number[];
}

/**
 * Defaults fixed in code (not tuned per dataset): depth 6 and 20-row leaves are the common GBDT
 * defaults for tabular data of 10^4..10^6 rows; learning rate 0.05 with early stopping on a later
 * slice lets the data choose the number of trees.
 */
export const DEFAULT_GBDT: GbdtParams = {
  maxTrees: 800,
  depth: 6,
  learningRate: 0.05,
  minLeaf: 20,
  lambda: 1,
  bins: 255,
  subsample: 0.7,
  patience: 60,
  huberQuantile: 1,
  monotone: [],
};

/** A fitted ensemble: trees stored as flat arrays (node 0 is the root of each tree). */
export interface Gbdt {
  features: number;
  base: number;
  /** The loss and the monotone constraints it was fitted with (GbdtParams). */
  huberQuantile: number;
  monotone: readonly number[];
  /** Per tree: split feature (-1 = leaf), threshold, children, leaf value. */
  trees: { feature: Int16Array; threshold: Float64Array; left: Int32Array; right: Int32Array; value: Float64Array }[];
}

/** Row-major feature matrix: row i is x[i * features .. (i + 1) * features). */
export interface Matrix {
  rows: number;
  features: number;
  x: Float64Array;
}

function binEdges(m: Matrix, f: number, bins: number): Float64Array {
  const vals: number[] = [];
  for (let i = 0; i < m.rows; i++) {
    const v = m.x[i * m.features + f];
    if (v === v) vals.push(v);
  }
  vals.sort((a, b) => a - b);
  const edges: number[] = [];
  for (let b = 1; b < bins - 1; b++) {
    const v = vals[Math.floor((b * vals.length) / (bins - 1))];
    if (v !== undefined && (edges.length === 0 || v > edges[edges.length - 1])) edges.push(v);
  }
  // Values above the last edge fall into the last bin: drop an edge equal to the maximum.
  if (edges.length && edges[edges.length - 1] >= vals[vals.length - 1]) edges.pop();
  return Float64Array.from(edges);
}

/** Bin of v: 0 = missing, 1 + number of edges below v otherwise. */
function binOf(edges: Float64Array, v: number): number {
  if (v !== v) return 0;
  let lo = 0;
  let hi = edges.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (edges[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo + 1;
}

/** q-quantile of a (reorders a): the value a full sort would put there, by selection in linear time. */
function quantileOf(a: Float64Array, q: number): number {
  return kthSmallest(a, a.length, Math.min(a.length - 1, Math.floor(q * a.length)));
}

/** Predict one row (features at x[offset..]). */
export function predictGbdt(model: Gbdt, x: ArrayLike<number>, offset = 0): number {
  let s = model.base;
  for (const t of model.trees) {
    let n = 0;
    while (t.feature[n] >= 0) {
      const v = x[offset + t.feature[n]];
      n = v !== v || v <= t.threshold[n] ? t.left[n] : t.right[n];
    }
    s += t.value[n];
  }
  return s;
}

/**
 * Fit on (train, y). `valid` (with `yValid`) drives early stopping; without it all `maxTrees`
 * trees are kept.
 */
export function fitGbdt(train: Matrix, y: Float64Array, params: Partial<GbdtParams> = {}, valid?: Matrix, yValid?: Float64Array): Gbdt {
  const p = { ...DEFAULT_GBDT, ...params };
  const n = train.rows;
  const F = train.features;
  const mono = Int8Array.from({ length: F }, (_, f) => Math.sign(p.monotone[f] ?? 0));
  if (n === 0) return { features: F, base: 0, huberQuantile: p.huberQuantile, monotone: p.monotone, trees: [] };
  const edges = Array.from({ length: F }, (_, f) => binEdges(train, f, Math.min(255, p.bins)));
  const nb = edges.map((e) => e.length + 2);
  const maxBins = Math.max(...nb);
  // Row-major bins: a node's histogram reads each of its rows' bins as one contiguous run.
  const binned = new Uint8Array(n * F);
  for (let i = 0; i < n; i++) for (let f = 0; f < F; f++) binned[i * F + f] = binOf(edges[f], train.x[i * F + f]);

  let base = 0;
  for (let i = 0; i < n; i++) base += y[i];
  base /= n;
  const pred = new Float64Array(n).fill(base);
  const resid = new Float64Array(n);
  const absResid = p.huberQuantile < 1 ? new Float64Array(n) : resid;
  const vPred = valid ? new Float64Array(valid.rows).fill(base) : null;
  const rows = new Int32Array(n);
  // Which rows this tree saw: their new prediction is their leaf's value, added as the leaf is made.
  const seen = new Uint8Array(n);
  // Two histogram slots per depth (a node's two children); a node's own slot lives until its
  // children's are made, the larger child's as parent minus smaller (LightGBM's subtraction trick).
  const H = F * maxBins;
  const histG = new Float64Array(2 * (p.depth + 1) * H);
  const histN = new Float64Array(2 * (p.depth + 1) * H);
  const histogram = (slot: number, start: number, end: number): void => {
    const o = slot * H;
    histG.fill(0, o, o + H);
    histN.fill(0, o, o + H);
    for (let k = start; k < end; k++) {
      const r = rows[k];
      const g = resid[r];
      const at = r * F;
      for (let f = 0, h = o; f < F; f++, h += maxBins) {
        const b = h + binned[at + f];
        histG[b] += g;
        histN[b]++;
      }
    }
  };
  const subtract = (slot: number, from: number, minus: number): void => {
    const o = slot * H;
    const a = from * H;
    const m = minus * H;
    for (let b = 0; b < H; b++) {
      histG[o + b] = histG[a + b] - histG[m + b];
      histN[o + b] = histN[a + b] - histN[m + b];
    }
  };
  const model: Gbdt = { features: F, base, huberQuantile: p.huberQuantile, monotone: p.monotone, trees: [] };
  let best = Infinity;
  let bestTrees = 0;

  for (let t = 0; t < p.maxTrees; t++) {
    let m = 0;
    const salt = Math.imul(t + 1, 0x9e3779b1);
    for (let i = 0; i < n; i++) {
      const inTree = p.subsample >= 1 || ((Math.imul(i ^ salt, 2654435761) >>> 0) / 4294967296) < p.subsample;
      if (inTree) rows[m++] = i;
      seen[i] = inTree ? 1 : 0;
      resid[i] = y[i] - pred[i];
    }
    if (p.huberQuantile < 1) {
      for (let i = 0; i < n; i++) absResid[i] = Math.abs(resid[i]);
      const delta = quantileOf(absResid, p.huberQuantile);
      for (let i = 0; i < n; i++) resid[i] = resid[i] > delta ? delta : resid[i] < -delta ? -delta : resid[i];
    }
    const feature: number[] = [];
    const threshold: number[] = [];
    const left: number[] = [];
    const right: number[] = [];
    const value: number[] = [];
    const splits = (cnt: number, depth: number) => depth < p.depth && cnt >= 2 * p.minLeaf;
    /** Grow the node of rows[start..end) whose histogram is in `slot`, its value bounded by [lo, hi]. */
    const grow = (start: number, end: number, depth: number, slot: number, lo: number, hi: number): number => {
      const id = feature.length;
      feature.push(-1);
      threshold.push(0);
      left.push(-1);
      right.push(-1);
      let G = 0;
      for (let k = start; k < end; k++) G += resid[rows[k]];
      const cnt = end - start;
      const bounded = lo > -Infinity || hi < Infinity;
      const clamp = (w: number) => (w < lo ? lo : w > hi ? hi : w);
      const score = (g: number, c: number): number => {
        const w = g / (c + p.lambda);
        const v = clamp(w);
        return v === w ? (g * g) / (c + p.lambda) : 2 * g * v - (c + p.lambda) * v * v;
      };
      value.push(bounded ? p.learningRate * clamp(G / (cnt + p.lambda)) : (p.learningRate * G) / (cnt + p.lambda));
      const leaf = (): number => {
        const v = value[id];
        for (let k = start; k < end; k++) pred[rows[k]] += v;
        return id;
      };
      if (!splits(cnt, depth)) return leaf();
      const o = slot * H;
      const parent = score(G, cnt);
      let bestGain = 1e-12;
      let bf = -1;
      let bb = -1;
      let gL = 0;
      for (let f = 0; f < F; f++) {
        const h = o + f * maxBins;
        const dir = mono[f];
        const free = !bounded && dir === 0;
        let gl = 0;
        let nl = 0;
        for (let b = 0; b < nb[f] - 1; b++) {
          gl += histG[h + b];
          nl += histN[h + b];
          if (nl < p.minLeaf) continue;
          const nr = cnt - nl;
          if (nr < p.minLeaf) break;
          const gr = G - gl;
          if (dir !== 0 && b > 0) {
            const wl = clamp(gl / (nl + p.lambda));
            const wr = clamp(gr / (nr + p.lambda));
            if (dir > 0 ? wl > wr : wl < wr) continue;
          }
          const gain = free ? (gl * gl) / (nl + p.lambda) + (gr * gr) / (nr + p.lambda) - parent : score(gl, nl) + score(gr, nr) - parent;
          if (gain > bestGain) {
            bestGain = gain;
            bf = f;
            bb = b;
            gL = gl;
          }
        }
      }
      if (bf < 0) return leaf();
      let i = start;
      let j = end - 1;
      while (i <= j) {
        if (binned[rows[i] * F + bf] <= bb) i++;
        else {
          const tmp = rows[i];
          rows[i] = rows[j];
          rows[j] = tmp;
          j--;
        }
      }
      feature[id] = bf;
      threshold[id] = bb === 0 ? -Infinity : edges[bf][bb - 1];
      const ls = 2 * (depth + 1);
      const rs = ls + 1;
      const nl = i - start;
      const nr = end - i;
      const growL = splits(nl, depth + 1);
      const growR = splits(nr, depth + 1);
      if (nl <= nr) {
        if (growL || growR) histogram(ls, start, i);
        if (growR) subtract(rs, slot, ls);
      } else {
        if (growL || growR) histogram(rs, i, end);
        if (growL) subtract(ls, slot, rs);
      }
      let lb = [lo, hi];
      let rb = lb;
      const dir = mono[bf];
      if (dir !== 0 && bb > 0) {
        const mid = (clamp(gL / (nl + p.lambda)) + clamp((G - gL) / (nr + p.lambda))) / 2;
        lb = dir > 0 ? [lo, mid] : [mid, hi];
        rb = dir > 0 ? [mid, hi] : [lo, mid];
      }
      const l = grow(start, i, depth + 1, ls, lb[0], lb[1]);
      left[id] = l;
      const r = grow(i, end, depth + 1, rs, rb[0], rb[1]);
      right[id] = r;
      return id;
    };
    if (splits(m, 0)) histogram(0, 0, m);
    grow(0, m, 0, 0, -Infinity, Infinity);
    const tree = {
      feature: Int16Array.from(feature),
      threshold: Float64Array.from(threshold),
      left: Int32Array.from(left),
      right: Int32Array.from(right),
      value: Float64Array.from(value),
    };
    model.trees.push(tree);
    const one = { ...model, base: 0, trees: [tree] };
    for (let i = 0; i < n; i++) if (!seen[i]) pred[i] += predictGbdt(one, train.x, i * F);
    if (valid && vPred && yValid) {
      let err = 0;
      for (let i = 0; i < valid.rows; i++) {
        vPred[i] += predictGbdt(one, valid.x, i * F);
        err += Math.abs(yValid[i] - vPred[i]);
      }
      err /= Math.max(1, valid.rows);
      if (err < best - 1e-9) {
        best = err;
        bestTrees = model.trees.length;
      } else if (model.trees.length - bestTrees >= p.patience) break;
    }
  }
  if (valid && valid.rows > 0) model.trees.length = bestTrees;
  return model;
}
