/**
 * Every answer of /api/v1 and /mcp starts as "nothing charged", so a 401, 413 or unknown route says so too;
 * the charging path overwrites it. They speak of one account's money: `no-store`.
 */
import type { FastifyInstance } from 'fastify';
import { KOSTEN_HEADER } from '../core/kosten.ts';

export const NIETS_GEFACTUREERD = { [KOSTEN_HEADER]: '0', 'Cache-Control': 'no-store' };

export function installKostenHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    if (req.verzoek.betaald) reply.headers(NIETS_GEFACTUREERD);
  });
}
