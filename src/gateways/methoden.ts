/** A method without a route on a path that has one (PUT /mcp, QUERY /api/v1/whoami) reaches the 404 route: 405 with `Allow`. */
import type { FastifyInstance } from 'fastify';
import { stuurNietToegestaan } from './fout-antwoord.ts';
import { REST_PREFIX, restMethoden } from './rest.ts';

export function installMethodeWeigering(app: FastifyInstance): void {
  const vast = new Map<string, Set<string>>();
  app.addHook('onRoute', ({ url, method }) => {
    if (/[:*]/.test(url)) return;
    const methoden = vast.get(url) ?? new Set<string>();
    for (const m of [method].flat()) methoden.add(m);
    vast.set(url, methoden);
  });
  app.addHook('onRequest', async (req, reply) => {
    if (!req.is404) return;
    const { pad } = req.verzoek;
    const methoden = new Set([...(vast.get(pad) ?? []), ...(pad.startsWith(`${REST_PREFIX}/`) ? restMethoden(pad) : [])]);
    if (methoden.size > 0) return stuurNietToegestaan(reply, req.method, pad, [...methoden]);
  });
}
