/**
 * `insight backtest` (docs/backtest.md). With a file the index is estimated from that file: a published
 * Dutch index says nothing about foreign test data. Without one, the sales and index held in the database.
 */
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { demoVerkopen } from '../../domain/register/demo/verkopen.ts';
import { formatPredictionsCsv, parseSalesCsv, poolPerioden, renderReport, runAblation, runBacktest, runDatasets, VARIANT_OMSCHRIJVING } from '../../domain/valuation/backtest/index.ts';
import type { AblationRow, BacktestMetrics, BacktestResult, DatasetRun, GepooldeRun, KansDeciel } from '../../domain/valuation/backtest/index.ts';
import type { SalesCsv } from '../../domain/valuation/backtest/sales-csv.ts';
import type { PriceIndexPoint, SaleRecord } from '../../domain/valuation/index.ts';

export interface BacktestDeps {
  verkopenUitDatabase: () => Promise<SaleRecord[]>;
  prijsindexUitDatabase: () => Promise<PriceIndexPoint[]>;
}

interface BacktestFlags {
  from?: string;
  json?: boolean;
  predictions?: string;
  report?: string;
  index?: 'db' | 'schatten';
  ablatie?: boolean;
  vergelijk?: boolean;
  perioden?: string;
}

const DEMO = 'demo';

const pct = (v: number, d = 1) => (Number.isFinite(v) ? `${(v * 100).toFixed(d)}%` : '–');
const getal = (v: number, d: number) => (Number.isFinite(v) ? v.toFixed(d) : '–');

export function formatAblation(rows: readonly AblationRow[]): string {
  const lines = ['Ablatie (zelfde splitsing)                              hit rate  MdAPE   binnen 10%  binnen 20%  dekking  COD    PRD    gewicht  bomen'];
  for (const a of rows) {
    const o = a.overall;
    lines.push(`${a.omschrijving.padEnd(55)} ${pct(a.hitRate).padStart(8)}  ${pct(o.mdape, 2).padStart(6)}  ${pct(o.pe10).padStart(10)}  ${pct(o.pe20).padStart(10)}  ${pct(o.dekking).padStart(7)}  ${getal(o.cod, 1).padStart(5)}  ${getal(o.prd, 3)}  ${getal(a.gewicht, 2).padStart(7)}  ${String(a.bomen).padStart(5)}`);
  }
  return lines.join('\n');
}

export function formatKansDecielen(rows: readonly KansDeciel[]): string {
  const lines = ['Kans binnen 10% per deciel   ' + rows.map((d) => String(d.deciel).padStart(5)).join(' ')];
  lines.push('  voorspeld                  ' + rows.map((d) => pct(d.voorspeld, 0).padStart(5)).join(' '));
  lines.push('  waargenomen                ' + rows.map((d) => pct(d.waargenomen, 0).padStart(5)).join(' '));
  lines.push('  verschil (punten)          ' + rows.map((d) => String(Math.round(100 * (d.waargenomen - d.voorspeld)) || 0).padStart(5)).join(' '));
  // Sampling noise alone: with the right probability the share of n sales stays within ± marge 95 % of the time.
  lines.push('  steekproefmarge 95% (±)    ' + rows.map((d) => getal(100 * d.marge, 0).padStart(5)).join(' '));
  const buiten = rows.filter((d) => Math.abs(d.waargenomen - d.voorspeld) > d.marge).length;
  lines.push(`  buiten de marge: ${buiten} van ${rows.length} decielen (bij een juiste kans gemiddeld ${(0.05 * rows.length).toFixed(1).replace('.', ',')})`);
  return lines.join('\n');
}

type Rij = Pick<DatasetRun, 'dataset' | 'variant' | 'kolommen' | 'onzekerheid'> & { metrics: BacktestMetrics; perPeriode?: string };

