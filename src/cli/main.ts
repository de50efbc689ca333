/**
 * The operator CLI: `insight <command>` (npx insight ... / npm start). Every command that reports
 * something has --json; errors go to stderr in Dutch with a non-zero exit code.
 */
import { Command, CommanderError } from 'commander';
import { loadConfig } from '../config/env.ts';
import { DatabaseLockedError } from '../db/client.ts';
import { registerAccountCommands } from './commands/account.ts';
import { registerKeyCommands } from './commands/key.ts';
import { registerServeCommands } from './commands/serve.ts';
import { registerUserCommands } from './commands/user.ts';
import { openCliDatabase } from './db.ts';

/** With --json, errors are JSON too: `{"fout": "..."}` on stderr, for scripts that parse the output. */
const alsJson = process.argv.includes('--json');
const schrijfFout = (melding: string) =>
  process.stderr.write(alsJson ? `${JSON.stringify({ fout: melding.replace(/^(error|fout):\s*/i, '').trim() })}\n` : `${melding.trimEnd()}\n`);

const program = new Command('insight')
  .description('Insight API: server en beheer')
  .exitOverride()
  .configureOutput({ outputError: (str) => schrijfFout(str) });
if (!alsJson) program.showHelpAfterError();

registerServeCommands(program);
registerAccountCommands(program);
registerKeyCommands(program);
registerUserCommands(program);

// import and backtest load their modules (parsers, the model, report charts) only when they may be
// asked for: account, key, user, migrate and serve never load them.
if (!['account', 'key', 'user', 'migrate', 'serve'].includes(process.argv[2] ?? '')) {
  const { registerImportCommand } = await import('./commands/import.ts');
  registerImportCommand(program, { openDb: () => openCliDatabase(loadConfig()) });
  const { registerBacktestCommand } = await import('./commands/backtest.ts');
  const { loadHeldSales, loadPriceIndex } = await import('./held-data.ts');
  registerBacktestCommand(program, { loadHeldSales, loadPriceIndex });
}

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode);
  if (e instanceof DatabaseLockedError) {
    schrijfFout(e.message);
    process.exit(3);
  }
  schrijfFout(`Fout: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
