import type { Command } from 'commander';
import { loadConfig } from '../../config/env.ts';
import { openCliDatabase, print, withDatabase } from '../db.ts';
import { applyMigrations } from '../../db/migrate.ts';
import { openDatabase } from '../../db/client.ts';

export function registerServeCommands(program: Command) {
  program
    .command('serve')
    .description('Start de server (migreert eerst; laadt de demoplaats als die ontbreekt, tenzij DEMO_PLAATS=false)')
    .action(async () => {
      // Loaded here: the other commands never need the HTTP stack.
      const { serve } = await import('../../server.ts');
      await serve(loadConfig());
    });

  program
    .command('migrate')
    .description('Pas alle nog niet toegepaste migraties toe (een tweede keer doet niets)')
    .option('--json', 'uitvoer als JSON')
    .action(async (opts: { json?: boolean }) => {
      const config = loadConfig();
      const db = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
      try {
        const applied = await applyMigrations(db.migratieAdapterFactory);
        print(!!opts.json, { toegepast: applied, database: db.location },
          applied.length ? `Toegepast op ${db.location}: ${applied.join(', ')}` : `${db.location} is bij: geen migraties toe te passen.`);
      } finally {
        await db.close();
      }
    });

  program
    .command('demoplaats')
    .description('De synthetische demoplaats (voor testsleutels) in het register laden of eruit verwijderen')
    .argument('<actie>', 'laden of verwijderen')
    .option('--json', 'uitvoer als JSON')
    .action(async (actie: string, opts: { json?: boolean }) => {
      if (actie !== 'laden' && actie !== 'verwijderen') throw new Error(`onbekende actie '${actie}': kies laden of verwijderen`);
      const { pino } = await import('pino');
      const { laadDemoPlaats } = await import('../../seed.ts');
      const { verwijderDemoDataset } = await import('../../domain/register/demo/index.ts');
      await withDatabase(loadConfig(), async (db) => {
        if (actie === 'laden') {
          await laadDemoPlaats(db, pino({ level: opts.json ? 'silent' : 'info' }));
          print(!!opts.json, { geladen: true }, 'Demoplaats geladen.');
        } else {
          const rijen = await verwijderDemoDataset(db);
          print(!!opts.json, { verwijderd: rijen }, `Demoplaats verwijderd (${rijen} rijen). Zet DEMO_PLAATS=false, anders laadt de server haar bij de volgende start opnieuw.`);
        }
      });
    });

  program
    .command('waardemodel')
    .description('Het waardemodel bouwen en opslaan, zodat elke server het bij de start laadt in plaats van het zelf te bouwen (na een import)')
    .argument('<actie>', 'bouwen')
    .option('--json', 'uitvoer als JSON')
    .action(async (actie: string, opts: { json?: boolean }) => {
      if (actie !== 'bouwen') throw new Error(`onbekende actie '${actie}': kies bouwen`);
      const { pino } = await import('pino');
      const { maakModelHouder } = await import('../../domain/valuation/houder.ts');
      const { zorgVoorDemoPlaats } = await import('../../seed.ts');
      const config = loadConfig();
      await withDatabase(config, async (db) => {
        // The demo town as the server will hold it (DEMO_PLAATS), so its first start finds the same vintage.
        await zorgVoorDemoPlaats(pino({ level: opts.json ? 'silent' : 'info' }), config, db);
        const houder = maakModelHouder(db.prisma, pino({ level: 'silent' }));
        const modellen = await houder.vernieuw();
        const staat = houder.staat()!;
        const perDeel = { demo: modellen.demo.info.verkopen, register: modellen.register.info.verkopen };
        print(!!opts.json, { verkopen: staat.verkopen, perDeel, seconden: Math.round(staat.bouwMs / 100) / 10 },
          `Waardemodel gebouwd en opgeslagen: ${perDeel.register} verkopen in het register, ${perDeel.demo} in de demoplaats, in ${(staat.bouwMs / 1000).toFixed(1)} s.`);
      });
    });
  void openCliDatabase;
}
