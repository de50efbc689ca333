/**
 * JSON body parsing for the whole app. A body that is not valid JSON is not rejected here: it becomes
 * the ONGELDIGE_JSON marker, so the core can answer 400 after auth and rate limits, in the contract's
 * order. An empty body parses as "no body".
 */
import type { FastifyInstance } from 'fastify';

export const ONGELDIGE_JSON: Readonly<Record<string, never>> = Object.freeze({});

export function installJsonParser(app: FastifyInstance) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const tekst = String(body);
    if (tekst.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(tekst));
    } catch {
      done(null, ONGELDIGE_JSON);
    }
  });
}
