/**
 * The one error type and the one table that maps each kind of error to its HTTP status, its tRPC code
 * and its Dutch message. Every gateway (REST, MCP, /trpc, the Fastify edge) answers from this table;
 * there is no second mapping anywhere.
 */
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/unstable-core-do-not-import';
import { z } from 'zod';

interface FoutSoortDef {
  status: number;
  code: TRPC_ERROR_CODE_KEY;
  /** Default Dutch message; most kinds take a specific one at the throw site. */
  fout: string;
}

export const FOUT_SOORTEN = {
  ongeldige_invoer: { status: 400, code: 'BAD_REQUEST', fout: 'Ongeldige invoer.' },
  ongeldige_json: { status: 400, code: 'PARSE_ERROR', fout: 'De body is geen geldige JSON.' },
  ongeldige_sleutel: { status: 401, code: 'UNAUTHORIZED', fout: 'Ongeldige of ontbrekende sleutel.' },
  onvoldoende_tegoed: { status: 402, code: 'PAYMENT_REQUIRED', fout: 'Onvoldoende tegoed.' },
  geen_toegang: { status: 403, code: 'FORBIDDEN', fout: 'Deze sleutel heeft geen toegang tot deze voorziening.' },
  niet_gevonden: { status: 404, code: 'NOT_FOUND', fout: 'Niet gevonden.' },
  methode_niet_toegestaan: { status: 405, code: 'METHOD_NOT_SUPPORTED', fout: 'Deze methode is hier niet toegestaan.' },
  conflict: { status: 409, code: 'CONFLICT', fout: 'Conflict.' },
  te_groot: { status: 413, code: 'PAYLOAD_TOO_LARGE', fout: 'De body is te groot.' },
  media_type: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', fout: 'Stuur de body als application/json.' },
  onverwerkbaar: { status: 422, code: 'UNPROCESSABLE_CONTENT', fout: 'Het verzoek kan niet worden verwerkt.' },
  te_veel_verzoeken: { status: 429, code: 'TOO_MANY_REQUESTS', fout: 'Te veel verzoeken; probeer het later opnieuw.' },
  intern: { status: 500, code: 'INTERNAL_SERVER_ERROR', fout: 'Er ging iets mis aan onze kant. Probeer het later opnieuw.' },
  niet_beschikbaar: { status: 503, code: 'SERVICE_UNAVAILABLE', fout: 'De dienst is tijdelijk niet beschikbaar.' },
} as const satisfies Record<string, FoutSoortDef>;

export type FoutSoort = keyof typeof FOUT_SOORTEN;

/** An expected failure with a Dutch message that is safe to show to the caller. */
export class InsightFout extends TRPCError {
  readonly soort: FoutSoort;
  readonly status: number;
  /** Extra response headers this error must carry (Retry-After, WWW-Authenticate, ...). */
  readonly headers: Record<string, string>;
  constructor(soort: FoutSoort, fout?: string, opts: { headers?: Record<string, string>; cause?: unknown } = {}) {
    const def = FOUT_SOORTEN[soort];
    super({ code: def.code, message: fout ?? def.fout, cause: opts.cause });
    this.name = 'InsightFout';
    this.soort = soort;
    this.status = def.status;
    this.headers = opts.headers ?? {};
  }
}

const statusByCode = new Map<string, number>(Object.values(FOUT_SOORTEN).map((d) => [d.code, d.status]));
const soortByStatus = new Map<number, FoutSoort>(
  (Object.entries(FOUT_SOORTEN) as [FoutSoort, FoutSoortDef][]).map(([k, d]) => [d.status, k]),
);

export interface FoutAntwoord {
  status: number;
  fout: string;
  headers: Record<string, string>;
  /** True when the caller sees a generic message and the cause must be logged. */
  intern: boolean;
}

/**
 * Turn anything thrown into the caller-facing answer. Zod issues become a Dutch sentence; unknown
 * errors become a generic 500 (the caller never sees a stack trace or an internal message).
 */
export function naarFout(err: unknown): FoutAntwoord {
  const e = err instanceof TRPCError && !(err instanceof InsightFout) && err.cause instanceof InsightFout ? err.cause : err;
  if (e instanceof InsightFout) return { status: e.status, fout: e.message, headers: e.headers, intern: e.status >= 500 };
  if (e instanceof TRPCError) {
    if (e.cause instanceof z.ZodError) {
      return { status: 400, fout: zodNaarFout(e.cause), headers: {}, intern: false };
    }
    const status = statusByCode.get(e.code) ?? 500;
    const soort = soortByStatus.get(status) ?? 'intern';
    return { status, fout: FOUT_SOORTEN[soort].fout, headers: {}, intern: status >= 500 };
  }
  if (e instanceof z.ZodError) return { status: 400, fout: zodNaarFout(e), headers: {}, intern: false };
  return { status: 500, fout: FOUT_SOORTEN.intern.fout, headers: {}, intern: true };
}

/** Standard answer for a bare HTTP status from the web framework (404 route, 413 body, 415 type, ...). */
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
};

function ontvangenType(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'lijst';
  return typeNamen[typeof input] ?? typeof input;
}

/** One Dutch sentence for a Zod error: each issue as `veld: probleem`. Custom messages in schemas win. */
export function zodNaarFout(error: z.ZodError): string {
  const delen = error.issues.slice(0, 5).map((issue) => {
    const veld = issue.path.length ? issue.path.join('.') : 'body';
    return `${veld}: ${issueTekst(issue)}`;
  });
  return `Ongeldige invoer: ${delen.join('; ')}.`;
}

function issueTekst(issue: z.core.$ZodIssue): string {
  // Messages we wrote ourselves in the schemas are Dutch already; Zod's own defaults start in English.
  if (issue.message && !/^(Invalid|Too |Unrecognized|Expected|Required)/.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined
        ? 'verplicht veld ontbreekt'
        : `verwacht ${typeNamen[issue.expected] ?? issue.expected}, kreeg ${ontvangenType(issue.input)}`;
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
