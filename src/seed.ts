/**
 * At every start: the synthetic demo town (a fictional town; every row marked synthetic in `bron`) in
 * the register unless DEMO_PLAATS=false, beside any real data. First start of a fresh database
 * (DEMO_SEED=true): also a demo account with credits and one insight key. The key is printed once and
 * kept in DATA_DIR/demo-sleutel.txt (mode 0600) so the README's examples work. The account is made
 * only when there is none, so a restart or real data is never touched.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config/env.ts';
import type { Services } from './core/context.ts';
import type { Database } from './db/client.ts';
import { maakAccount } from './domain/billing/tegoed.ts';
import { maakSleutel } from './domain/keys/sleutels.ts';
import { maakDemoGebruiker } from './domain/gebruikers/gebruikers.ts';
import type { Logger } from 'pino';
import { DEMO_ADRESSEN, loadDemoDataset } from './domain/register/demo/index.ts';

export const DEMO_ACCOUNT_NAAM = 'Demo-account';

/** Whether the demo town is in the register: one lookup of its first curated address by the (postcode, huisnummer) index. */
export async function demoPlaatsAanwezig(database: Database): Promise<boolean> {
  const { postcode, huisnummer } = DEMO_ADRESSEN[0];
  return (await database.prisma.adres.findFirst({ where: { postcode, huisnummer }, select: { id: true } })) !== null;
}

/**
 * The demo town as DEMO_PLAATS asks: loaded when missing (in one transaction; a second server process
 * that loads it at the same moment fails on the primary key and finds it there). Left out, a copy
 * loaded before stays until the operator removes it (`insight demoplaats verwijderen`): a setting
 * never deletes data on its own.
 */
export async function zorgVoorDemoPlaats(log: Logger, config: Pick<Config, 'DEMO_PLAATS'>, database: Database): Promise<void> {
  const aanwezig = await demoPlaatsAanwezig(database);
  if (!config.DEMO_PLAATS) {
    if (aanwezig) log.warn('DEMO_PLAATS=false, maar de demoplaats staat nog in het register: verwijder haar met `insight demoplaats verwijderen`');
    return;
  }
  if (aanwezig) return;
  await laadDemoPlaats(database, log);
}

/** Load the demo town (replacing an earlier copy). */
export async function laadDemoPlaats(database: Database, log: Logger): Promise<void> {
  log.info('synthetische demoplaats laden (fictieve plaats, ~25.000 adressen; uit te zetten met DEMO_PLAATS=false)');
  try {
    const r = await loadDemoDataset(database);
    log.info({ aantallen: r.aantallen, ms: Math.round(r.ms) }, 'demoplaats geladen');
  } catch (e) {
    if (!(await demoPlaatsAanwezig(database))) throw e;
    log.info('demoplaats intussen door een ander proces geladen');
  }
}

export async function seedDemo(services: Services, config: Config, database: Database): Promise<void> {
  const { db, log } = services;
  await zorgVoorDemoPlaats(log, config, database);
  if ((await db.account.count()) === 0) {
    const acc = await maakAccount(db, { naam: DEMO_ACCOUNT_NAAM, credits: config.DEMO_CREDITS });
    const k = await maakSleutel(db, { accountId: acc.id, naam: 'demo' });
    const dir = path.resolve(config.DATA_DIR);
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'demo-sleutel.txt');
    writeFileSync(file, `${k.key}\n`, { mode: 0o600 });
    const login = await maakDemoGebruiker(db, acc.id);
    const loginFile = path.join(dir, 'demo-login.txt');
    writeFileSync(loginFile, `${login.email}\n${login.wachtwoord}\n`, { mode: 0o600 });
    // Printed once, on purpose, outside the logger (which redacts keys).
    process.stdout.write(
      `\nDemo-account aangemaakt met ${config.DEMO_CREDITS} credits.\nDemo-sleutel (wordt maar één keer getoond, ook bewaard in ${file}):\n\n  ${k.key}\n\n` +
        `Web-app: http://${config.HOST}:${config.PORT}/app — e-mail ${login.email}, wachtwoord ${login.wachtwoord} (ook in ${loginFile}).\n\n`,
    );
    log.info({ account: acc.id, voorvoegsel: k.voorvoegsel }, 'demo-account en sleutel aangemaakt');
  }
}
