import type { Command } from 'commander';
import type { Database } from '../../db/client.ts';
import { loadConfig } from '../../config/env.ts';
import { MAX_CREDITS, maakAccount, waardeerOp, zetDrempel } from '../../domain/billing/tegoed.ts';
import { boekCorrectie, lijstAccounts } from '../../domain/billing/correctie.ts';
import { isoMetOffset } from '../../domain/begrippen.ts';
import { geheelGetal, heelGetalNietNul, naam, opAccount } from '../args.ts';
import { print, withDatabase } from '../db.ts';
import { sluitAccount } from '../../domain/gebruikers/account-sluiten.ts';

export function registerAccountCommands(program: Command) {
  const account = program.command('account').description('Accounts en tegoed');

  account
    .command('create')
    .description('Maak een account met een beginsaldo')
    .requiredOption('--name <naam>', 'naam van het account', naam)
    .option('--credits <n>', 'beginsaldo in credits', geheelGetal(0, MAX_CREDITS), 0)
    .option('--json', 'uitvoer als JSON')
    .action(async (opts: { name: string; credits: number; json?: boolean }) => {
      const acc = await withDatabase(loadConfig(), (db) => maakAccount(db.prisma, { naam: opts.name, credits: opts.credits }));
      print(!!opts.json, { account_id: acc.id, credits: acc.credits }, `Account ${acc.id} aangemaakt met ${acc.credits} credits.`);
    });

  account
    .command('list')
    .description('Alle accounts met saldo en aantal geldige sleutels')
    .option('--json', 'uitvoer als JSON')
    .action(async (opts: { json?: boolean }) => {
      const rows = await withDatabase(loadConfig(), (db) => lijstAccounts(db.prisma));
      const uit = rows.map((a) => ({
        account_id: a.id, naam: a.naam, credits: a.credits, drempel_credits: a.drempelCredits, geldige_sleutels: a.geldigeSleutels, aangemaakt_op: isoMetOffset(a.aangemaaktOp),
        gesloten_op: a.geslotenOp ? isoMetOffset(a.geslotenOp) : null,
      }));
      print(!!opts.json, uit, uit.map((a) => `${a.account_id}  ${String(a.credits).padStart(8)} credits  ${a.geldige_sleutels} sleutel(s)  ${a.naam}${a.gesloten_op ? `  (gesloten ${a.gesloten_op})` : ''}`).join('\n') || '(geen accounts)');
    });

  opAccount(account, 'correct', 'Corrigeer het saldo met een reden (negatief: credits terugnemen); één grootboekregel')
    .requiredOption('--credits <n>', 'aantal credits erbij (positief) of eraf (negatief), niet 0', heelGetalNietNul)
    .requiredOption('--reason <reden>', 'waarom; staat in het grootboek')
    .option('--json', 'uitvoer als JSON')
    .action(async (accountId: string, opts: { credits: number; reason: string; json?: boolean }) => {
      const credits = await withDatabase(loadConfig(), (db) => boekCorrectie(db.prisma, { accountId, credits: opts.credits, reden: opts.reason }));
      print(!!opts.json, { account_id: accountId, correctie: opts.credits, reden: opts.reason, credits }, `Account ${accountId}: correctie ${opts.credits} credits; saldo nu ${credits} credits.`);
    });

  opAccount(account, 'close', 'Sluit een account: sleutels ingetrokken, gebruikers, sessies en webhooks weg, adressen in het verbruik gewist; grootboek en bedragen blijven')
    .option('--ja', 'bevestig: sluiten kan niet ongedaan worden gemaakt')
    .option('--json', 'uitvoer als JSON')
    .action(async (accountId: string, opts: { ja?: boolean; json?: boolean }) => {
      if (!opts.ja) throw new Error(`Sluiten kan niet ongedaan worden gemaakt. Herhaal met --ja om account ${accountId} te sluiten.`);
      const s = await withDatabase(loadConfig(), (db) => sluitAccount(db.prisma, accountId));
      print(!!opts.json, {
        account_id: accountId, gesloten_op: isoMetOffset(s.geslotenOp), al_gesloten: s.alGesloten, credits: s.credits,
        sleutels_ingetrokken: s.sleutels, gebruikers_verwijderd: s.gebruikers, webhooks_verwijderd: s.webhooks, adressen_gewist: s.adressen,
      }, `Account ${accountId} ${s.alGesloten ? 'was al gesloten' : 'gesloten'}: ${s.sleutels} sleutel(s) ingetrokken, ${s.gebruikers} gebruiker(s) en ${s.webhooks} webhook(s) verwijderd, ${s.adressen} adres(sen) gewist. Saldo ${s.credits} credits; grootboek en verbruik blijven bewaard.`);
    });

  metCredits(account, 'drempel', 'Zet de saldodrempel: onder dit aantal credits gaat saldo.laag naar de webhooks (0: nooit)', 'de drempel in credits', 0, async (db, accountId, credits) => {
    const drempel = await zetDrempel(db.prisma, { accountId, credits });
    return { json: { account_id: accountId, drempel_credits: drempel }, tekst: `Account ${accountId}: saldo.laag onder ${drempel} credits.` };
  });

  metCredits(account, 'topup', 'Waardeer een account op', 'aantal credits erbij', 1, async (db, accountId, erbij) => {
    const credits = await waardeerOp(db.prisma, { accountId, credits: erbij });
    return { json: { account_id: accountId, credits }, tekst: `Account ${accountId} heeft nu ${credits} credits.` };
  });
}

function metCredits(
  account: Command,
  naam: string,
  beschrijving: string,
  uitleg: string,
  minimum: number,
  doe: (db: Database, accountId: string, credits: number) => Promise<{ json: unknown; tekst: string }>,
) {
  opAccount(account, naam, beschrijving)
    .requiredOption('--credits <n>', uitleg, geheelGetal(minimum, MAX_CREDITS))
    .option('--json', 'uitvoer als JSON')
    .action(async (accountId: string, opts: { credits: number; json?: boolean }) => {
      const { json, tekst } = await withDatabase(loadConfig(), (db) => doe(db, accountId, opts.credits));
      print(!!opts.json, json, tekst);
    });
}
