/**
 * The operator CLI: `insight <command>` (npx insight ... / npm start). Every command that reports
 * something has --json; errors go to stderr in Dutch with a non-zero exit code.
 */
import { Command, CommanderError } from 'commander';
import { loadConfig } from '../config/env.ts';
import { DatabaseLockedError } from '../db/client.ts';
import { registerAccountCommands } from './commands/account.ts';
import { registerBacktestCommand } from './commands/backtest.ts';
import { registerImportCommand } from './commands/import.ts';
import { registerKeyCommands } from './commands/key.ts';
import { registerServeCommands } from './commands/serve.ts';
import { registerUserCommands } from './commands/user.ts';
import { openCliDatabase } from './db.ts';
import { loadHeldSales, loadPriceIndex } from './held-data.ts';

const program = new Command('insight')
  .description('Insight API: server en beheer')
  .showHelpAfterError()
  .exitOverride();

registerServeCommands(program);
registerAccountCommands(program);
registerKeyCommands(program);
registerUserCommands(program);
registerImportCommand(program, { openDb: () => openCliDatabase(loadConfig()) });
registerBacktestCommand(program, { loadHeldSales, loadPriceIndex });

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode);
  if (e instanceof DatabaseLockedError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(3);
  }
  process.stderr.write(`Fout: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
