import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../../config/env.ts';
import { eindeDagAmsterdam, isoMetOffset } from '../../domain/begrippen.ts';
import { maakSleutel, lijstSleutels, MAX_GELDIGE_TEST_SLEUTELS, trekSleutelIn, roteerSleutel, zetMaandlimiet, SleutelFout, type Familie } from '../../domain/keys/sleutels.ts';
import { modusVan } from '../../domain/keys/format.ts';
import { datum, naam, opAccount, uuid } from '../args.ts';
import { print, withDatabase } from '../db.ts';

function familie(v: string): Familie {
  if (v !== 'inzicht' && v !== 'beheer') throw new InvalidArgumentError("verwacht 'inzicht' of 'beheer'");
  return v;
}

export function registerKeyCommands(program: Command) {
  const key = program.command('key').description('API-sleutels (worden één keer getoond; alleen de hash wordt bewaard)');

  opAccount(key, 'create', 'Maak een sleutel')
    .requiredOption('--name <naam>', 'naam van de sleutel', naam)
    .option('--family <familie>', "'inzicht' of 'beheer'", familie, 'inzicht' as Familie)
    .option('--expires <datum>', 'vervaldatum JJJJ-MM-DD: geldig tot en met die dag, Nederlandse tijd (standaard over 1 jaar, hoogstens 730 dagen)', datum)
    .option('--test', `testsleutel (pct_test_...): alleen de demoplaats, kost niets; hoogstens ${MAX_GELDIGE_TEST_SLEUTELS} naast de live sleutels`)
    .option('--json', 'uitvoer als JSON')
    .action(async (accountId: string, opts: { name: string; family: Familie; expires?: string; test?: boolean; json?: boolean }) => {
      const id = accountId;
      const k = await withDatabase(loadConfig(), (db) =>
        maakSleutel(db.prisma, { accountId: id, naam: opts.name, familie: opts.family, modus: opts.test ? 'test' : 'live', verlooptOp: opts.expires ? eindeDagAmsterdam(opts.expires) : undefined }),
      );
      print(!!opts.json, { key_id: k.id, key: k.key, voorvoegsel: k.voorvoegsel, verloopt_op: isoMetOffset(k.verlooptOp) },
        `Sleutel ${k.id} (wordt maar één keer getoond):\n\n  ${k.key}\n\nVerloopt op ${isoMetOffset(k.verlooptOp)}.`);
    });

  opAccount(key, 'rotate', 'Vervang een sleutel: de oude stopt meteen')
    .argument('<key_id>', 'sleutel-id (uuid)', uuid)
    .option('--json', 'uitvoer als JSON')
    .action(async (accountId: string, keyId: string, opts: { json?: boolean }) => {
      const k = await withDatabase(loadConfig(), (db) => roteerSleutel(db.prisma, { accountId, keyId }));
      print(!!opts.json, { key_id: k.id, vervangt: keyId, key: k.key, voorvoegsel: k.voorvoegsel, verloopt_op: isoMetOffset(k.verlooptOp) }, `Nieuwe sleutel ${k.id}:\n\n  ${k.key}\n`);
    });

  opAccount(key, 'revoke', 'Trek een sleutel in')
    .argument('<key_id>', 'sleutel-id (uuid)', uuid)
    .option('--json', 'uitvoer als JSON')
    .action(async (accountId: string, keyId: string, opts: { json?: boolean }) => {
      await withDatabase(loadConfig(), (db) => trekSleutelIn(db.prisma, { accountId, keyId }));
      print(!!opts.json, { key_id: keyId, ingetrokken: true }, `Sleutel ${keyId} ingetrokken.`);
    });

  opAccount(key, 'limit', 'Zet of verwijder de maandlimiet van een inzichtsleutel (kalendermaand, Europe/Amsterdam)')
    .argument('<key_id>', 'sleutel-id (uuid)', uuid)
    .argument('<credits>', "hoogstens zoveel credits per kalendermaand, of 'geen'", (v: string) => {
      if (v === 'geen') return null;
      if (!/^\d{1,9}$/.test(v)) throw new InvalidArgumentError("verwacht een geheel aantal credits of 'geen'");
      return Number(v);
    })
    .option('--json', 'uitvoer als JSON')
    .action(async (accountId: string, keyId: string, credits: number | null, opts: { json?: boolean }) => {
      await withDatabase(loadConfig(), (db) => zetMaandlimiet(db.prisma, { accountId, keyId, credits }));
      print(!!opts.json, { key_id: keyId, maandlimiet_credits: credits }, credits === null ? `Sleutel ${keyId}: geen maandlimiet.` : `Sleutel ${keyId}: hoogstens ${credits} credits per kalendermaand.`);
    });

  opAccount(key, 'list', 'Sleutels van een account (zonder de sleutels zelf)')
    .option('--json', 'uitvoer als JSON')
    .action(async (accountId: string, opts: { json?: boolean }) => {
      const rows = await withDatabase(loadConfig(), async (db) => {
        if (!(await db.prisma.account.findUnique({ where: { id: accountId }, select: { id: true } }))) throw new SleutelFout('onbekend', `Account ${accountId} bestaat niet.`);
        return lijstSleutels(db.prisma, accountId);
      });
      const iso = (d: Date | null) => (d ? isoMetOffset(d) : null);
      const uit = rows.map((r) => ({
        key_id: r.id, naam: r.naam, familie: r.familie, rechten: r.rechten, voorvoegsel: r.voorvoegsel, verloopt_op: iso(r.verlooptOp),
        ingetrokken_op: iso(r.ingetrokkenOp), aangemaakt_op: iso(r.aangemaaktOp), laatst_gebruikt_op: iso(r.laatstGebruiktOp),
        modus: modusVan(r.voorvoegsel), maandlimiet_credits: r.maandlimietCredits,
      }));
      print(!!opts.json, uit, rows.map((r) => `${r.id}  ${r.voorvoegsel}…  ${r.familie}  ${r.naam}  ${r.ingetrokkenOp ? 'ingetrokken' : r.verlooptOp.getTime() <= Date.now() ? `verlopen op ${isoMetOffset(r.verlooptOp)}` : `tot ${isoMetOffset(r.verlooptOp)}`}`).join('\n') || '(geen sleutels)');
    });
}
