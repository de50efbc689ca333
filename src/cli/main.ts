/** The operator CLI: --json on every reporting command; errors to stderr in Dutch with a non-zero exit code. */
import { existsSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { loadConfig } from '../config/env.ts';
import { DatabaseLockedError } from '../db/client.ts';
import { registerAccountCommands } from './commands/account.ts';
import { registerKeyCommands } from './commands/key.ts';
import { registerServeCommands } from './commands/serve.ts';
import { registerUserCommands } from './commands/user.ts';
import { openCliDatabase } from './db.ts';
import { verbindingsfoutTekst } from './verbindingsfout.ts';

// Node's --env-file-if-exists says ".env not found" on every run without one; variables already set win.
if (existsSync('.env')) process.loadEnvFile('.env');

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

/** Scripts that parse the output get errors as JSON too, on stderr. */
const alsJson = process.argv.includes('--json');
const schrijfFout = (ruw: string) => {
  const melding = vertaal(ruw);
  process.stderr.write(alsJson ? `${JSON.stringify({ fout: melding.replace(/^(error|fout):\s*/i, '').trim() })}\n` : `${melding.trimEnd()}\n`);
};

const TITELS: Record<string, string> = { 'Usage:': 'Gebruik:', 'Options:': 'Opties:', 'Commands:': 'Commando\'s:', 'Arguments:': 'Argumenten:' };
const plaatshouders = (term: string) => term.replace('[options]', '[opties]').replace('[command]', '[commando]');
const extraInfo = (tekst: string) => tekst.replace(/\bdefault: /g, 'standaard: ').replace(/\bchoices: /g, 'keuzes: ').replace(/\bpreset: /g, 'vooraf: ');
const program = new Command('insight')
  .description('Insight API: server en beheer')
  .exitOverride()
  .configureOutput({ outputError: (str) => schrijfFout(str) })
  .configureHelp({ styleTitle: (titel) => TITELS[titel] ?? titel, styleUsage: plaatshouders, styleSubcommandTerm: plaatshouders, styleOptionDescription: extraInfo, styleArgumentDescription: extraInfo })
  .helpOption('-h, --help', 'toon deze hulp')
  .helpCommand('help [commando]', 'toon de hulp bij een commando');
if (!alsJson) program.showHelpAfterError('(uitleg: insight help <commando>, of het commando met --help)');

registerServeCommands(program);
registerAccountCommands(program);
registerKeyCommands(program);
registerUserCommands(program);

// Only load the parsers, the model and the report charts for the commands that may ask for them.
if (!['account', 'key', 'user', 'migrate', 'serve', 'demoplaats', 'waardemodel'].includes(process.argv[2] ?? '')) {
  const { registerImportCommand } = await import('./commands/import.ts');
  registerImportCommand(program, { openDb: () => openCliDatabase(loadConfig()) });
  const { registerBacktestCommand } = await import('./commands/backtest.ts');
  const { verkopenUitDatabase, prijsindexUitDatabase } = await import('./held-data.ts');
  registerBacktestCommand(program, { verkopenUitDatabase, prijsindexUitDatabase });
}

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode);
  if (e instanceof DatabaseLockedError) {
    schrijfFout(e.message);
    process.exit(3);
  }
  schrijfFout(`Fout: ${verbindingsfoutTekst(e, process.env.DATABASE_URL) ?? (e instanceof Error ? e.message : String(e))}`);
  process.exit(1);
}