function tabel(rijen: readonly Rij[]): string[] {
  const lines = [
    'Dataset            variant                                   voorspeld  MdAPE   (95%)          binnen 10%  dekking  hit rate  hoog    t.o.v. referentie (95%)',
  ];
  for (const r of rijen) {
    const m = r.metrics;
    const o = m.overall;
    const ref = rijen.find((x) => x.dataset === r.dataset && x.variant === 'referentie')?.metrics.overall.mdape ?? NaN;
    const lead = (1 - o.mdape / ref) * 100;
    const vi = r.onzekerheid.voorsprong;
    const interval = vi ? ` (${getal(100 * vi.laag, 1)} … ${getal(100 * vi.hoog, 1)})` : '';
    const voorsprong = r.variant === 'referentie' ? '' : Number.isFinite(lead) ? `${Math.abs(lead).toFixed(1)}% ${lead >= 0 ? 'beter' : 'slechter'}${interval}` : '–';
    const mi = r.onzekerheid.mdape;
    const variant = VARIANT_OMSCHRIJVING[r.variant] + (r.kolommen.length ? ` (${r.kolommen.join(', ')})` : '');
    lines.push(
      `${r.dataset.slice(0, 18).padEnd(18)} ${variant.padEnd(41)} ${String(m.totaal).padStart(9)}  ${pct(o.mdape, 2).padStart(6)}  ${`${pct(mi.laag, 1)}–${pct(mi.hoog, 1)}`.padEnd(13)}  ${pct(o.pe10).padStart(10)}  ${pct(o.dekking).padStart(7)}  ${pct(m.hitRate).padStart(8)}  ${pct(m.perLabel.hoog.aandeel).padStart(5)}  ${voorsprong}${r.perPeriode ?? ''}`,
    );
  }
  const medians = (['model', 'kaal', 'referentie'] as const).map((v) => {
    const xs = rijen.filter((r) => r.variant === v || (v === 'kaal' && r.variant === 'model' && r.kolommen.length === 0)).map((r) => r.metrics.overall.mdape).sort((a, b) => a - b);
    const n = xs.length;
    return `${v} ${n ? pct(n % 2 ? xs[n >> 1] : (xs[n / 2 - 1] + xs[n / 2]) / 2, 2) : '–'}`;
  });
  lines.push('', `Mediaan MdAPE over de datasets: ${medians.join(', ')}`);
  return lines;
}

/** The table of `runDatasets`; with several test periods one per period, then the periods pooled (`poolPerioden`). */
export function formatDatasets(runs: readonly DatasetRun[], gepoold: readonly GepooldeRun[] = []): string {
  const rij = (r: DatasetRun): Rij => ({ ...r, metrics: r.result.metrics });
  const perioden = new Set(runs.map((r) => r.periode)).size;
  const lines: string[] = [];
  if (perioden === 1) lines.push(...tabel(runs.map(rij)));
  for (let k = 0; perioden > 1 && k < perioden; k++) {
    const deze = runs.filter((r) => r.periode === k);
    const vanaf = deze.filter((r) => r.variant === 'model').map((r) => `${r.dataset} vanaf ${r.result.from}`);
    lines.push(`Testperiode ${k}${k ? '' : ' (nieuwste)'}: ${vanaf.join(', ')}`, ...tabel(deze.map(rij)), '');
  }
  if (gepoold.length) {
    const perPeriode = (g: GepooldeRun) => `  per periode: ${runs.filter((r) => r.dataset === g.dataset && r.variant === g.variant).map((r) => pct(r.result.metrics.overall.mdape, 2)).join(' / ')}`;
    lines.push(`Gepoold over ${perioden} testperioden (alle testverkopen samen)`, ...tabel(gepoold.map((g) => ({ ...g, perPeriode: perPeriode(g) }))));
  }
  const kans = gepoold.length ? gepoold : runs.map(rij);
  for (const r of kans.filter((x) => x.variant === 'model')) lines.push('', `${r.dataset}:`, formatKansDecielen(r.metrics.perKansDeciel));
  return lines.join('\n');
}

