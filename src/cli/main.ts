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

// `.env` in the working directory when there is one; variables already set win. Node's own
// --env-file-if-exists says ".env not found" on every run without one, so the file is loaded here.
if (existsSync('.env')) process.loadEnvFile('.env');

/** Commander's own (English) errors, in Dutch; the operator's messages after them are already Dutch. */
const VERTALINGEN: [RegExp, string][] = [
  [/^error: option '(.+?)' argument '(.*?)' is invalid\.\s*/s, "fout: optie '$1' met waarde '$2' is ongeldig: "],
  [/^error: command-argument value '(.*?)' is invalid for argument '(.+?)'\.\s*/s, "fout: waarde '$1' is ongeldig voor argument '$2': "],
  [/^error: missing required argument '(.+?)'/, "fout: argument '$1' ontbreekt"],
  [/^error: option '(.+?)' argument missing/, "fout: optie '$1' mist haar waarde"],
  [/^error: required option '(.+?)' not specified/, "fout: verplichte optie '$1' ontbreekt"],
  [/^error: unknown option '(.+?)'/, "fout: onbekende optie '$1'"],
  [/^error: unknown command '(.+?)'/, "fout: onbekend commando '$1'"],
  [/^error: too many arguments(?: for '(.+?)')?\. Expected (\d+) arguments? but got (\d+): (.*)\.$/m, 'fout: te veel argumenten ($2 verwacht, $3 gekregen: $4)'],
  [/^error: (.+) cannot be used with (.+)$/m, 'fout: $1 gaat niet samen met $2'],
  [/\(Did you mean (.+?)\?\)/, '(bedoelt u $1?)'],
];
const vertaal = (melding: string) => VERTALINGEN.reduce((m, [patroon, nl]) => m.replace(patroon, nl), melding);

/** With --json, errors are JSON too: `{"fout": "..."}` on stderr, for scripts that parse the output. */
const alsJson = process.argv.includes('--json');
const schrijfFout = (ruw: string) => {
  const melding = vertaal(ruw);
  process.stderr.write(alsJson ? `${JSON.stringify({ fout: melding.replace(/^(error|fout):\s*/i, '').trim() })}\n` : `${melding.trimEnd()}\n`);
};

const TITELS: Record<string, string> = { 'Usage:': 'Gebruik:', 'Options:': 'Opties:', 'Commands:': 'Commando\'s:', 'Arguments:': 'Argumenten:' };
// Commander writes its own placeholders into usage lines ("[options] [command]").
const plaatshouders = (term: string) => term.replace('[options]', '[opties]').replace('[command]', '[commando]');
// ... and its own words after a description: "(default: ...)", "choices: ...".
const extraInfo = (tekst: string) => tekst.replace(/\bdefault: /g, 'standaard: ').replace(/\bchoices: /g, 'keuzes: ').replace(/\bpreset: /g, 'vooraf: ');
const program = new Command('insight')
  .description('Insight API: server en beheer')
  .exitOverride()
  .configureOutput({ outputError: (str) => schrijfFout(str) })
  // The help in Dutch too (subcommands inherit these settings).
  .configureHelp({ styleTitle: (titel) => TITELS[titel] ?? titel, styleUsage: plaatshouders, styleSubcommandTerm: plaatshouders, styleOptionDescription: extraInfo, styleArgumentDescription: extraInfo })
  .helpOption('-h, --help', 'toon deze hulp')
  .helpCommand('help [commando]', 'toon de hulp bij een commando');
if (!alsJson) program.showHelpAfterError('(uitleg: insight help <commando>, of het commando met --help)');

registerServeCommands(program);
registerAccountCommands(program);
registerKeyCommands(program);
registerUserCommands(program);

// import and backtest load their modules (parsers, the model, report charts) only when they may be
// asked for: account, key, user, migrate and serve never load them.
if (!['account', 'key', 'user', 'migrate', 'serve', 'demoplaats'].includes(process.argv[2] ?? '')) {
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
