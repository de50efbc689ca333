/**
 * Invalid JSON or a key twice in one object becomes a marker with its Dutch message, so the core answers 400
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

function dubbeleSleutel(naam: string): string {
  const getoond = naam.length > 40 ? `${naam.slice(0, 40)}...` : naam;
  return `De body bevat de sleutel ${JSON.stringify(getoond)} twee keer in hetzelfde object; elke sleutel mag er één keer in staan.`;
}

/**
 * One linear pass: the depth outside strings (stops past `max`) and the first key twice in one object, which
 * JSON.parse would take the last of while a gateway or log reading the first sees another request.
 */
export function jsonScan(tekst: string, max = MAX_DIEPTE): { diepte: number; dubbel?: string } {
  let diepte = 0;
  let diepst = 0;
  const sleutels: (Set<string> | undefined)[] = [];
  let verwachtSleutel = false;
  for (let i = 0; i < tekst.length; i++) {
    const c = tekst.charCodeAt(i);
    if (c === 34) {
      const begin = i;
      let ontsnapt = false;
      for (i++; i < tekst.length; i++) {
        const d = tekst.charCodeAt(i);
        if (d === 34) break;
        if (d === 92) {
          ontsnapt = true;
          i++;
        }
      }
      if (!verwachtSleutel) continue;
      verwachtSleutel = false;
      const ruw = tekst.slice(begin, i + 1);
      let naam: string;
      try {
        naam = ontsnapt ? JSON.parse(ruw) : ruw.slice(1, -1);
      } catch {
        return { diepte: diepst };
      }
      const gezien = sleutels[sleutels.length - 1] as Set<string>;
      if (gezien.has(naam)) return { diepte: diepst, dubbel: naam };
      gezien.add(naam);
    } else if (c === 91 || c === 123) {
      if (++diepte > diepst && (diepst = diepte) > max) return { diepte: diepst };
      sleutels.push(c === 123 ? new Set() : undefined);
      verwachtSleutel = c === 123;
    } else if (c === 93 || c === 125) {
      diepte--;
      sleutels.pop();
      verwachtSleutel = false;
    } else if (c === 44) verwachtSleutel = sleutels[sleutels.length - 1] !== undefined;
  }
  return { diepte: diepst };
}

/** For a body tRPC parses itself: what the scan refuses (too deep, a key twice), not what JSON.parse would. */
export function scanFout(tekst: string): string | undefined {
  const { diepte, dubbel } = jsonScan(tekst);
  if (diepte > MAX_DIEPTE) return ongeldigeBodyFout(TE_DIEPE_JSON);
  return dubbel === undefined ? undefined : dubbeleSleutel(dubbel);
}

export function installJsonParser(app: FastifyInstance) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const tekst = String(body);
    if (tekst.trim() === '') return done(null, undefined);
    const { diepte, dubbel } = jsonScan(tekst);
    if (diepte > MAX_DIEPTE) return done(null, TE_DIEPE_JSON);
    if (dubbel !== undefined) return done(null, marker(dubbeleSleutel(dubbel))); // unparsed: the scan stopped here
    try {
      done(null, JSON.parse(tekst));
    } catch {
      done(null, ONGELDIGE_JSON);
    }
  });
}
