/**
 * GET /metrics in Prometheus text format (prom-client), behind METRICS_TOKEN (`Authorization: Bearer
 * <token>`; 401 without it). With METRICS_TOKEN empty the endpoint does not exist (404): metrics tell
 * a stranger what the service earns. One registry per app, so several apps in one process (tests) do
 * not share counters.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Services } from '../core/context.ts';
import { poolVan } from '../db/client.ts';
import { stuurFout } from './fout-antwoord.ts';

/** The path as it arrived (the REST plugin rewrites req.url to the path below its prefix). */
const aangekomen = new WeakMap<FastifyRequest, string>();

/** A bounded route label: the registered route, or for the REST catch-all its path when it was a known one (not 404). */
function routeLabel(req: FastifyRequest, status: number): string {
  const route = req.routeOptions.url;
  if (route && !route.includes('*')) return route;
  const pad = (aangekomen.get(req) ?? req.url).split('?')[0];
  if (status === 404 || !pad.startsWith('/api/v1/')) return 'onbekend';
  return pad;
}

function gelijk(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

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

  app.addHook('onRequest', async (req) => {
    aangekomen.set(req, req.url);
  });
  app.addHook('onResponse', async (req, reply) => {
    const status = reply.statusCode;
    const route = routeLabel(req, status);
    if (route === '/metrics') return;
    verzoeken.inc({ route, method: req.method, status: String(status) });
    duur.observe({ route, method: req.method }, reply.elapsedTime / 1000);
    const cent = Number(reply.getHeader('insight-gefactureerd-cent') ?? reply.raw.getHeader('insight-gefactureerd-cent') ?? 0);
    if (cent > 0) gefactureerd.inc(cent);
    if (status === 402 || status === 429) geweigerd.inc({ status: String(status) });
  });

  app.get('/metrics', async (req, reply) => {
    const m = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
    if (!m || !gelijk(m[1], token)) return stuurFout(reply, 401, 'Ongeldige of ontbrekende metrics-token.', { 'WWW-Authenticate': 'Bearer' });
    return reply.type(register.contentType).send(await register.metrics());
  });
}
