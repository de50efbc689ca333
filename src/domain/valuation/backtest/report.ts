/**
 * Self-contained HTML report of a backtest: summary, metrics per label / segment / price decile,
 * the label definitions, and charts made with vega-lite and rendered to inline SVG on the server,
 * so the file opens offline and without JavaScript.
 */
import * as vega from 'vega';
import { compile } from 'vega-lite';
import type { TopLevelSpec } from 'vega-lite';
import { HOOG_AANDEEL, HOOG_BINNEN, LAAG_AANDEEL, LAAG_BINNEN } from '../confidence.ts';
import type { AblationRow, BacktestResult } from './engine.ts';
import type { AccuracyMetrics, BacktestPrediction } from './metrics.ts';
import type { Waardering } from '../types.ts';

const LABEL_COLORS = { hoog: '#1a9850', normaal: '#4575b4', laag: '#d73027' };

function esc(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

function pct(v: number, digits = 1): string {
  return Number.isFinite(v) ? `${(v * 100).toFixed(digits)}%` : '–';
}

function num(v: number, digits = 3): string {
  return Number.isFinite(v) ? v.toFixed(digits) : '–';
}

/** Render a vega-lite spec to an SVG string (no DOM, no canvas). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

type Valued = BacktestPrediction & { uitkomst: Waardering };

function valued(rows: readonly BacktestPrediction[]): Valued[] {
  return rows.filter((r): r is Valued => r.uitkomst.soort === 'waarde');
}

/** Histogram of the percentage error, stacked per confidence label, with the +-10 % lines. */
export function errorDistributionSpec(rows: readonly BacktestPrediction[]): TopLevelSpec {
  const values = valued(rows).map((r) => ({ fout: Math.max(-50, Math.min(50, 100 * (r.uitkomst.marktwaarde / r.prijs - 1))), label: r.uitkomst.betrouwbaarheid }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Foutverdeling: (marktwaarde / verkoopprijs − 1), afgekapt op ±50%',
    width: 640,
    height: 260,
    layer: [
      {
        data: { values },
        mark: 'bar',
        encoding: {
          x: { field: 'fout', type: 'quantitative', bin: { step: 2.5, extent: [-50, 50] }, title: 'fout (%)' },
          y: { aggregate: 'count', type: 'quantitative', title: 'verkopen' },
          color: { field: 'label', type: 'nominal', title: 'betrouwbaarheid', scale: { domain: Object.keys(LABEL_COLORS), range: Object.values(LABEL_COLORS) } },
        },
      },
      {
        data: { values: [{ x: -10 }, { x: 10 }] },
        mark: { type: 'rule', strokeDash: [4, 3], color: '#333' },
        encoding: { x: { field: 'x', type: 'quantitative' } },
      },
    ],
  };
}

/**
 * Calibration plot: valuations grouped in deciles of their predicted band width; per group the
 * realised share of prices inside the band (should sit on the 80 % line) and within 10 %.
 */
export function calibrationSpec(rows: readonly BacktestPrediction[], target = 0.8): TopLevelSpec {
  const v = valued(rows)
    .map((r) => ({ label: r.uitkomst.betrouwbaarheid, breedte: (r.uitkomst.max - r.uitkomst.min) / r.uitkomst.marktwaarde / 2, inBand: r.prijs >= r.uitkomst.min && r.prijs <= r.uitkomst.max, binnen10: Math.abs(r.uitkomst.marktwaarde / r.prijs - 1) <= 0.1 }))
    .sort((a, b) => a.breedte - b.breedte);
  const points: { breedte: number; aandeel: number; reeks: string }[] = [];
  const series = (part0: typeof v, naam: string, maxGroups: number, withinToo: boolean) => {
    const groups = Math.min(maxGroups, Math.max(1, Math.floor(part0.length / 20)));
    for (let g = 0; g < groups && part0.length; g++) {
      const part = part0.slice(Math.floor((g * part0.length) / groups), Math.floor(((g + 1) * part0.length) / groups));
      const mid = 100 * part[part.length >> 1].breedte;
      points.push({ breedte: mid, aandeel: (100 * part.filter((p) => p.inBand).length) / part.length, reeks: naam });
      if (withinToo) points.push({ breedte: mid, aandeel: (100 * part.filter((p) => p.binnen10).length) / part.length, reeks: 'binnen 10%' });
    }
  };
  series(v, 'prijs binnen band (alle)', 10, true);
  const labels = new Set(v.map((p) => p.label));
  if (labels.size > 1) for (const l of ['hoog', 'normaal', 'laag'] as const) series(v.filter((p) => p.label === l), `prijs binnen band (${l})`, 5, false);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `Kalibratie: gerealiseerde dekking per deciel van de voorspelde bandbreedte (doel ${Math.round(target * 100)}%)`,
    width: 640,
    height: 260,
    layer: [
      {
        data: { values: points },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'breedte', type: 'quantitative', title: 'halve bandbreedte, mediaan van de groep (%)', scale: { zero: false } },
          y: { field: 'aandeel', type: 'quantitative', title: 'gerealiseerd (%)', scale: { domain: [0, 100] } },
          color: { field: 'reeks', type: 'nominal', title: null },
        },
      },
      {
        data: { values: [{ y: target * 100 }] },
        mark: { type: 'rule', strokeDash: [4, 3], color: '#333' },
        encoding: { y: { field: 'y', type: 'quantitative' } },
      },
    ],
  };
}