export function formatSummary(r: BacktestResult): string {
  const m = r.metrics;
  const o = m.overall;
  const lines = [
    `Backtest ${r.model.versie} (index: ${r.model.indexBron})`,
    `Model gebouwd op ${r.training} verkopen vóór ${r.from}; ${r.test} verkopen vanaf ${r.from} gewaardeerd op hun verkoopdatum.`,
    `Kalibratie: ${r.details.kalibratieVerkopen ? `${r.details.kalibratieVerkopen.van} t/m ${r.details.kalibratieVerkopen.tot} (${r.details.kalibratieVerkopen.gewaardeerd} waarderingen)` : 'geen (te weinig verkopen)'}`,
    '',
    `Hit rate        ${pct(m.hitRate)}  (${m.gewaardeerd} gewaardeerd, ${m.geweigerd} geweigerd)`,
    `MdAPE           ${pct(o.mdape, 2)}   gemiddelde APE ${pct(o.meanApe, 2)}`,
    `Binnen 5/10/20% ${pct(o.pe5)} / ${pct(o.pe10)} / ${pct(o.pe20)}`,
    `Mediaan ratio   ${getal(o.medianRatio, 3)}   COD ${getal(o.cod, 1)}   PRD ${getal(o.prd, 3)}`,
    `Dekking 80%-band ${pct(o.dekking)}   (mediane bandbreedte ${pct(o.bandBreedte)})`,
    '',
    'Label     aandeel  MdAPE   binnen 10%  binnen 20%  dekking',
  ];
  for (const l of ['hoog', 'normaal', 'laag'] as const) {
    const g = m.perLabel[l];
    lines.push(`${l.padEnd(9)} ${pct(g.aandeel).padStart(7)}  ${pct(g.mdape, 2).padStart(6)}  ${pct(g.pe10).padStart(10)}  ${pct(g.pe20).padStart(10)}  ${pct(g.dekking).padStart(7)}`);
  }
  lines.push('', formatKansDecielen(m.perKansDeciel));
  lines.push('', 'Dekking per deciel van de schatting: ' + m.perSchattingDeciel.map((d) => pct(d.dekking, 0)).join(' '));
  lines.push('Dekking per deciel van de prijs:     ' + m.perDeciel.map((d) => pct(d.dekking, 0)).join(' '));
  lines.push('', 'Woningtype           verkopen  hit rate  MdAPE   binnen 10%  dekking');
  for (const [k, g] of Object.entries(m.perSegment)) {
    lines.push(`${k.padEnd(20)} ${String(g.totaal).padStart(8)}  ${pct(g.hitRate).padStart(8)}  ${pct(g.mdape, 2).padStart(6)}  ${pct(g.pe10).padStart(10)}  ${pct(g.dekking).padStart(7)}`);
  }
  return lines.join('\n');
}

