/**
 * A real app on a real database for integration tests: the Fastify instance (for app.inject), a
 * tRPC caller factory (for createCaller), a movable clock, and factories that create unique data.
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { pino, type Logger } from 'pino';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse as InjectResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config/env.ts';
import { createContextInner, type Kanaal, type Services } from '../../src/core/context.ts';
import { appRouter } from '../../src/procedures/router.ts';
import { createCallerFactory } from '../../src/core/trpc.ts';
import { maakAccount } from '../../src/domain/billing/tegoed.ts';
import type { Modus } from '../../src/domain/keys/format.ts';
import { maakSleutel, type Familie } from '../../src/domain/keys/sleutels.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { maakModelHouder } from '../../src/domain/valuation/houder.ts';

const createCaller = createCallerFactory(appRouter);

export interface TestApp {
  app: FastifyInstance;
  db: TestDatabase;
  services: Services;
  clock: { now: Date; advance(ms: number): void };
  account(credits?: number): Promise<{ id: string; credits: number }>;
  key(accountId: string, opts?: { familie?: Familie; naam?: string; verlooptOp?: Date; modus?: Modus }): Promise<string>;
  /** An account with credits and one insight key. */
  klant(credits?: number): Promise<{ accountId: string; key: string }>;
  caller(authorization?: string, kanaal?: Kanaal): ReturnType<typeof createCaller>;
  close(): Promise<void>;
}

const DECODEER: Record<string, (b: Buffer) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync, deflate: inflateSync };

/**
 * app.inject as real clients call: with `Accept-Encoding: gzip, deflate, br` unless the test sets its own,
 * so the suite runs every answer through compression. The body (`payload`, `body`, `json()`) is the
 * decoded answer, as a client library gives it; `rawPayload` and the headers stay as sent on the wire.
 */
function sendAcceptEncoding(app: FastifyInstance): void {
  const inject = app.inject.bind(app) as (opts: InjectOptions) => Promise<InjectResponse>;
  const metCompressie = (opts: InjectOptions | string) => {
    const o: InjectOptions = typeof opts === 'string' ? { url: opts } : opts;
    const headers = { ...(o.headers ?? {}) } as Record<string, string>;
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'accept-encoding')) headers['accept-encoding'] = 'gzip, deflate, br';
    return inject({ ...o, headers }).then((res) => {
      const decodeer = DECODEER[String(res.headers['content-encoding'] ?? '')];
      if (decodeer && res.rawPayload.length > 0) res.payload = res.body = decodeer(res.rawPayload).toString('utf8');
      return res;
    });
  };
  // Only the promise form with options is used by the tests; the chained form stays as Fastify has it.
  app.inject = ((opts?: InjectOptions | string, cb?: unknown) =>
    opts === undefined || cb !== undefined ? (inject as (...a: unknown[]) => unknown)(opts, cb) : metCompressie(opts)) as typeof app.inject;
}

export async function createTestApp(
  overrides: Partial<Record<keyof Config, string>> = {},
  opts: { onQuery?: (sql: string) => void; log?: Logger } = {},
): Promise<TestApp> {
  const db = await createTestDatabase(opts);
  const config = loadConfig({}, { LOG_LEVEL: 'silent', DEMO_SEED: 'false', WEBHOOK_ALLOW_INSECURE: 'true', ...overrides });
  const clock = {
    now: new Date('2026-11-22T10:00:00+01:00'),
    advance(ms: number) {
      this.now = new Date(this.now.getTime() + ms);
    },
  };
  const log = opts.log ?? pino({ level: 'silent' });
  const services: Services = { db: db.prisma, config, now: () => clock.now, log, waardemodel: maakModelHouder(db.prisma, log, { controleMs: 0 }) };
  const app = await buildApp({ services });
  await app.ready();
  sendAcceptEncoding(app);
  let n = 0;
  const t: TestApp = {
    app,
    db,
    services,
    clock,
    account: (credits = 1000) => maakAccount(db.prisma, { naam: `test-${++n}`, credits }),
    async key(accountId, opts = {}) {
      const k = await maakSleutel(db.prisma, { accountId, naam: opts.naam ?? `sleutel-${++n}`, familie: opts.familie, modus: opts.modus, verlooptOp: opts.verlooptOp, now: clock.now });
      return k.key;
    },
    async klant(credits = 1000) {
      const acc = await t.account(credits);
      return { accountId: acc.id, key: await t.key(acc.id) };
    },
    caller(authorization, kanaal = 'rest') {
      return createCaller(createContextInner({ services, kanaal, authorization }));
    },
    async close() {
      await app.close();
      await db.close();
    },
  };
  return t;
}
