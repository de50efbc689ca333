/** The file is opened and checked once, before the database is opened. With --json, stdout carries only the summary. */
import type { Command } from 'commander';
import type { Database } from '../../db/client.ts';
import { snakeCase } from '../db.ts';
import { controleerInvoer, samenvattingTekst, voerImportUit } from '../../domain/register/import/runner.ts';
import { soortenOverzicht } from '../../domain/register/import/soorten.ts';
import { maakVoortgang } from '../../domain/register/import/voortgang.ts';

export function registerImportCommand(program: Command, deps: { openDb: () => Promise<Database> }): void {
  program
    .command('import')
    .description('Registerdata importeren (BAG, energielabels, WOZ, verkopen, prijsindex, invloeden)')
    .argument('<soort>', 'importsoort (zie hieronder)')
    .argument('[bestand]', 'bestand, zip of map (niet bij woningtype-afleiden en invloeden-afleiden)')
    .option('--json', 'alleen de samenvatting als JSON op stdout (voortgang naar stderr)')
    .option('--batch <rijen>', 'rijen per transactie (standaard 10000 op PostgreSQL, 5000 op PGlite)', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new Error('--batch moet een geheel getal tussen 1 en 100000 zijn');
      return n;
    })
    .addHelpText(
      'after',
      () =>
        '\nSoorten:\n' +
        soortenOverzicht()
          .map((s) => `  ${s.naam.padEnd(20)} ${s.omschrijving}`)
          .join('\n'),
    )
    .action(async (soort: string, bestand: string | undefined, opts: { json?: boolean; batch?: number }) => {
      const json = opts.json ?? false;
      const stroom = json ? process.stderr : process.stdout;
      const bron = await controleerInvoer(soort, bestand); // a wrong file fails before the database is opened
      // The first Ctrl-C or SIGTERM stops after the batch with an honest run record; a second one at once.
      const stop = new AbortController();
      const opSignaal = (signaal: NodeJS.Signals) => {
        process.stderr.write(`\n${signaal}: de import stopt na de lopende batch (nogmaals om direct te stoppen).\n`);
        stop.abort(signaal);
      };
      process.once('SIGINT', opSignaal);
      process.once('SIGTERM', opSignaal);
      const db = await deps.openDb();
      try {
        const s = await voerImportUit(db, soort, bestand ?? null, {
          gecontroleerd: bron,
          batchGrootte: opts.batch,
          voortgang: maakVoortgang({ stroom, label: `import ${soort}` }),
          afbreken: stop.signal,
        });
        process.stdout.write(json ? `${JSON.stringify(snakeCase(s))}\n` : `${samenvattingTekst(s)}\n`);
      } finally {
        process.removeListener('SIGINT', opSignaal);
        process.removeListener('SIGTERM', opSignaal);
        await db.close();
      }
    });
}
