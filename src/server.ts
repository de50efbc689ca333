/** `insight serve`: on SIGINT/SIGTERM stop accepting, finish in-flight requests, close the database. */
import { randomUUID } from 'node:crypto';
import type { Config } from './config/env.ts';
import { buildApp } from './app.ts';
import { createLogger } from './logging.ts';
import { createServices, openMigratedDatabase } from './runtime.ts';
import { seedDemo, zorgVoorDemoPlaats } from './seed.ts';
import { startBezorger } from './domain/webhooks/bezorger.ts';
import { ruimIdempotentieOp } from './domain/idempotentie/idempotentie.ts';
import { WebhookOpruimer } from './domain/webhooks/opruimen.ts';
import { AdresBewaring } from './domain/billing/adresbewaring.ts';

export async function serve(config: Config): Promise<void> {
  const log = createLogger(config);
  const db = await openMigratedDatabase(config, log, { serving: true });
  // Requests never wait for the first valuation model: a valuation answers 503 until it is built.
  const services = createServices(config, db, log, { wachtOpModel: false });
  if (config.WEBHOOK_ALLOW_INSECURE) {
    log.warn('WEBHOOK_ALLOW_INSECURE=true: webhooks mogen naar http:// en naar loopback- en privé-adressen; alleen voor ontwikkeling en tests, nooit in productie');
  }
  if (config.DEMO_SEED) await seedDemo(services, config, db);
  else await zorgVoorDemoPlaats(services.log, config, db);
  if (!config.DEMO_SEED && (await services.db.account.count()) === 0) log.warn('geen accounts en geen demo-account (DEMO_SEED staat uit): maak er een met `insight account create`');
  const app = await buildApp({ services });
  const bezorger = startBezorger(services, db);
  const fout = (wat: string) => (err: unknown) => log.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, `${wat} opruimen mislukt`);
  const webhooks = new WebhookOpruimer(services.db, config.WEBHOOK_RETENTION_DAYS, { vanaf: randomUUID() });
  const adressen = new AdresBewaring(services.db, config.USAGE_ADDRESS_RETENTION_DAYS);
  const opruimen = () => {
    void ruimIdempotentieOp(services.db, services.now())
      .then((n) => n > 0 && log.info({ verwijderd: n }, 'idempotentie: verlopen en verlaten claims opgeruimd'))
      .catch(fout('idempotentie'));
    void webhooks
      .ronde(services.now())
      .then((n) => n > 0 && log.info({ verwijderd: n, dagen: config.WEBHOOK_RETENTION_DAYS }, 'webhooks: gebeurtenissen na de bewaartermijn opgeruimd'))
      .catch(fout('webhooks'));
    void adressen
      .ronde(services.now())
      .then((n) => n > 0 && log.info({ gewist: n, dagen: config.USAGE_ADDRESS_RETENTION_DAYS }, 'verbruik: adressen na de bewaartermijn gewist'))
      .catch(fout('verbruiksadressen'));
  };
  opruimen();
  const opruimTimer = setInterval(opruimen, 5 * 60_000);
  opruimTimer.unref();
  app.addHook('onClose', async () => clearInterval(opruimTimer));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'afsluiten: geen nieuwe verzoeken, lopende verzoeken afmaken');
    // Not before the database has ended every statement: a charge committed after exit has no answer.
    const hardMs = Math.max(10_000, config.DB_QUERY_TIMEOUT_MS + 1_000);
    const hard = setTimeout(() => {
      log.error({ ms: hardMs }, 'afsluiten duurde te lang; geforceerd stoppen');
      process.exit(1);
    }, hardMs);
    hard.unref();
    try {
      await app.close();
      await (await bezorger).sluit();
      await db.close();
    } finally {
      clearTimeout(hard);
      process.exit(0);
    }
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));

  await app.listen({ host: config.HOST, port: config.PORT });
  log.info({ database: db.location }, `Insight API luistert op http://${config.HOST}:${config.PORT} (documentatie: /docs)`);
  // After listening: /healthz answers at once, /readyz once the model is there.
  const t0 = Date.now();
  services.waardemodel
    .laad()
    .then(() => log.info({ ms: Date.now() - t0 }, 'gereed: waardemodel er'))
    .catch(() => {}); // logged by the holder; the next valuation tries again
}