/** Estimate against sale price on log axes, with the line of perfect agreement. */
export function scatterSpec(rows: readonly BacktestPrediction[]): TopLevelSpec {
  const v = valued(rows);
  const step = Math.max(1, Math.ceil(v.length / 4000));
  const values = v.filter((_, i) => i % step === 0).map((r) => ({ prijs: r.prijs, marktwaarde: r.uitkomst.marktwaarde, label: r.uitkomst.betrouwbaarheid }));
  const lo = Math.min(...values.map((p) => Math.min(p.prijs, p.marktwaarde)));
  const hi = Math.max(...values.map((p) => Math.max(p.prijs, p.marktwaarde)));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Marktwaarde tegen verkoopprijs (log-assen)',
    width: 420,
    height: 420,
    layer: [
      {
        data: { values },
        mark: { type: 'circle', size: 8, opacity: 0.45 },
        encoding: {
          x: { field: 'prijs', type: 'quantitative', scale: { type: 'log', domain: [lo, hi], nice: false }, title: 'verkoopprijs' },
          y: { field: 'marktwaarde', type: 'quantitative', scale: { type: 'log', domain: [lo, hi], nice: false }, title: 'marktwaarde' },
          color: { field: 'label', type: 'nominal', title: 'betrouwbaarheid', scale: { domain: Object.keys(LABEL_COLORS), range: Object.values(LABEL_COLORS) } },
        },
      },
      {
        data: { values: [{ a: lo, b: lo }, { a: hi, b: hi }] },
        mark: { type: 'line', color: '#333', strokeDash: [4, 3] },
        encoding: { x: { field: 'a', type: 'quantitative' }, y: { field: 'b', type: 'quantitative' } },
      },
    ],
  };
}

const METRIC_HEAD = '<th>n</th><th>MdAPE</th><th>gem. APE</th><th>PE5</th><th>PE10</th><th>PE20</th><th>mediaan ratio</th><th>COD</th><th>PRD</th><th>dekking band</th><th>bandbreedte</th>';

function metricCells(m: AccuracyMetrics): string {
  return [String(m.n), pct(m.mdape, 2), pct(m.meanApe, 2), pct(m.pe5), pct(m.pe10), pct(m.pe20), num(m.medianRatio), num(m.cod, 1), num(m.prd), pct(m.dekking), pct(m.bandBreedte)].map((c) => `<td>${c}</td>`).join('');
}

function thresholdText(t: BacktestResult['details']['labels']): string {
  if (!t) return 'geen (model niet gekalibreerd: alles is laag)';
  const hoog = t.hoog === -Infinity ? "hoog: nooit (geen groep haalde de lat in de kalibratie)" : `hoog bij score ≤ ${num(t.hoog)}`;
  const laag = t.laag === Infinity ? 'laag: nooit' : t.laag === -Infinity ? 'laag: altijd' : `laag bij score &gt; ${num(t.laag)}`;
  return `${hoog}; ${laag}`;
}

