/** The one classification of a request, computed on arrival and read by every hook; also carries `uitslag`. */
import type { FastifyInstance } from 'fastify';
import type { OpenApiProcedureMatch } from 'trpc-to-openapi';
import type { Uitslag } from '../core/context.ts';

export type Oppervlak = 'rest' | 'mcp' | 'docs' | 'app' | 'trpc' | 'overig';

export interface Verzoek {
  pad: string;
  oppervlak: Oppervlak;
  /** Every answer says what it cost. */
  betaald: boolean;
  corsOpen: boolean;
  uitslag: Uitslag;
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

export function installVerzoek(app: FastifyInstance): void {
  app.decorateRequest('verzoek', null as unknown as Verzoek);
  app.addHook('onRequest', async (req) => {
    req.verzoek = classificeer(req.url);
  });
}
