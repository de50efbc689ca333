/** Free of HTTP objects: gateways build it from their requests, tests build it directly. */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config/env.ts';
import type { Db } from '../db/client.ts';
import type { Principal } from '../domain/keys/sleutels.ts';
import type { Emmer } from '../domain/limits/snelheid.ts';
import type { Sessie } from '../domain/gebruikers/gebruikers.ts';
import type { ModelHouder } from '../domain/valuation/houder.ts';
import type { Resolver } from '../domain/webhooks/doeladres.ts';

export interface Services {
  db: Db;
  config: Config;
  now: () => Date;
  log: Logger;
  waardemodel: ModelHouder;
  /** DNS for the webhook SSRF guard; tests inject a hostile one. */
  webhookResolver?: Resolver;
}

export type Kanaal = 'rest' | 'mcp' | 'intern';

/**
 * /trpc only, for the web app's session procedures. REST and MCP never fill it in, so a session procedure
 * cannot run there and a session cookie is no credential there.
 */
export interface WebVerzoek {
  sessieToken?: string;
  csrfToken?: string;
  origin?: string;
  host?: string;
  ip: string;
  zetSessieCookie: (token: string, verlooptOp: Date) => void;
  wisSessieCookie: () => void;
}

/** `saldo_credits` is unknown before a key is. */
export interface Kosten {
  gefactureerd_cent: number;
  saldo_credits?: number;
  /** The usage record this answer settled (`verzoek_id` in GET /verbruik and in its webhook event). */
  verzoek_id?: string;
}

/** tRPC copies the context per middleware, so the gateway hands in this one object and reads it after the call. */
export interface Uitslag {
  kosten?: Kosten;
}

export interface OngeldigeInvoer {
  soort: 'ongeldige_json' | 'ongeldige_invoer';
  fout: string;
}

export interface ContextInput {
  services: Services;
  kanaal: Kanaal;
  authorization?: string;
  idempotencyKey?: string;
  /** Input the gateway refused before the procedure (a body that is no JSON, an unknown MCP argument), answered only after auth and rate limits. */
  ongeldigeInvoer?: OngeldigeInvoer;
  /** MCP: authenticated once per HTTP request, not per message. */
  principal?: Principal;
  requestId?: string;
  setHeader?: (name: string, value: string) => void;
  uitslag?: Uitslag;
  web?: WebVerzoek;
}

export interface Context extends Required<Pick<ContextInput, 'services' | 'kanaal' | 'requestId' | 'setHeader' | 'uitslag'>> {
  authorization?: string;
  idempotencyKey?: string;
  ongeldigeInvoer?: OngeldigeInvoer;
  principal?: Principal;
  /** Read with the rate limit, so no request reads it twice. */
  saldo?: number;
  /** A rate limit still to check, with the idempotency claim (core/trpc.ts claimtMetLimiet); `gedaan` once checked. */
  limiet?: { emmers: Emmer[]; gedaan: boolean };
  web?: WebVerzoek;
  sessie?: Sessie;
}

export interface AuthContext extends Context {
  principal: Principal;
}

export interface WebContext extends Context {
  web: WebVerzoek;
}

export function createContextInner(input: ContextInput): Context {
  return {
    services: input.services,
    kanaal: input.kanaal,
    authorization: input.authorization,
    idempotencyKey: input.idempotencyKey,
    ongeldigeInvoer: input.ongeldigeInvoer,
    principal: input.principal,
    requestId: input.requestId ?? randomUUID(),
    setHeader: input.setHeader ?? (() => {}),
    uitslag: input.uitslag ?? {},
    web: input.web,
  };
}
