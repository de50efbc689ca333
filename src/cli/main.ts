/**
 * The operator CLI: `insight <command>` (npx insight ... / npm start). Every command that reports
 * something has --json; errors go to stderr in Dutch with a non-zero exit code.
 */
import { existsSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { loadConfig } from '../config/env.ts';
import { DatabaseLockedError } from '../db/client.ts';
import { registerAccountCommands } from './commands/account.ts';
import { registerKeyCommands } from './commands/key.ts';
import { registerServeCommands } from './commands/serve.ts';
import { registerUserCommands } from './commands/user.ts';
import { openCliDatabase } from './db.ts';

const program = new Command('insight')
  .description('Insight API: server en beheer')
  .showHelpAfterError()
  .exitOverride();

registerServeCommands(program);
registerAccountCommands(program);
registerKeyCommands(program);
registerUserCommands(program);

// Commands whose modules are optional building blocks (import, backtest) register when present.
const here = new URL('.', import.meta.url);
if (existsSync(new URL('commands/import.ts', here))) {
  const { registerImportCommand } = await import(new URL('commands/import.ts', here).href);
  registerImportCommand(program, { openDb: () => openCliDatabase(loadConfig()) });
}
if (existsSync(new URL('commands/backtest.ts', here))) {
  const { registerBacktestCommand } = await import(new URL('commands/backtest.ts', here).href);
  const { loadHeldSales, loadPriceIndex } = await import(new URL('held-data.ts', here).href);
  registerBacktestCommand(program, { loadHeldSales, loadPriceIndex });
}

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