export function registerBacktestCommand(program: Command, deps: BacktestDeps): void {
  program
    .command('backtest')
    .description('Backtest van het marktwaardemodel: recente verkopen waarderen met een model uit de verkopen ervóór')
    .argument('[bestanden...]', `verkopenbestand(en) zoals bij insight import verkopen (docs/import-formaten.md), of '${DEMO}' voor de verkopen van de demodataset met WOZ; zonder bestand: de verkopen in de database (van het echte register; alleen de demoplaats: die van de demo); meer dan één: één tabel over alle datasets`)
    .option('--from <datum>', 'eerste verkoopdatum die wordt voorspeld (JJJJ-MM-DD); standaard de recentste 10% van de verkopen')
    .option('--json', 'resultaat als JSON op stdout')
    .option('--predictions <uit.csv>', 'schrijf de waardering per verkoop naar dit CSV-bestand')
    .option('--report <uit.html>', 'schrijf een HTML-rapport met grafieken')
    .option('--ablatie', 'ook de ablatietabel: vergelijking alleen, leerder alleen, gecombineerd, met en zonder locatiestap (vijf backtests)')
    .option('--vergelijk', 'ook bij één bestand de tabel per variant: alle kolommen, zonder optionele kolommen, en de referentieleerder')
    .option('--perioden <n>', 'test op n opeenvolgende perioden (elk de recentste 10% vóór de vorige, getraind op wat ervóór ligt) en ook gepoold; geeft de tabel zoals --vergelijk', '1')
    .option('--index <bron>', "prijsindex: 'db' (de CBS-index in de database) of 'schatten' (uit de verkopen); standaard db zonder bestand, schatten met bestand")
    .action(async (files: string[], flags: BacktestFlags, cmd: Command) => {
      if (flags.from !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(flags.from)) cmd.error(`Ongeldige --from '${flags.from}' (verwacht JJJJ-MM-DD).`);
      const perioden = Number(flags.perioden ?? '1');
      if (!Number.isInteger(perioden) || perioden < 1) cmd.error(`Ongeldige --perioden '${flags.perioden}' (een geheel getal ≥ 1).`);
      if (perioden > 1 && flags.from !== undefined) cmd.error('--from en --perioden gaan niet samen.');
      const file = files[0] as string | undefined;
      const indexBron = flags.index ?? (file ? 'schatten' : 'db');
      if (indexBron !== 'db' && indexBron !== 'schatten') cmd.error(`Ongeldige --index '${flags.index}' (db of schatten).`);
      const lees = async (f: string): Promise<SaleRecord[]> => {
        if (f === DEMO) return demoVerkopen(1);
        let gelezen: SalesCsv;
        try {
          gelezen = await parseSalesCsv(createReadStream(f));
        } catch (err) {
          cmd.error((err as Error).message);
        }
        if (gelezen.geweigerd.length && !flags.json) {
          const voorbeelden = gelezen.geweigerd.slice(0, 5).map((g) => `  regel ${g.regel}: ${g.reden}`);
          process.stderr.write(`${f}: ${gelezen.geweigerd.length} regel(s) overgeslagen:\n${voorbeelden.join('\n')}\n`);
        }
        return gelezen.verkopen;
      };
      if (files.length > 1 || flags.vergelijk || perioden > 1) {
        const datasets: { naam: string; verkopen: SaleRecord[] }[] = [];
        for (const f of files.length ? files : [DEMO]) {
          const verkopen = await lees(f);
          if (verkopen.length === 0) cmd.error(`Geen verkopen in ${f}.`);
          datasets.push({ naam: basename(f).replace(/\.csv$/i, ''), verkopen });
        }
        let runs: DatasetRun[];
        try {
          runs = runDatasets(datasets, {}, (r) => {
            if (!flags.json) process.stderr.write(`${r.dataset}${perioden > 1 ? ` periode ${r.periode}` : ''}, ${VARIANT_OMSCHRIJVING[r.variant]}: MdAPE ${pct(r.result.metrics.overall.mdape, 2)} (${Math.round((r.result.duur.bouw + r.result.duur.waarderen) / 1000)} s)\n`);
          }, perioden);
        } catch (err) {
          cmd.error((err as Error).message);
        }
        const gepoold = perioden > 1 ? poolPerioden(runs) : [];
        if (flags.json) {
          const uit = runs.map((r) => ({ dataset: r.dataset, variant: r.variant, periode: r.periode, kolommen: r.kolommen, from: r.result.from, metrics: r.result.metrics, onzekerheid: r.onzekerheid, stap2: r.result.details.stap2, wozGewicht: r.result.details.wozGewicht, duur: r.result.duur }));
          const samen = gepoold.map((g) => ({ ...g, periode: 'gepoold' }));
          process.stdout.write(JSON.stringify([...uit, ...samen], null, 2) + '\n');
        } else process.stdout.write(formatDatasets(runs, gepoold) + '\n');
        return;
      }
      const sales = file ? await lees(file) : await deps.verkopenUitDatabase();
      if (sales.length === 0) cmd.error(file ? `Geen verkopen in ${file}.` : 'Geen verkopen in de database: importeer eerst verkopen.');
      const priceIndex = indexBron === 'db' ? await deps.prijsindexUitDatabase() : undefined;
      if (!flags.json) process.stderr.write(`Backtest op ${sales.length} verkopen...\n`);
      let result: BacktestResult;
      let ablatie: AblationRow[] | undefined;
      const opts = { from: flags.from, model: { priceIndex, indexBron: priceIndex?.length ? 'CBS prijsindex bestaande koopwoningen' : undefined } };
      try {
        result = runBacktest(sales, opts);
        if (flags.ablatie) ablatie = runAblation(sales, opts, result);
      } catch (err) {
        cmd.error((err as Error).message);
      }
      if (flags.predictions) await writeFile(flags.predictions, formatPredictionsCsv(result.predictions));
      if (flags.report) await writeFile(flags.report, await renderReport(result, file ? `verkopen uit ${file}` : 'verkopen in de database', ablatie));
      if (flags.json) {
        const { predictions: _omitted, ...rest } = result;
        process.stdout.write(JSON.stringify({ ...rest, details: { ...rest.details, index: undefined }, ablatie }, null, 2) + '\n');
      } else {
        process.stdout.write(formatSummary(result) + '\n');
        if (ablatie) process.stdout.write('\n' + formatAblation(ablatie) + '\n');
        if (flags.predictions) process.stdout.write(`Voorspellingen: ${flags.predictions}\n`);
        if (flags.report) process.stdout.write(`Rapport: ${flags.report}\n`);
      }
    });
}
