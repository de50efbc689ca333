/**
 * How much of a backtest's MdAPE is the luck of its test period: a seeded percentile bootstrap over the
 * test sales; paired for the lead over the reference (both variants' errors of a sale drawn together).
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { Waardering } from '../types.ts';
import { median, type BacktestPrediction } from './metrics.ts';

export const TREKKINGEN = 2000;

/** 2.5th and 97.5th percentile of the bootstrap draws. */
export interface Interval {
  laag: number;
  hoog: number;
}

/** APE per valued sale, by sale id (refusals have none). */
export function apePerVerkoop(predictions: readonly BacktestPrediction[]): Map<string, number> {
  const uit = new Map<string, number>();
  for (const p of predictions) if (p.uitkomst.soort === 'waarde') uit.set(p.id, Math.abs((p.uitkomst as Waardering).marktwaarde / p.prijs - 1));
  return uit;
}

function percentielen(draws: Float64Array): Interval {
  draws.sort();
  const at = (q: number) => draws[Math.min(draws.length - 1, Math.max(0, Math.round(q * (draws.length - 1))))];
  return { laag: at(0.025), hoog: at(0.975) };
}

// The same resample of the sales for every column.
function bootstrap(kolommen: readonly Float64Array[], statistic: (resampled: Float64Array[]) => number, trekkingen: number, seed: number): Interval {
  const n = kolommen[0]?.length ?? 0;
  if (n === 0) return { laag: NaN, hoog: NaN };
  const g = xoroshiro128plus(seed);
  const draws = new Float64Array(trekkingen);
  const buf = kolommen.map(() => new Float64Array(n));
  for (let t = 0; t < trekkingen; t++) {
    for (let i = 0; i < n; i++) {
      const j = Math.floor(uniformFloat64(g) * n);
      for (let k = 0; k < kolommen.length; k++) buf[k][i] = kolommen[k][j];
    }
    draws[t] = statistic(buf);
  }
  return percentielen(draws);
}

export function mdapeInterval(apes: Map<string, number>, trekkingen = TREKKINGEN, seed = 1): Interval {
  return bootstrap([Float64Array.from(apes.values())], ([a]) => median(a.sort()), trekkingen, seed);
}

/** 95 % interval of the lead 1 − MdAPE(model) / MdAPE(reference) over the sales both valued. */
export function voorsprongInterval(model: Map<string, number>, referentie: Map<string, number>, trekkingen = TREKKINGEN, seed = 1): Interval & { gepaard: number } {
  const ids = [...model.keys()].filter((id) => referentie.has(id));
  const m = Float64Array.from(ids, (id) => model.get(id)!);
  const r = Float64Array.from(ids, (id) => referentie.get(id)!);
  return { ...bootstrap([m, r], ([a, b]) => 1 - median(a.sort()) / median(b.sort()), trekkingen, seed), gepaard: ids.length };
}
