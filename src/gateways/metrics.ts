/**
 * GET /metrics behind METRICS_TOKEN; without one the endpoint does not exist (metrics tell a stranger what
 * the service earns). One registry per app, so apps in one test process do not share counters.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import pTimeout from 'p-timeout';
import type { Services } from '../core/context.ts';
import { poolVan, poolWachttijden } from '../db/client.ts';
import { registreerReplicaMetrics } from '../db/replica-metrics.ts';
import { afleverUitkomsten } from '../domain/webhooks/gebeurtenissen.ts';
import { stuurFout } from './fout-antwoord.ts';

/** Bounded: the registered route, or for the REST catch-all its matched path template. */
function routeLabel(req: FastifyRequest): string {
  const route = req.routeOptions.url;
  if (route && !route.includes('*')) return route;
  return req.verzoek.route?.sjabloon ?? 'onbekend';
}

function gelijk(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const WACHTRIJ_MS = 1_000;

export function registerMetrics(app: FastifyInstance, services: Services) {
  const token = services.config.METRICS_TOKEN;
  if (!token) return;
  const register = new Registry();
  collectDefaultMetrics({ register, prefix: 'insight_' });
  const verzoeken = new Counter({ name: 'insight_http_requests_total', help: 'HTTP-verzoeken per route, methode en status.', labelNames: ['route', 'method', 'status'], registers: [register] });
  const duur = new Histogram({
    name: 'insight_http_request_duration_seconds',
    help: 'Duur van HTTP-verzoeken per route.',
    labelNames: ['route', 'method'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [register],
  });
  const gefactureerd = new Counter({ name: 'insight_gefactureerd_cent_total', help: 'In rekening gebracht, in centen (REST en MCP).', registers: [register] });
  const geweigerd = new Counter({ name: 'insight_geweigerd_total', help: 'Geweigerd wegens tegoed (402) of snelheid (429).', labelNames: ['status'], registers: [register] });
  new Gauge({
    name: 'insight_db_pool_verbindingen',
    help: 'PostgreSQL-pool: verbindingen per toestand (in_gebruik, vrij, wachtend op een verbinding).',
    labelNames: ['toestand'],
    registers: [register],
    collect() {
      const pool = poolVan(services.db);
      if (!pool) return;
      this.set({ toestand: 'in_gebruik' }, pool.totalCount - pool.idleCount);
      this.set({ toestand: 'vrij' }, pool.idleCount);
      this.set({ toestand: 'wachtend' }, pool.waitingCount);
    },
  });

  const poolWacht = new Histogram({
    name: 'insight_db_pool_wachttijd_seconden',
    help: 'PostgreSQL-pool: wachttijd per uitgegeven verbinding (vrij, nieuw geopend of in de rij achter een volle pool).',
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
    registers: [register],
  });
  const afleveringen = new Counter({
    name: 'insight_webhook_afleveringen_total',
    help: 'Webhook-afleverpogingen van dit proces per uitkomst (afgeleverd, opnieuw, opgegeven, weg: 410).',
    labelNames: ['uitkomst'],
    registers: [register],
  });
  new Gauge({
    name: 'insight_webhook_wachtrij',
    help: 'Webhook-afleveringen die nog moeten (wachtend) of nu lopen (bezig), over alle processen.',
    labelNames: ['toestand'],
    registers: [register],
    async collect() {
      try {
        const rijen = await pTimeout(
          services.db.$queryRaw<{ toestand: string; n: number }[]>`
            SELECT toestand, count(*)::int AS n FROM webhook_aflevering WHERE toestand IN ('wachtend', 'bezig') GROUP BY toestand`,
          { milliseconds: WACHTRIJ_MS },
        );
        const n = new Map(rijen.map((r) => [r.toestand, Number(r.n)]));
        for (const toestand of ['wachtend', 'bezig']) this.set({ toestand }, n.get(toestand) ?? 0);
      } catch {
        // Database unreachable or held (a partition holds a query for DB_CONNECT_TIMEOUT_MS): the scrape goes on without it.
      }
    },
  });
  new Gauge({
    name: 'insight_waardemodel_bouwduur_seconden',
    help: 'Duur van de laatste bouw van het waardemodel in gebruik.',
    registers: [register],
    collect() {
      const staat = services.waardemodel.staat();
      if (staat) this.set(staat.bouwMs / 1000);
    },
  });
  new Gauge({
    name: 'insight_waardemodel_leeftijd_seconden',
    help: 'Seconden sinds het waardemodel in gebruik gebouwd is.',
    registers: [register],
    collect() {
      const staat = services.waardemodel.staat();
      if (staat) this.set((Date.now() - staat.gebouwdOp) / 1000);
    },
  });
  new Gauge({
    name: 'insight_waardemodel_verkopen',
    help: 'Aantal verkopen waarop het waardemodel in gebruik gebouwd is.',
    registers: [register],
    collect() {
      const staat = services.waardemodel.staat();
      if (staat) this.set(staat.verkopen);
    },
  });
  const losmaken = [
    poolWachttijden.volg(services.db, (s) => poolWacht.observe(s)),
    afleverUitkomsten.volg(services.db, (uitkomst) => afleveringen.inc({ uitkomst })),
    registreerReplicaMetrics(register, services.db),
  ];
  app.addHook('onClose', async () => {
    for (const los of losmaken) los();
  });

  app.addHook('onResponse', async (req, reply) => {
    const status = reply.statusCode;
    const route = routeLabel(req);
    if (route === '/metrics') return;
    verzoeken.inc({ route, method: req.method, status: String(status) });
    duur.observe({ route, method: req.method }, reply.elapsedTime / 1000);
    const cent = req.verzoek.uitslag.kosten?.gefactureerd_cent ?? 0;
    if (cent > 0) gefactureerd.inc(cent);
    if (status === 402 || status === 429) geweigerd.inc({ status: String(status) });
  });

  app.get('/metrics', async (req, reply) => {
    const m = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
    if (!m || !gelijk(m[1], token)) return stuurFout(reply, 401, 'Ongeldige of ontbrekende metrics-token.', { 'WWW-Authenticate': 'Bearer' });
    return reply.type(register.contentType).send(await register.metrics());
  });
}
