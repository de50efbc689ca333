import type { Command } from 'commander';
import { loadConfig } from '../../config/env.ts';
import { lijstGebruikers, maakGebruiker, normaliseerEmail, verwijderGebruiker, zetWachtwoord } from '../../domain/gebruikers/gebruikers.ts';
import { isoMetOffset } from '../../domain/begrippen.ts';
import { opAccount } from '../args.ts';
import { print, withDatabase } from '../db.ts';

/** On stdin: arguments show up in `ps` and shell history. */
async function leesWachtwoord(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Wachtwoord (daarna Enter en Ctrl-D): ');
  const delen: Buffer[] = [];
  for await (const d of process.stdin) delen.push(d as Buffer);
  const tekst = Buffer.concat(delen).toString('utf8').replace(/\r?\n$/, '');
  if (!tekst) throw new Error('Geen wachtwoord ontvangen op stdin.');
  return tekst;
}

export function registerUserCommands(program: Command) {
  const user = program.command('user').description('Gebruikers van de web-app (/app)');

  opAccount(user, 'create', 'Maak een gebruiker die met e-mail en wachtwoord inlogt op /app')
    .requiredOption('--email <e>', 'e-mailadres (inlognaam)')
    .requiredOption('--password-stdin', 'lees het wachtwoord van stdin (verplicht; minstens 12 tekens)')
    .option('--json', 'uitvoer als JSON')
    .action(async (accountId: string, opts: { email: string; json?: boolean }) => {
      const wachtwoord = await leesWachtwoord();
      const u = await withDatabase(loadConfig(), (db) => maakGebruiker(db.prisma, { accountId, email: opts.email, wachtwoord }));
      print(!!opts.json, { user_id: u.id, email: u.email, account_id: accountId }, `Gebruiker ${u.email} aangemaakt voor account ${accountId}.`);
    });

  user
    .command('reset-password')
    .description('Zet een nieuw wachtwoord; alle sessies van de gebruiker stoppen')
    .requiredOption('--email <e>', 'e-mailadres van de gebruiker')
    .requiredOption('--password-stdin', 'lees het nieuwe wachtwoord van stdin (verplicht; minstens 12 tekens)')
    .option('--json', 'uitvoer als JSON')
    .action(async (opts: { email: string; json?: boolean }) => {
      const wachtwoord = await leesWachtwoord();
      await withDatabase(loadConfig(), (db) => zetWachtwoord(db.prisma, { email: opts.email, wachtwoord }));
      print(!!opts.json, { email: opts.email.trim().toLowerCase(), gereset: true }, `Nieuw wachtwoord gezet voor ${opts.email}; bestaande sessies zijn beëindigd.`);
    });

  opAccount(user, 'list', 'Gebruikers van een account: e-mail, aangemaakt, laatst ingelogd (nooit wachtwoorden)')
    .option('--json', 'uitvoer als JSON')
    .action(async (accountId: string, opts: { json?: boolean }) => {
      const rows = await withDatabase(loadConfig(), (db) => lijstGebruikers(db.prisma, accountId));
      const uit = rows.map((u) => ({
        user_id: u.id, email: u.email, aangemaakt_op: isoMetOffset(u.aangemaaktOp), laatst_ingelogd_op: u.laatstIngelogdOp ? isoMetOffset(u.laatstIngelogdOp) : null, actieve_sessies: u.sessies,
      }));
      print(!!opts.json, uit, uit.map((u) => `${u.email}  aangemaakt ${u.aangemaakt_op}  laatst ingelogd ${u.laatst_ingelogd_op ?? 'nooit'}`).join('\n') || '(geen gebruikers)');
    });

  user
    .command('remove')
    .description('Verwijder een gebruiker en al zijn sessies meteen; het e-mailadres is daarna weer vrij')
    .requiredOption('--email <e>', 'e-mailadres van de gebruiker')
    .option('--json', 'uitvoer als JSON')
    .action(async (opts: { email: string; json?: boolean }) => {
      const u = await withDatabase(loadConfig(), (db) => verwijderGebruiker(db.prisma, opts.email));
      print(!!opts.json, { email: normaliseerEmail(u.email), account_id: u.accountId, verwijderd: true, sessies_beeindigd: u.sessies },
        `Gebruiker ${u.email} verwijderd van account ${u.accountId}; ${u.sessies} sessie(s) beëindigd.`);
    });
}
