/**
 * JSON body parsing for the whole app. A body that is not valid JSON is not rejected here: it becomes
 * a marker carrying its Dutch message, so the core can answer 400 after auth and rate limits, in the
 * contract's order. An empty body parses as "no body".
 *
 * Nesting is limited before JSON.parse runs (MAX_DIEPTE levels of arrays/objects): no valid request is
 * deeper than a few levels, and a deeply nested value would otherwise reach libraries (tRPC, Zod, pino,
 * the idempotency fingerprint) that walk or serialise it recursively and can overflow the stack.
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

/** The Dutch message when the parser replaced the body by a marker; undefined for a parsed body. */
export function ongeldigeBodyFout(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null ? ONGELDIGE_BODY.get(body) : undefined;
}

/** Deepest nesting of arrays and objects in a JSON text, outside strings; stops counting past `max`. */
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
