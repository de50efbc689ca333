/**
 * The little dense linear algebra the model needs (normal equations of a few dozen columns, smoothers
 * over a few hundred months). Written out because no pinned dependency provides it.
 */

/**
 * Solve A x = b for a symmetric positive (semi-)definite p x p matrix A (row-major) by Cholesky.
 * A tiny ridge relative to the diagonal keeps rank-deficient systems (a column that never varies)
 * solvable: the coefficient of such a column comes out 0 instead of NaN.
 */
export function solveSpd(a: Float64Array, b: Float64Array, p: number): Float64Array {
  let trace = 0;
  for (let i = 0; i < p; i++) trace += a[i * p + i];
  const ridge = (trace / Math.max(1, p)) * 1e-9 + 1e-12;
  const l = new Float64Array(p * p);
  for (let i = 0; i < p; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * p + j] + (i === j ? ridge : 0);
      for (let k = 0; k < j; k++) s -= l[i * p + k] * l[j * p + k];
      if (i === j) l[i * p + i] = s > ridge * 1e-3 ? Math.sqrt(s) : Infinity;
      else l[i * p + j] = l[j * p + j] === Infinity ? 0 : s / l[j * p + j];
    }
  }
  const z = new Float64Array(p);
  for (let i = 0; i < p; i++) {
    let s = b[i];
    for (let k = 0; k < i; k++) s -= l[i * p + k] * z[k];
    z[i] = l[i * p + i] === Infinity ? 0 : s / l[i * p + i];
  }
  const x = new Float64Array(p);
  for (let i = p - 1; i >= 0; i--) {
    let s = z[i];
    for (let k = i + 1; k < p; k++) s -= l[k * p + i] * x[k];
    x[i] = l[i * p + i] === Infinity ? 0 : s / l[i * p + i];
  }
  return x;
}

/**
 * Whittaker smoother: minimises sum w_t (d_t - z_t)^2 + lambda * sum (second difference of z)^2
 * + kappa * sum z_t^2. Weights 0 mark missing observations (the smoother interpolates across them);
 * kappa > 0 shrinks towards zero, which is how thin regional deviations are pulled to the national curve.
 */
export function whittaker(d: ArrayLike<number>, w: ArrayLike<number>, lambda: number, kappa = 0): Float64Array {
  const m = d.length;
  if (m === 0) return new Float64Array(0);
  const a = new Float64Array(m * m);
  const rhs = new Float64Array(m);
  for (let t = 0; t < m; t++) {
    a[t * m + t] += w[t] + kappa;
    rhs[t] = w[t] * d[t];
  }
  // D'D for second differences, added row by row of D: (1, -2, 1) at t, t+1, t+2.
  for (let t = 0; t + 2 < m; t++) {
    const idx = [t, t + 1, t + 2];
    const c = [1, -2, 1];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) a[idx[i] * m + idx[j]] += lambda * c[i] * c[j];
  }
  // Without any weight or shrinkage the level is free: pin it softly at zero.
  let anyWeight = kappa > 0;
  for (let t = 0; t < m && !anyWeight; t++) anyWeight = w[t] > 0;
  if (!anyWeight) return new Float64Array(m);
  if (m < 3 || kappa === 0) for (let t = 0; t < m; t++) a[t * m + t] += 1e-9;
  return solveSpd(a, rhs, m);
}
