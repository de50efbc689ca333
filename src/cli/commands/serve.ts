import type { Command } from 'commander';
import { loadConfig } from '../../config/env.ts';
import { openCliDatabase, print } from '../db.ts';
import { applyMigrations } from '../../db/migrate.ts';
import { openDatabase } from '../../db/client.ts';

export function registerServeCommands(program: Command) {
  program
    .command('serve')
    .description('Start de server (migreert eerst; vult een lege database met de demo)')
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
  void openCliDatabase;
}
