/**
 * First start of a fresh database (DEMO_SEED=true): a demo account with credits and one insight key,
 * and the synthetic demo dataset (a fictional town; every row marked synthetic in `bron`). The key is
 * printed once and kept in DATA_DIR/demo-sleutel.txt (mode 0600) so the README's examples work.
 * Each part is seeded only when its tables are empty, so a restart or real data is never touched.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config/env.ts';
import type { Services } from './core/context.ts';
import type { Database } from './db/client.ts';
import { createAccount } from './domain/billing/tegoed.ts';
import { createKey } from './domain/keys/sleutels.ts';
import { maakDemoGebruiker } from './domain/gebruikers/gebruikers.ts';
import { loadDemoDataset } from './domain/register/demo/index.ts';

export const DEMO_ACCOUNT_NAAM = 'Demo-account';

export async function seedDemo(services: Services, config: Config, database: Database): Promise<void> {
  const { db, log } = services;
  if ((await db.adres.count()) === 0 && (await db.verkoop.count()) === 0) {
    log.info('lege registerdatabase: synthetische demo-dataset laden (fictieve plaats, ~25.000 adressen)');
    const r = await loadDemoDataset(database);
    log.info({ aantallen: r.aantallen, ms: Math.round(r.ms) }, 'demo-dataset geladen');
  }
  if ((await db.account.count()) === 0) {
    const acc = await createAccount(db, { naam: DEMO_ACCOUNT_NAAM, credits: config.DEMO_CREDITS });
    const k = await createKey(db, { accountId: acc.id, naam: 'demo' });
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
