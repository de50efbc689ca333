/** The one error table: kind → HTTP status, tRPC code, Dutch message and OpenAPI text. No second mapping anywhere. */
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/unstable-core-do-not-import';
import { z } from 'zod';

interface FoutHeader {
  beschrijving: string;
  type?: 'string' | 'integer';
  /** Sent with every error of this kind. */
  vast?: string;
}

interface FoutSoortDef {
  status: number;
  code: TRPC_ERROR_CODE_KEY;
  /** Most kinds take a specific message at the throw site. */
  fout: string;
  beschrijving: string;
  headers?: Record<string, FoutHeader>;
}

/** The first kind of a status is the one a bare HTTP status (404 route, 413 body) answers with. */
const WWW_AUTHENTICATE = { 'WWW-Authenticate': { beschrijving: 'Altijd `Bearer`.', vast: 'Bearer' } };
/** `RateLimit` and `RateLimit-Policy` are documented once, for every status after the limit (openapi-afwerking.ts). */
const TE_VEEL_HEADERS = { 'Retry-After': { beschrijving: 'Seconden tot er weer ruimte is in het venster.', type: 'integer' } } as const;
const CONFLICT_HEADERS = { 'Retry-After': { beschrijving: 'Seconden; alleen als het eerste verzoek met deze Idempotency-Key nog loopt.', type: 'integer' } } as const;

export const FOUT_SOORTEN = {
  ongeldige_invoer: { status: 400, code: 'BAD_REQUEST', fout: 'Ongeldige invoer.', beschrijving: 'Ongeldige invoer.' },
  ongeldige_json: { status: 400, code: 'PARSE_ERROR', fout: 'De body is geen geldige JSON.', beschrijving: 'De body is geen geldige JSON.' },
  ongeldige_sleutel: { status: 401, code: 'UNAUTHORIZED', fout: 'Ongeldige of ontbrekende sleutel.', beschrijving: 'Ongeldige of ontbrekende sleutel (`WWW-Authenticate: Bearer`).', headers: WWW_AUTHENTICATE },
  onvoldoende_tegoed: { status: 402, code: 'PAYMENT_REQUIRED', fout: 'Onvoldoende tegoed.', beschrijving: 'Onvoldoende tegoed voor deze opvraging, of de maandlimiet van de sleutel is bereikt (eigen melding). Niet in rekening gebracht.' },
  geen_toegang: { status: 403, code: 'FORBIDDEN', fout: 'Deze sleutel heeft geen toegang tot deze voorziening.', beschrijving: "Sleutel van de verkeerde familie of zonder recht 'inzicht:lezen'." },
  niet_gevonden: { status: 404, code: 'NOT_FOUND', fout: 'Niet gevonden.', beschrijving: 'Niet gevonden.' },
  methode_niet_toegestaan: { status: 405, code: 'METHOD_NOT_SUPPORTED', fout: 'Deze methode is hier niet toegestaan.', beschrijving: 'Methode niet toegestaan; zie `Allow`.' },
  conflict: { status: 409, code: 'CONFLICT', fout: 'Conflict.', beschrijving: 'Idempotency-Key hergebruikt met een andere body, of het eerste verzoek loopt nog.', headers: CONFLICT_HEADERS },
  te_groot: { status: 413, code: 'PAYLOAD_TOO_LARGE', fout: 'De body is te groot.', beschrijving: 'De body is te groot.' },
  media_type: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', fout: 'Stuur de body als application/json.', beschrijving: 'Stuur de body als application/json.' },
  onverwerkbaar: { status: 422, code: 'UNPROCESSABLE_CONTENT', fout: 'Het verzoek kan niet worden verwerkt.', beschrijving: 'Het verzoek kan niet worden verwerkt.' },
  te_veel_verzoeken: { status: 429, code: 'TOO_MANY_REQUESTS', fout: 'Te veel verzoeken; probeer het later opnieuw.', beschrijving: 'Te veel verzoeken; zie `Retry-After`.', headers: TE_VEEL_HEADERS },
  intern: {
    status: 500,
    code: 'INTERNAL_SERVER_ERROR',
    fout: 'Er ging iets mis aan onze kant. Probeer het later opnieuw.',
    beschrijving: 'Interne fout; de melding is algemeen, de oorzaak wordt gelogd met het verzoek-id (`X-Request-Id`).',
  },
  niet_beschikbaar: {
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    fout: 'De dienst is tijdelijk niet beschikbaar.',
    beschrijving: 'De dienst is tijdelijk niet beschikbaar (de database is onbereikbaar, of het waardemodel wordt na een eerste start nog gebouwd: `/readyz`); er is niets gefactureerd. Probeer het opnieuw na `Retry-After`.',
    headers: { 'Retry-After': { beschrijving: 'Seconden tot een nieuwe poging zinvol is.', type: 'integer' } },
  },
} as const satisfies Record<string, FoutSoortDef>;

