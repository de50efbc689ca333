/**
 * Invalid JSON is not rejected here but becomes a marker with its Dutch message, so the core answers 400
 * after auth and rate limits, in the contract's order. Nesting is limited before JSON.parse: a deep value
 * would overflow the stack of libraries that walk it recursively (tRPC, Zod, pino, the fingerprint).
 */
import type { FastifyInstance } from 'fastify';

export const MAX_DIEPTE = 32;

const ONGELDIGE_BODY = new WeakMap<object, string>();

function marker(fout: string): Readonly<Record<string, never>> {
  const m = Object.freeze({});
  ONGELDIGE_BODY.set(m, fout);
  return m;
}

export const ONGELDIGE_JSON = marker('De body is geen geldige JSON.');
export const TE_DIEPE_JSON = marker(`De body is te diep genest: maximaal ${MAX_DIEPTE} niveaus van lijsten en objecten.`);

export function ongeldigeBodyFout(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null ? ONGELDIGE_BODY.get(body) : undefined;
}

/** Outside strings; stops counting past `max`. */
export function jsonDiepte(tekst: string, max = MAX_DIEPTE): number {
  let diepte = 0;
  let diepst = 0;
  let inTekst = false;
  for (let i = 0; i < tekst.length; i++) {
    const c = tekst.charCodeAt(i);
    if (inTekst) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inTekst = false;
    } else if (c === 34) inTekst = true;
    else if (c === 91 || c === 123) {
      if (++diepte > diepst && (diepst = diepte) > max) return diepst;
    } else if (c === 93 || c === 125) diepte--;
  }
  return diepst;
}

export function installJsonParser(app: FastifyInstance) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const tekst = String(body);
    if (tekst.trim() === '') return done(null, undefined);
    if (jsonDiepte(tekst) > MAX_DIEPTE) return done(null, TE_DIEPE_JSON);
    try {
      done(null, JSON.parse(tekst));
    } catch {
      done(null, ONGELDIGE_JSON);
    }
  });
}
