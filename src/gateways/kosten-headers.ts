/**
 * Every answer of the paid surfaces (/api/v1, /mcp) says what it cost: `Insight-Gefactureerd-Cent: 0`
 * from the start, which the charging path overwrites with the real amount and the balance
 * (core/kosten.ts). So also a 401, 413, 415 or an unknown route says "nothing charged". They speak of one
 * account's balance and usage, so no cache (a browser's, a proxy's) may keep them: `no-store`.
 */
import type { FastifyInstance } from 'fastify';
import { KOSTEN_HEADER } from '../core/kosten.ts';

export function installKostenHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    if (req.verzoek.betaald) reply.headers({ [KOSTEN_HEADER]: '0', 'Cache-Control': 'no-store' });
  });
}