export type FoutSoort = keyof typeof FOUT_SOORTEN;

/** An expected failure whose Dutch message is safe to show. */
export class InsightFout extends TRPCError {
  readonly soort: FoutSoort;
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(soort: FoutSoort, fout?: string, opts: { headers?: Record<string, string>; cause?: unknown } = {}) {
    const def = FOUT_SOORTEN[soort];
    // A 4xx is an answer, not a bug: no stack trace, which nobody reads and which costs CPU on every refusal.
    const stapels = Error.stackTraceLimit;
    if (def.status < 500) Error.stackTraceLimit = 0;
    try {
      super({ code: def.code, message: fout ?? def.fout, cause: opts.cause });
    } finally {
      Error.stackTraceLimit = stapels;
    }
    this.name = 'InsightFout';
    this.soort = soort;
    this.status = def.status;
    this.headers = { ...vasteHeaders(def), ...opts.headers };
  }
}

function vasteHeaders(def: FoutSoortDef): Record<string, string> {
  const uit: Record<string, string> = {};
  for (const [naam, h] of Object.entries(def.headers ?? {})) if (h.vast !== undefined) uit[naam] = h.vast;
  return uit;
}

const SOORTEN = Object.entries(FOUT_SOORTEN) as [FoutSoort, FoutSoortDef][];
const soortByCode = new Map<string, FoutSoort>(SOORTEN.map(([k, d]) => [d.code, k]));
const soortByStatus = new Map<number, FoutSoort>();
for (const [k, d] of SOORTEN) if (!soortByStatus.has(d.status)) soortByStatus.set(d.status, k);

export function foutBeschrijvingen(statussen: number[]): Record<number, string> {
  return Object.fromEntries(statussen.flatMap((s) => (soortByStatus.has(s) ? [[s, FOUT_SOORTEN[soortByStatus.get(s) as FoutSoort].beschrijving]] : [])));
}

export function foutSoortVoorStatus(status: number): FoutSoortDef | undefined {
  const soort = soortByStatus.get(status);
  return soort ? FOUT_SOORTEN[soort] : undefined;
}

export interface FoutAntwoord {
  status: number;
  fout: string;
  headers: Record<string, string>;
  /** The caller sees a generic message; the cause must be logged. */
  intern: boolean;
}

/** Anything thrown → the caller's answer; unknown errors become a generic 500 without internals. */
export function naarFout(err: unknown): FoutAntwoord {
  // One translation per error: tRPC's error formatter runs inside every call (core/trpc.ts), and the
  // gateway's edge asks again for the same error to render it; both get this one answer.
  if (typeof err === 'object' && err !== null) {
    const bekend = vertaald.get(err);
    if (bekend) return bekend;
    const f = vertaal(err);
    vertaald.set(err, f);
    return f;
  }
  return vertaal(err);
}

const vertaald = new WeakMap<object, FoutAntwoord>();

