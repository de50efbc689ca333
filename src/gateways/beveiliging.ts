/**
 * Security headers on every answer, errors and the hijacked /mcp answer included (set on arrival). JSON
 * gets a CSP that allows nothing; /docs allows what Scalar's page needs; /app sets its own (app-static.ts).
 */
import type { FastifyInstance } from 'fastify';

const JSON_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const ALTIJD = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

export const JSON_HEADERS = { ...ALTIJD, 'Content-Security-Policy': JSON_CSP };

export function installBeveiligingsHeaders(app: FastifyInstance) {
  app.addHook('onRequest', async (req, reply) => {
    reply.headers({ ...ALTIJD, 'Content-Security-Policy': req.verzoek.oppervlak === 'docs' ? DOCS_CSP : JSON_CSP });
  });
}
