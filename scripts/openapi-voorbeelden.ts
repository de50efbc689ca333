/**
 * Write src/gateways/openapi-voorbeelden.json: the OpenAPI examples, asked of a fresh in-memory demo
 * (the seed step of the first `npm start`) with the clock at VOORBEELD_MOMENT.
 *   npm run openapi:voorbeelden
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/env.ts';
import { openDatabase } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { maakSleutel } from '../src/domain/keys/sleutels.ts';
import { maakModelHouder } from '../src/domain/valuation/houder.ts';
import { VOORBEELD_MOMENT, verzamelVoorbeelden } from '../src/gateways/openapi-voorbeelden.ts';
import { seedDemo } from '../src/seed.ts';

const map = mkdtempSync(path.join(tmpdir(), 'insight-voorbeelden-'));
const db = await openDatabase({ databaseUrl: '', dataDir: '', memory: true });
try {
  await applyMigrations(db.migratieAdapterFactory);
  const config = loadConfig({}, { LOG_LEVEL: 'silent', DATA_DIR: map, DEMO_SEED: 'true' });
  const log = pino({ level: 'silent' });
  const services = { db: db.prisma, config, now: () => VOORBEELD_MOMENT, log, waardemodel: maakModelHouder(db.prisma, log, { controleMs: 0 }) };
  await seedDemo(services, config, db);
  const arm = await maakAccount(db.prisma, { naam: 'zonder tegoed', credits: 0 });
  const armeSleutel = (await maakSleutel(db.prisma, { accountId: arm.id, naam: 'arm', now: VOORBEELD_MOMENT })).key;
  const app = await buildApp({ services });
  const voorbeelden = await verzamelVoorbeelden(app, readFileSync(path.join(map, 'demo-sleutel.txt'), 'utf8').trim(), armeSleutel);
  await app.close();
  const uit = new URL('../src/gateways/openapi-voorbeelden.json', import.meta.url);
  // A signing secret of this throwaway database is still no thing to publish: shown shortened.
  writeFileSync(uit, `${JSON.stringify(voorbeelden, (k, v) => (k === 'geheim' && typeof v === 'string' ? `${v.slice(0, 6)}…` : v), 2)}\n`);
  console.log(`${voorbeelden.length} voorbeelden -> ${uit.pathname}`);
} finally {
  await db.close();
  rmSync(map, { recursive: true, force: true });
}
