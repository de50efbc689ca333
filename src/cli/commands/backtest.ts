/**
 * `insight backtest [sales.csv]`: honest time-split backtest of the market-value model.
 *
 * Without a file it replays the sales held in the database (with the held price index); with a
 * file it reads the sales CSV of `insight import verkopen` (docs/import-formaten.md; optional extra
 * columns id and object_id) and estimates the index from that file, since a published Dutch index
 * says nothing about foreign test data.
 */
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { formatPredictionsCsv, parseSalesCsv, renderReport, runAblation, runBacktest } from '../../domain/valuation/backtest/index.ts';
import type { AblationRow, BacktestResult } from '../../domain/valuation/backtest/index.ts';
import type { SalesCsv } from '../../domain/valuation/backtest/sales-csv.ts';
import type { PriceIndexPoint, SaleRecord } from '../../domain/valuation/index.ts';

export interface BacktestDeps {
  loadHeldSales: () => Promise<SaleRecord[]>;
  loadPriceIndex: () => Promise<PriceIndexPoint[]>;
}

interface BacktestFlags {
  from?: string;
  json?: boolean;
  predictions?: string;
  report?: string;
  index?: 'db' | 'schatten';
  ablatie?: boolean;
}

const pct = (v: number, d = 1) => (Number.isFinite(v) ? `${(v * 100).toFixed(d)}%` : '–');

/** Plain-text ablation table. */
export function formatAblation(rows: readonly AblationRow[]): string {
  const lines = ['Ablatie (zelfde splitsing)                              hit rate  MdAPE   binnen 10%  binnen 20%  dekking  COD    PRD    gewicht  bomen'];
  for (const a of rows) {
    const o = a.overall;
    lines.push(`${a.omschrijving.padEnd(55)} ${pct(a.hitRate).padStart(8)}  ${pct(o.mdape, 2).padStart(6)}  ${pct(o.pe10).padStart(10)}  ${pct(o.pe20).padStart(10)}  ${pct(o.dekking).padStart(7)}  ${o.cod.toFixed(1).padStart(5)}  ${o.prd.toFixed(3)}  ${a.gewicht.toFixed(2).padStart(7)}  ${String(a.bomen).padStart(5)}`);
  }
  return lines.join('\n');
}

/** Plain-text summary for the terminal. */
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
    `Mediaan ratio   ${o.medianRatio.toFixed(3)}   COD ${o.cod.toFixed(1)}   PRD ${o.prd.toFixed(3)}`,
    `Dekking 80%-band ${pct(o.dekking)}   (mediane bandbreedte ${pct(o.bandBreedte)})`,
    '',
    'Label     aandeel  MdAPE   binnen 10%  binnen 20%  dekking',
  ];
  for (const l of ['hoog', 'normaal', 'laag'] as const) {
    const g = m.perLabel[l];
    lines.push(`${l.padEnd(9)} ${pct(g.aandeel).padStart(7)}  ${pct(g.mdape, 2).padStart(6)}  ${pct(g.pe10).padStart(10)}  ${pct(g.pe20).padStart(10)}  ${pct(g.dekking).padStart(7)}`);
  }
  lines.push('', 'Dekking per deciel van de schatting: ' + m.perSchattingDeciel.map((d) => pct(d.dekking, 0)).join(' '));
  lines.push('Dekking per deciel van de prijs:     ' + m.perDeciel.map((d) => pct(d.dekking, 0)).join(' '));
  lines.push('', 'Woningtype           verkopen  hit rate  MdAPE   binnen 10%  dekking');
  for (const [k, g] of Object.entries(m.perSegment)) {
    lines.push(`${k.padEnd(20)} ${String(g.totaal).padStart(8)}  ${pct(g.hitRate).padStart(8)}  ${pct(g.mdape, 2).padStart(6)}  ${pct(g.pe10).padStart(10)}  ${pct(g.dekking).padStart(7)}`);
  }
  return lines.join('\n');
}

/** Register `backtest` on the operator CLI. */
export function registerBacktestCommand(program: Command, deps: BacktestDeps): void {
  program
    .command('backtest')
    .description('Backtest van het marktwaardemodel: recente verkopen waarderen met een model uit de verkopen ervóór')
    .argument('[sales.csv]', 'verkopenbestand zoals bij insight import verkopen (docs/import-formaten.md); zonder bestand: de verkopen in de database')
    .option('--from <datum>', 'eerste verkoopdatum die wordt voorspeld (JJJJ-MM-DD); standaard de recentste 10% van de verkopen')
    .option('--json', 'resultaat als JSON op stdout')
    .option('--predictions <uit.csv>', 'schrijf de waardering per verkoop naar dit CSV-bestand')
    .option('--report <uit.html>', 'schrijf een HTML-rapport met grafieken')
    .option('--ablatie', 'ook de ablatietabel: vergelijking alleen, leerder alleen, gecombineerd, met en zonder locatiestap (vijf backtests)')
    .option('--index <bron>', "prijsindex: 'db' (de CBS-index in de database) of 'schatten' (uit de verkopen); standaard db zonder bestand, schatten met bestand")
    .action(async (file: string | undefined, flags: BacktestFlags, cmd: Command) => {
      if (flags.from !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(flags.from)) cmd.error(`Ongeldige --from '${flags.from}' (verwacht JJJJ-MM-DD).`);
      const indexBron = flags.index ?? (file ? 'schatten' : 'db');
      if (indexBron !== 'db' && indexBron !== 'schatten') cmd.error(`Ongeldige --index '${flags.index}' (db of schatten).`);
      let sales: SaleRecord[];
      if (file) {
        let gelezen: SalesCsv;
        try {
          gelezen = await parseSalesCsv(createReadStream(file));
        } catch (err) {
          cmd.error((err as Error).message);
        }
        sales = gelezen.verkopen;
        if (gelezen.geweigerd.length && !flags.json) {
          const voorbeelden = gelezen.geweigerd.slice(0, 5).map((g) => `  regel ${g.regel}: ${g.reden}`);
          process.stderr.write(`${gelezen.geweigerd.length} regel(s) overgeslagen:\n${voorbeelden.join('\n')}\n`);
        }
      } else sales = await deps.loadHeldSales();
      if (sales.length === 0) cmd.error(file ? `Geen verkopen in ${file}.` : 'Geen verkopen in de database: importeer eerst verkopen.');
      const priceIndex = indexBron === 'db' ? await deps.loadPriceIndex() : undefined;
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