function vertaal(err: unknown): FoutAntwoord {
  const e = err instanceof TRPCError && !(err instanceof InsightFout) && err.cause instanceof InsightFout ? err.cause : err;
  // A 503 is an outage database-storing.ts logs once, not a bug per request.
  if (e instanceof InsightFout) return { status: e.status, fout: e.message, headers: e.headers, intern: e.status >= 500 && e.soort !== 'niet_beschikbaar' };
  if (e instanceof TRPCError) {
    // Refused input is the caller's 400; an answer that fails its own output schema is our 500.
    if (e.cause instanceof z.ZodError && e.code === 'BAD_REQUEST') {
      return { status: 400, fout: zodNaarFout(e.cause), headers: {}, intern: false };
    }
    const soort = soortByCode.get(e.code) ?? 'intern';
    const def: FoutSoortDef = FOUT_SOORTEN[soort];
    return { status: def.status, fout: def.fout, headers: vasteHeaders(def), intern: def.status >= 500 };
  }
  if (e instanceof z.ZodError) return { status: 400, fout: zodNaarFout(e), headers: {}, intern: false };
  return { status: 500, fout: FOUT_SOORTEN.intern.fout, headers: {}, intern: true };
}

/** For a bare HTTP status from the web framework (404 route, 413 body, 415 type, ...). */
export function foutVoorStatus(status: number): string {
  const soort = soortByStatus.get(status) ?? (status >= 500 ? 'intern' : 'ongeldige_invoer');
  return FOUT_SOORTEN[soort].fout;
}

const typeNamen: Record<string, string> = {
  string: 'tekst',
  number: 'getal',
  int: 'geheel getal',
  boolean: 'waar/onwaar',
  object: 'object',
  array: 'lijst',
  null: 'null',
  undefined: 'niets',
  NaN: 'geen getal',
};

function ontvangenType(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'lijst';
  return typeNamen[typeof input] ?? typeof input;
}

/** Custom messages in schemas win. */
export function zodNaarFout(error: z.ZodError): string {
  const verkeerdType = new Set(error.issues.filter((i) => i.code === 'invalid_type').map((i) => i.path.join('.')));
  const issues = error.issues.filter((i) => i.code === 'invalid_type' || !verkeerdType.has(i.path.join('.')));
  const delen = issues.slice(0, 5).map((issue) => {
    // The input as a whole is a body or a query string: no name then; a message naming its field keeps its own.
    const tekst = issueTekst(issue);
    const veld = issue.path.join('.');
    return veld === '' || tekst.startsWith(`${veld}:`) ? tekst : `${veld}: ${tekst}`;
  });
  return `Ongeldige invoer: ${delen.join('; ')}.`;
}

export function issueTekst(issue: z.core.$ZodIssue): string {
  // Our own schema messages are Dutch already; Zod's defaults start in English.
  if (issue.message && !/^(Invalid|Too |Unrecognized|Expected|Required)/.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type': {
      const ontvangen = issue.input !== undefined ? ontvangenType(issue.input) : /received (\w+)$/.exec(issue.message)?.[1];
      return ontvangen === undefined || ontvangen === 'undefined'
        ? 'verplicht veld ontbreekt'
        : `verwacht ${typeNamen[issue.expected] ?? issue.expected}, kreeg ${typeNamen[ontvangen] ?? ontvangen}`;
    }
    case 'unrecognized_keys':
      return `onbekend veld ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
    case 'too_small':
      return issue.origin === 'string' ? `minimaal ${issue.minimum} tekens` : `minimaal ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'string' ? `maximaal ${issue.maximum} tekens` : `maximaal ${issue.maximum}`;
    case 'invalid_value':
      return `moet een van ${issue.values.map((v) => `'${String(v)}'`).join(', ')} zijn`;
    case 'invalid_format':
      return 'ongeldig formaat';
    default:
      return 'ongeldige waarde';
  }
}
