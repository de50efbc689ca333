/**
 * The request context, free of HTTP objects: gateways (REST, MCP, /trpc) build it from their own
 * requests, tests build it directly and call procedures through createCaller.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config/env.ts';
import type { Db } from '../db/client.ts';
import type { Principal } from '../domain/keys/sleutels.ts';
import type { Sessie } from '../domain/gebruikers/gebruikers.ts';
import type { ModelHouder } from '../domain/valuation/houder.ts';
import type { Resolver } from '../domain/webhooks/doeladres.ts';

export interface Services {
  db: Db;
  config: Config;
  /** Injected clock: tests move time instead of waiting. */
  now: () => Date;
  log: Logger;
  /** The fitted market-value model of this process. */
  waardemodel: ModelHouder;
  /** DNS for the webhook SSRF guard; tests inject a hostile one. Default: the system resolver. */
  webhookResolver?: Resolver;
}

/** `intern`: the web app's calls over /trpc (session auth, core/sessie.ts). */
export type Kanaal = 'rest' | 'mcp' | 'intern';

/**
 * /trpc only: what the web app's session procedures (core/sessie.ts) read from the HTTP request and
 * how they set the session cookie. The REST and MCP gateways never fill it in, so a session procedure
 * cannot run there and a session cookie is no credential there.
 */
export interface WebVerzoek {
  /** The session cookie's value, if any. */
  sessieToken?: string;
  /** The CSRF header's value, if any. */
  csrfToken?: string;
  /** Origin header of the request and the host it was sent to, for the same-origin check. */
  origin?: string;
  host?: string;
  ip: string;
  zetSessieCookie: (token: string, verlooptOp: Date) => void;
  wisSessieCookie: () => void;
}

/** What an answer cost and the balance after it (credits); `saldo_credits` is unknown before a key is. */
export interface Kosten {
  gefactureerd_cent: number;
  saldo_credits?: number;
}

/**
 * What the core reports back to the gateway that made the call, typed: tRPC copies the context per
 * middleware, so the gateway hands in this one object and reads it after the call.
 */
export interface Uitslag {
  kosten?: Kosten;
}

export interface ContextInput {
  services: Services;
  kanaal: Kanaal;
  /** Raw Authorization header value. */
  authorization?: string;
  /** REST only: the Idempotency-Key header. */
  idempotencyKey?: string;
  /** Set by the REST edge when the body was not valid JSON (or too deeply nested): the Dutch message, answered after auth and rate limits. */
  ongeldigeJson?: string;
  /** The principal a gateway already authenticated for this HTTP request (MCP: once per request, not per message). */
  principal?: Principal;
  requestId?: string;
  /** Where procedures put response headers (RateLimit, Idempotent-Replayed, ...). */
  setHeader?: (name: string, value: string) => void;
  uitslag?: Uitslag;
  /** /trpc only: the request as the session procedures need it. */
  web?: WebVerzoek;
}

export interface Context extends Required<Pick<ContextInput, 'services' | 'kanaal' | 'requestId' | 'setHeader' | 'uitslag'>> {
  authorization?: string;
  idempotencyKey?: string;
  ongeldigeJson?: string;
  principal?: Principal;
  /** The account's balance as read with the rate limit (credits), so no request reads it twice. */
  saldo?: number;
  web?: WebVerzoek;
  /** Set by `sessieProcedure` (core/sessie.ts): the logged-in user's live session. */
  sessie?: Sessie;
}

/** The context after authentication: every procedure behind `sleutelProcedure` sees this. */
export interface AuthContext extends Context {
  principal: Principal;
}

/** The context of a web-app procedure: a /trpc request, never a key; `sessie` once logged in. */
export interface WebContext extends Context {
  web: WebVerzoek;
}

export function createContextInner(input: ContextInput): Context {
  return {
    services: input.services,
    kanaal: input.kanaal,
    authorization: input.authorization,
    idempotencyKey: input.idempotencyKey,
    ongeldigeJson: input.ongeldigeJson,
    principal: input.principal,
    requestId: input.requestId ?? randomUUID(),
    setHeader: input.setHeader ?? (() => {}),
    uitslag: input.uitslag ?? {},
    web: input.web,
  };
}
