/**
 * The one classification of a request, computed on arrival from its path and read by every hook (cost
 * header, CORS, security headers, compression cache, metrics) instead of each splitting the URL itself.
 * It also carries the call's `uitslag` (core/context.ts): what the core reported back, as numbers.
 */
import type { FastifyInstance } from 'fastify';
import type { OpenApiProcedureMatch } from 'trpc-to-openapi';
import type { Uitslag } from '../core/context.ts';

/** Which surface a path belongs to. */
export type Oppervlak = 'rest' | 'mcp' | 'docs' | 'app' | 'trpc' | 'overig';

export interface Verzoek {
  /** The path as it arrived, without the query. */
  pad: string;
  oppervlak: Oppervlak;
  /** A paid surface (/api/v1 apart from its OpenAPI document, /mcp): every answer says what it cost. */
  betaald: boolean;
  /** Callable from any web origin with a bearer key (/api/v1, /mcp); every other path gets no CORS headers. */
  corsOpen: boolean;
  uitslag: Uitslag;
  /** The REST procedure the path and method were matched to, once, on arrival (gateways/rest.ts), and its path template. */
  route?: OpenApiProcedureMatch & { sjabloon: string };
}

declare module 'fastify' {
  interface FastifyRequest {
    verzoek: Verzoek;
  }
}

export const REST_PREFIX = '/api/v1';

function oppervlakVan(pad: string): Oppervlak {
  if (pad === '/mcp') return 'mcp';
  if (pad.startsWith(`${REST_PREFIX}/`)) return 'rest';
  if (pad === '/docs' || pad.startsWith('/docs/')) return 'docs';
  if (pad === '/app' || pad.startsWith('/app/')) return 'app';
  if (pad.startsWith('/trpc/')) return 'trpc';
  return 'overig';
}

export function classificeer(url: string): Verzoek {
  const vraag = url.indexOf('?');
  const pad = vraag === -1 ? url : url.slice(0, vraag);
  const oppervlak = oppervlakVan(pad);
  const corsOpen = oppervlak === 'rest' || oppervlak === 'mcp';
  return { pad, oppervlak, betaald: corsOpen && pad !== `${REST_PREFIX}/openapi.json`, corsOpen, uitslag: {} };
}

/** The first hook of every request: classify it once. */
export function installVerzoek(app: FastifyInstance): void {
  app.decorateRequest('verzoek', null as unknown as Verzoek);
  app.addHook('onRequest', async (req) => {
    req.verzoek = classificeer(req.url);
  });
}
