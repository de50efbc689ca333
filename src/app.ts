/** The whole HTTP service without listening (tests use app.inject()). Every answer outside a procedure is still a Dutch `{"fout"}`. */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Config } from './config/env.ts';
import type { Services } from './core/context.ts';
import { foutVoorStatus } from './core/errors.ts';
import { isDatabaseOnbereikbaar, meldOnbereikbaar, neemtSchrijfopdrachten, stopStoringsProbe } from './core/database-storing.ts';
import { installJsonParser } from './gateways/json-body.ts';
import { classificeer, installVerzoek } from './gateways/verzoek.ts';
import { httpParserFout, installHostVereiste, onbekendeVerwachting, weigerConnect } from './gateways/http-parser-fouten.ts';
import { registerRest } from './gateways/rest.ts';
import { registerDocs } from './gateways/docs.ts';
import { registerMcp } from './gateways/mcp/index.ts';
import { stuurFout } from './gateways/fout-antwoord.ts';
import { registerTrpc } from './gateways/trpc.ts';
import { registerAppStatic } from './gateways/app-static.ts';
import { installKostenHeaders, NIETS_GEFACTUREERD } from './gateways/kosten-headers.ts';
import { installBeveiligingsHeaders, JSON_HEADERS } from './gateways/beveiliging.ts';
import { registerMetrics } from './gateways/metrics.ts';
import { compressieFout, installHttpRanden } from './gateways/cors.ts';
import { installMethodeWeigering } from './gateways/methoden.ts';
import { VerzoekLog, volgVerzoekInLog } from './logging.ts';

export interface BuildAppOptions {
  services: Services;
}

/** A number is the count of proxy hops trusted, as Fastify reads it (its types leave the number out). */
function vertrouwdeProxy(p: Config['TRUST_PROXY']): boolean | string[] | ((adres: string, hop: number) => boolean) {
  return typeof p === 'number' ? (_adres, hop) => hop < p : p;
}

/** RFC 9112 §3.2.2: a request target in absolute form (`GET http://host/api/v1/...`) is served as its path. */
export function zonderOorsprong(url: string): string {
  if (url.startsWith('/')) return url;
  try {
    const u = new URL(url);
    if (u.protocol === 'http:' || u.protocol === 'https:') return `${u.pathname}${u.search}`;
  } catch {}
  return url;
}

export async function buildApp({ services }: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: services.log as unknown as FastifyBaseLogger,
    logController: new VerzoekLog(services.log),
    // No pino child per request: it would run the redaction over its bindings every time; the mixin adds reqId.
    childLoggerFactory: (logger) => logger,
    bodyLimit: services.config.BODY_LIMIT,
    rewriteUrl: (req) => zonderOorsprong(req.url ?? '/'),
    trustProxy: vertrouwdeProxy(services.config.TRUST_PROXY),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    requestTimeout: services.config.REQUEST_TIMEOUT_MS,
    http: {
      headersTimeout: services.config.REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(services.config.REQUEST_TIMEOUT_MS / 4))),
      requireHostHeader: false,
    },
    clientErrorHandler: httpParserFout,
    // Refused while routing (bad %-escape, segment > 100 characters): no hook ran; the URL (a key?) is not echoed.
    frameworkErrors: (err, req, reply) => {
      const status = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      req.log.info({ code: err.code, status, reqId: req.id }, 'verzoek geweigerd bij het routeren');
      void (reply as FastifyReply)
        .code(status)
        .headers({ ...JSON_HEADERS, ...(classificeer(req.url).betaald ? NIETS_GEFACTUREERD : {}), 'X-Request-Id': String(req.id) })
        .type('application/json; charset=utf-8')
        .send({ fout: status === 414 ? 'Het pad is te lang.' : 'Ongeldig pad: een %-codering in de URL is geen geldige tekst.' });
    },
  });

  app.server.on('checkExpectation', onbekendeVerwachting);
  app.server.on('connect', weigerConnect);
  volgVerzoekInLog(app);
  installJsonParser(app);

  installVerzoek(app);
  // On arrival, so answers that bypass onSend (the hijacked /mcp reply) carry it too.
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });
  installBeveiligingsHeaders(app);
  installKostenHeaders(app);
  await installHttpRanden(app);
  installHostVereiste(app);
  installMethodeWeigering(app);

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (status >= 500) req.log.error({ err }, 'onverwachte fout');
    void stuurFout(reply, status, compressieFout(err.code, req.headers['content-encoding']) ?? foutVoorStatus(status));
  });

  app.setNotFoundHandler((req, reply) => {
    void stuurFout(reply, 404, `Onbekend pad: ${req.method} ${req.verzoek.pad}`);
  });

  app.get('/', async () => ({
    naam: 'Insight API',
    omschrijving: 'Eén oordeel per Nederlands adres: marktwaarde, BAG-kenmerken, WOZ, energielabel, woningtype en omgevingsinvloeden.',
    documentatie: '/docs',
    openapi: '/api/v1/openapi.json',
    rest: '/api/v1',
    mcp: '/mcp',
    app: '/app',
  }));
  app.get('/favicon.ico', async (_req, reply) => reply.code(204).header('Cache-Control', 'public, max-age=86400').send());
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    let alleenLezen = false;
    try {
      alleenLezen = !(await neemtSchrijfopdrachten(services.db));
    } catch (err) {
      const f = isDatabaseOnbereikbaar(err) ? meldOnbereikbaar(services, err) : undefined;
      if (!f) services.log.warn({ err }, 'readyz: database niet bereikbaar');
      return stuurFout(reply, 503, 'De database is niet bereikbaar.', f?.headers);
    }
    if (alleenLezen) return stuurFout(reply, 503, 'De database neemt alleen leesopdrachten aan (een standby?); er kan niets worden afgerekend.', { 'Retry-After': '5' });
    if (!services.waardemodel.beschikbaar()) return stuurFout(reply, 503, 'Het waardemodel wordt nog gebouwd; de server is zo gereed.', { 'Retry-After': '5' });
    return { status: 'ok', database: 'ok' };
  });
  app.addHook('onClose', async () => stopStoringsProbe(services));

  registerMetrics(app, services);
  const doc = await registerRest(app, services);
  await registerDocs(app, doc);
  await registerMcp(app, services);
  await registerTrpc(app, services);
  await registerAppStatic(app);
  return app;
}
