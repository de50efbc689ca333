import type { Command } from 'commander';
import { loadConfig } from '../../config/env.ts';
import { createAccount, topUp } from '../../domain/billing/tegoed.ts';
import { geheelGetal, uuid } from '../args.ts';
import { print, withDatabase } from '../db.ts';

export function registerAccountCommands(program: Command) {
  const account = program.command('account').description('Accounts en tegoed');

  account
    .command('create')
    .description('Maak een account met een beginsaldo')
    .requiredOption('--name <naam>', 'naam van het account')
    .option('--credits <n>', 'beginsaldo in credits', geheelGetal(0), 0)
    .option('--json', 'uitvoer als JSON')
    .action(async (opts: { name: string; credits: number; json?: boolean }) => {
      const acc = await withDatabase(loadConfig(), (db) => createAccount(db.prisma, { naam: opts.name, credits: opts.credits }));
      print(!!opts.json, { account_id: acc.id, credits: acc.credits }, `Account ${acc.id} aangemaakt met ${acc.credits} credits.`);
    });

  account
    .command('topup')
    .argument('<account_id>', 'account-id (uuid)', uuid)
    .description('Waardeer een account op')
    .requiredOption('--credits <n>', 'aantal credits erbij', geheelGetal(1))
    .option('--json', 'uitvoer als JSON')
    .action(async (accountId: string, opts: { credits: number; json?: boolean }) => {
      const id = accountId;
      const credits = await withDatabase(loadConfig(), (db) => topUp(db.prisma, { accountId: id, credits: opts.credits }));
      print(!!opts.json, { account_id: id, credits }, `Account ${id} heeft nu ${credits} credits.`);
    });
}
