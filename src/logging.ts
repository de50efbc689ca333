/**
 * Decisions section 4, a key never appears in a log: credential headers and fields are censored by path,
 * every logged URL passes verbergSleutels(). Lines carry the request's `reqId` through a mixin reading the
 * async context (no child logger per request); the access line, written outside it, names it itself.
 */
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config/env.ts';
import { KEY_PREFIX } from './domain/keys/format.ts';

export const VERBORGEN = '[verborgen]';

const SLEUTEL_IN_TEKST = new RegExp(`${KEY_PREFIX}(?:test_)?[0-9A-Za-z]*`, 'g');
const GEHEIME_PARAMETER = /([?&;](?:key|api[_-]?key|apikey|sleutel|token|access[_-]?token|auth|authorization|password|wachtwoord|secret)=)[^&;#]*/gi;

const GEHEIME_VELDEN = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'key', 'sleutel', 'password', 'wachtwoord', 'token'];

/** tRPC's GET input (`?input=<JSON>`, also batched): hidden whole when it names a secret field, or cannot be read. */
const TRPC_INVOER = /([?&;]input=)([^&;#]*)/gi;
const GEHEIM_VELD = new RegExp(`"(?:${GEHEIME_VELDEN.join('|')}|secret)"\\s*:`, 'i');

function invoerZonderGeheim(heel: string, naam: string, waarde: string): string {
  let json: string;
  try {
    json = decodeURIComponent(waarde.replace(/\+/g, ' '));
  } catch {
    return `${naam}${VERBORGEN}`;
  }
  return GEHEIM_VELD.test(json) ? `${naam}${VERBORGEN}` : heel;
}

export function verbergSleutels(tekst: string): string {
  return tekst.replace(SLEUTEL_IN_TEKST, VERBORGEN).replace(GEHEIME_PARAMETER, `$1${VERBORGEN}`).replace(TRPC_INVOER, invoerZonderGeheim);
}

interface LogVerzoek {
  method?: string;
  url?: string;
  /** The REST edge rewrites `url` while it serves the request. */
  originalUrl?: string;
  host?: string;
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

const lopendVerzoek = new AsyncLocalStorage<{ reqId: string }>();
const verzoekBronnen = new WeakMap<FastifyRequest, AsyncResource>();

/**
 * Entered on arrival and again before validation: Fastify runs validation, the handler and later hooks
 * from the request stream's 'end' event, which Node fires in the socket's context, not the request's.
 */
export function volgVerzoekInLog(app: FastifyInstance): void {
  app.addHook('onRequest', (req, _reply, done) => {
    // Fastify keeps the URL as it arrived from the first read of originalUrl on: read it before the REST edge rewrites it.
    void req.originalUrl;
    lopendVerzoek.run({ reqId: String(req.id) }, () => {
      const bron = new AsyncResource('insight-verzoek');
      verzoekBronnen.set(req, bron);
      bron.runInAsyncScope(done);
    });
  });
  app.addHook('preValidation', (req, _reply, done) => {
    const bron = verzoekBronnen.get(req);
    if (bron) bron.runInAsyncScope(done);
    else done();
  });
}

/** One line per answered request (Fastify's default is two, each redacted); handlers get a logger derived from ours. */
export class VerzoekLog extends LogController {
  private readonly toegang: Logger | undefined;

  constructor(log: Logger) {
    super();
    this.toegang = toegangsLogs.get(log);
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    // Called when the answer is written, outside the request's async context.
    if (error) {
      reply.log.error({ reqId: request.id, req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
      return;
    }
    const toegang = this.toegang;
    if (!toegang) {
      reply.log.info({ reqId: request.id, req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
      return;
    }
    if (!toegang.isLevelEnabled('info')) return;
    toegang.info({ reqId: request.id, req: verzoekVoorLog(request), res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/** For work a request sets going that outlives it, whose lines must not carry that request's id. */
export function buitenVerzoek<T>(fn: () => T): T {
  return lopendVerzoek.exit(fn);
}

/**
 * The access line goes through a second logger without the censor (its costliest part): its fields hold no
 * credential (the URL passes verbergSleutels). Every other line, errors included, is censored.
 */
const toegangsLogs = new WeakMap<Logger, Logger>();

function verzoekVoorLog(req: LogVerzoek) {
  const url = req.originalUrl ?? req.url;
  return {
    method: req.method,
    url: typeof url === 'string' ? verbergSleutels(url) : url,
    host: req.host ?? req.hostname,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, bestemming?: DestinationStream): Logger {
  const uit = bestemming ?? pino.destination(1);
  const log = pino(
    {
      level: config.LOG_LEVEL,
      // No logger binds a reqId of its own (that would write the key twice): the mixin is the one source.
      mixin() {
        const verzoek = lopendVerzoek.getStore();
        return verzoek ? { reqId: verzoek.reqId } : {};
      },
      redact: {
        paths: GEHEIME_VELDEN.flatMap((v) => [`req.headers["${v}"]`, `headers["${v}"]`, `body["${v}"]`, `*.body["${v}"]`, `"${v}"`, `*["${v}"]`]),
        censor: VERBORGEN,
      },
      // Fastify merges ours over its own request serializer.
      serializers: { req: verzoekVoorLog },
    },
    uit,
  );
  toegangsLogs.set(log, pino({ level: config.LOG_LEVEL }, uit));
  return log;
}