/** Ablation table rows (HTML). */
function ablationRows(rows: readonly AblationRow[]): string {
  return rows
    .map((a) => `<tr><th>${esc(a.omschrijving)}</th><td>${pct(a.hitRate)}</td>${metricCells(a.overall)}<td>${num(a.gewicht, 2)}</td><td>${a.bomen}</td></tr>`)
    .join('');
}

/** The full HTML report. `titel` names the data set (e.g. 'King County 2014–2015'); `ablatie` adds the ablation table. */
export async function renderReport(result: BacktestResult, titel: string, ablatie?: readonly AblationRow[]): Promise<string> {
  const m = result.metrics;
  const [fouten, kalibratie, spreiding] = await Promise.all([renderSvg(errorDistributionSpec(result.predictions)), renderSvg(calibrationSpec(result.predictions)), renderSvg(scatterSpec(result.predictions))]);
  const d = result.details;
  const labelRows = (['hoog', 'normaal', 'laag'] as const).map((l) => `<tr><th>${l}</th><td>${pct(m.perLabel[l].aandeel)}</td>${metricCells(m.perLabel[l])}</tr>`).join('');
  const segRows = Object.entries(m.perSegment).map(([k, g]) => `<tr><th>${esc(k)}</th><td>${g.totaal}</td><td>${pct(g.hitRate)}</td>${metricCells(g)}</tr>`).join('');
  const estRows = m.perSchattingDeciel.map((g) => `<tr><th>${g.deciel}</th><td>${g.vanWaarde.toLocaleString('nl-NL')} – ${g.totWaarde.toLocaleString('nl-NL')}</td>${metricCells(g)}</tr>`).join('');
  const decRows = m.perDeciel.map((g) => `<tr><th>${g.deciel}</th><td>${g.vanPrijs.toLocaleString('nl-NL')} – ${g.totPrijs.toLocaleString('nl-NL')}</td><td>${pct(g.hitRate)}</td>${metricCells(g)}</tr>`).join('');
  const cal = d.kalibratie;
  const bucketRows = cal
    ? cal.buckets.map((b) => `<tr><td>${num(b.score)}</td><td>${b.n}</td><td>${pct(Math.exp(b.laag) - 1)}</td><td>+${pct(Math.exp(b.hoog) - 1)}</td><td>${pct(b.pe10)}</td><td>${pct(b.pe20)}</td></tr>`).join('')
    : '';
  const thr = d.labels;
  return `<!doctype html>
<html lang="nl"><head><meta charset="utf-8"><title>Backtest marktwaardemodel – ${esc(titel)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}.kpi{font-size:1.2em}
figure{margin:1em 0}code{background:#f4f4f4;padding:0 3px}
</style></head><body>
<h1>Backtest marktwaardemodel</h1>
<p><b>${esc(titel)}</b> · model <code>${esc(result.model.versie)}</code> · index: ${esc(result.model.indexBron)}</p>
<p>Gesplitst in de tijd: het model is gebouwd op de ${result.training.toLocaleString('nl-NL')} verkopen vóór <b>${result.from}</b>
(index, correcties, band en labels inbegrepen; kalibratie op ${d.kalibratieVerkopen ? `${d.kalibratieVerkopen.van} t/m ${d.kalibratieVerkopen.tot}` : '—'});
elke verkoop vanaf ${result.from} (${result.test.toLocaleString('nl-NL')}) is gewaardeerd met zijn eigen verkoopdatum als peildatum,
zonder eigen verkopen van dezelfde woning. ${result.zonderOppervlakte ? `${result.zonderOppervlakte} verkopen zonder woonoppervlakte overgeslagen.` : ''}</p>
<p class="kpi">MdAPE <b>${pct(m.overall.mdape, 2)}</b> · binnen 10%: <b>${pct(m.overall.pe10)}</b> · binnen 20%: <b>${pct(m.overall.pe20)}</b> ·
hit rate <b>${pct(m.hitRate)}</b> (${m.geweigerd} geweigerd) · dekking 80%-band <b>${pct(m.overall.dekking)}</b></p>
<h2>Totaal</h2><table><tr><th></th>${METRIC_HEAD}</tr><tr><th>alle gewaardeerde</th>${metricCells(m.overall)}</tr></table>
${ablatie?.length ? `<h2>Ablatie</h2><p>Dezelfde splitsing met telkens een deel van het model uit. Gewicht: het op de kalibratieschijf gefitte gewicht van de correctie (leerder of locatiestap); bomen: aantal bomen van de leerder.</p>
<table><tr><th>variant</th><th>hit rate</th>${METRIC_HEAD}<th>gewicht</th><th>bomen</th></tr>${ablationRows(ablatie)}</table>` : ''}
<h2>Per betrouwbaarheidslabel</h2>
<table><tr><th>label</th><th>aandeel</th>${METRIC_HEAD}</tr>${labelRows}</table>
<p><b>Definitie.</b> De kalibratieverkopen (het recentste deel van de trainingsdata, gewaardeerd door een model dat ze niet kende)
zijn gesorteerd op een onzekerheidsscore (uit spreiding, afstand, n_eff en correcties).
<b>hoog</b>: de groep met de laagste scores die als groep ten minste ${pct(HOOG_AANDEEL, 0)} binnen ${pct(HOOG_BINNEN, 0)} lag
(ondergrens Wilson z=1, minimaal 50 verkopen); bestaat zo'n groep niet, dan geeft het model nooit 'hoog'.
<b>laag</b>: scores waar kalibratieverkopen met een vergelijkbare score minder dan ${pct(LAAG_AANDEEL, 0)} binnen ${pct(LAAG_BINNEN, 0)} lagen.
<b>normaal</b>: daartussen. Drempels in deze run: ${thresholdText(thr)}.</p>
<h2>Foutverdeling</h2><figure>${fouten}</figure>
<h2>Kalibratie van de band</h2><figure>${kalibratie}</figure>
${cal ? `<p>Kalibratie op ${cal.n} waarderingen. De band is genormaliseerd conform per label: per label de 10%- en 90%-kwantielen van logfout / score
(recente waarderingen wegen zwaarder), maal de score van de waardering zelf${cal.band ? ` (${Object.entries(cal.band.groepen).map(([g, q]) => `${g}: ${q.n} waarderingen, ×[${num(q.laag, 2)}, ${num(q.hoog, 2)}]`).join('; ') || `alle: ×[${num(cal.band.alle.laag, 2)}, ${num(cal.band.alle.hoog, 2)}]`})` : ''}.
Per scoregroep ter informatie (conforme 10%- en 90%-kwantielen van de logfout):</p>
<table><tr><th>score (mediaan)</th><th>n</th><th>ondergrens</th><th>bovengrens</th><th>PE10</th><th>PE20</th></tr>${bucketRows}</table>` : '<p>Niet gekalibreerd (te weinig verkopen).</p>'}
<figure>${spreiding}</figure>
<h2>Per woningtype</h2>
<table><tr><th>woningtype</th><th>verkopen</th><th>hit rate</th>${METRIC_HEAD}</tr>${segRows}</table>
<h2>Per deciel van de geschatte waarde</h2>
<table><tr><th>deciel</th><th>marktwaarde</th>${METRIC_HEAD}</tr>${estRows}</table>
<h2>Per prijsdeciel (verkoopprijs)</h2>
<p>Let op: een deciel van de werkelijke prijs selecteert op de fout zelf (het goedkoopste tiende bevat vooral verkopen die onder hun schatting bleven), dus de dekking in de buitenste decielen ligt onvermijdelijk onder die per deciel van de schatting.</p>
<table><tr><th>deciel</th><th>prijs</th><th>hit rate</th>${METRIC_HEAD}</tr>${decRows}</table>
<p>Begrippen: APE = |marktwaarde / prijs − 1|; PE<i>x</i> = aandeel binnen <i>x</i>%; ratio = marktwaarde / prijs;
COD = 100 · gemiddelde |ratio − mediaan| / mediaan; PRD = gemiddelde ratio / (Σ marktwaarde / Σ prijs);
hit rate = gewaardeerd / (gewaardeerd + geweigerd). Oppervlakte-elasticiteit: ${d.oppervlakteBeta.map((b) => num(b)).join(' (woningen) / ')} (appartementen).
Bouwtijd model ${result.duur.bouw} ms, waarderen ${result.duur.waarderen} ms.</p>
</body></html>
`;
}
