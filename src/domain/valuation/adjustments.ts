/**
 * Attribute adjustments of a comparable towards the subject: what the comparable would have sold
 * for had it the subject's living area, plot, build year, house type and energy label. The effects
 * are estimated once from the held sales (see hedonic.ts) and capped, because a comparable that
 * needs a large correction says more about the correction than about the subject.
 */

/** Knots (years) of the piecewise-linear build-year curve: finer where building styles changed. */
export const YEAR_KNOTS = [1900, 1930, 1950, 1965, 1980, 1995, 2005, 2012] as const;
/** Number of build-year basis columns: one linear term plus one hinge per knot. */
export const YEAR_BASIS = 1 + YEAR_KNOTS.length;

/** Log-price effects of one market segment. */
export interface AttributeEffects {
  /** Elasticity of price to living area: (subject / comp)^opp. */
  opp: number;
  /** Elasticity of price to plot area. */
  perceel: number;
  /** Coefficients of `yearBasis`. */
  year: Float64Array;
  /** Log effect per woningtype code (index 0 = unknown). */
  type: Float64Array;
  /** Log effect per energy-label code (index 0 = unknown). */
  label: Float64Array;
  /** Log effect per unit of each further attribute (KENMERKEN order); empty when the sales have none. */
  kenmerk: Float64Array;
}

/** Caps that keep single adjustments and their sum within what comparables can honestly bridge. */
export interface AdjustmentCaps {
  /** Largest |log| correction for plot area. */
  perceel: number;
  /** Largest |log| correction for build year. */
  bouwjaar: number;
  /** Largest |log| correction for house type or energy label (each). */
  kenmerk: number;
  /** Largest |log| correction for the further attributes (KENMERKEN) together. */
  kenmerken: number;
  /** Comparables whose total |log| attribute correction exceeds this are dropped. */
  totaal: number;
}

/**
 * The further attributes (quality, condition, view, ...) together may move a comparable by at most
 * 0.2 (~22 %): about two steps of a quality scale; a comparable further apart is rather dropped by
 * the total cap than bridged.
 */
export const DEFAULT_CAPS: AdjustmentCaps = { perceel: 0.15, bouwjaar: 0.15, kenmerk: 0.1, kenmerken: 0.2, totaal: 0.35 };

const YEAR_MIN = 1800;
const YEAR_MAX = 2035;

/** Build-year basis (linear + hinges, per decade) written into `out` from `offset`. */
export function yearBasis(year: number, out: Float64Array | number[], offset: number): void {
  const y = Math.min(YEAR_MAX, Math.max(YEAR_MIN, year));
  out[offset] = (y - 1960) / 10;
  for (let k = 0; k < YEAR_KNOTS.length; k++) out[offset + 1 + k] = Math.max(0, y - YEAR_KNOTS[k]) / 10;
}

/** Log effect of a build year under `effects`. */
export function yearEffect(effects: AttributeEffects, year: number): number {
  const y = Math.min(YEAR_MAX, Math.max(YEAR_MIN, year));
  const c = effects.year;
  let s = (c[0] * (y - 1960)) / 10;
  for (let k = 0; k < YEAR_KNOTS.length; k++) if (y > YEAR_KNOTS[k]) s += (c[1 + k] * (y - YEAR_KNOTS[k])) / 10;
  return s;
}

function clamp(v: number, cap: number): number {
  return v > cap ? cap : v < -cap ? -cap : v;
}

/** Subject attributes in the form the per-comparable loop needs (logs taken once per request). */
export interface SubjectAttributes {
  logOpp: number;
  logPerceel: number;
  bouwjaar: number;
  /** yearEffect of the subject's build year, NaN when unknown. */
  yearEffect: number;
  type: number;
  label: number;
  /** Further attributes (KENMERKEN order, NaN = unknown); null/absent when the sales have none. */
  kenmerken?: ArrayLike<number> | null;
}

/**
 * Total log adjustment (living area, plot, build year, type, label) of a comparable towards the
 * subject. Attributes unknown on either side contribute nothing: no adjustment beats a guessed one.
 */
export function attributeAdjustment(
  e: AttributeEffects,
  caps: AdjustmentCaps,
  s: SubjectAttributes,
  compLogOpp: number,
  compLogPerceel: number,
  compBouwjaar: number,
  compType: number,
  compLabel: number,
  compKenmerken: ArrayLike<number> | null = null,
  compOffset = 0,
): number {
  let adj = e.opp * (s.logOpp - compLogOpp);
  if (s.logPerceel === s.logPerceel && compLogPerceel === compLogPerceel) adj += clamp(e.perceel * (s.logPerceel - compLogPerceel), caps.perceel);
  if (s.yearEffect === s.yearEffect && compBouwjaar === compBouwjaar) adj += clamp(s.yearEffect - yearEffect(e, compBouwjaar), caps.bouwjaar);
  if (s.type !== 0 && compType !== 0) adj += clamp(e.type[s.type] - e.type[compType], caps.kenmerk);
  if (s.label !== 0 && compLabel !== 0) adj += clamp(e.label[s.label] - e.label[compLabel], caps.kenmerk);
  const sk = s.kenmerken;
  if (sk && compKenmerken && e.kenmerk.length) {
    let k = 0;
    for (let j = 0; j < e.kenmerk.length; j++) {
      const d = sk[j] - compKenmerken[compOffset + j];
      if (d === d) k += e.kenmerk[j] * d;
    }
    adj += clamp(k, caps.kenmerken);
  }
  return adj;
}

/** Effects to fall back on when a segment has too few sales to estimate its own. */
export function defaultEffects(typeCount: number, labelCount: number): AttributeEffects {
  return { opp: 0.7, perceel: 0.1, year: new Float64Array(YEAR_BASIS), type: new Float64Array(typeCount), label: new Float64Array(labelCount), kenmerk: new Float64Array(0) };
}
