/**
 * pino logger. One redaction rule for everything that can carry a key (decisions section 4: a key never
 * appears in a log): credential headers and body fields are censored by path, and every logged URL —
 * path and query string — passes verbergSleutels(), which hides anything in the key format and the
 * value of any query parameter named like a credential.
 *
 * Every line written while a request is served carries its `reqId`: Fastify's request logger is the
 * services' logger itself (app.ts, no child per request), which adds the id of the request in whose async
 * context the line is written (volgVerzoekInLog, a mixin); the access line, written outside that context,
 * names it itself (VerzoekLog).
 */
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config/env.ts';
import { KEY_PREFIX } from './domain/keys/format.ts';

export const VERBORGEN = '[verborgen]';

const SLEUTEL_IN_TEKST = new RegExp(`${KEY_PREFIX}[0-9A-Za-z]*`, 'g');
const GEHEIME_PARAMETER = /([?&;](?:key|api[_-]?key|apikey|sleutel|token|access[_-]?token|auth|authorization|password|wachtwoord|secret)=)[^&;#]*/gi;

/** A URL (or any text) with every key-shaped string and credential-named query value replaced by [verborgen]. */
export function verbergSleutels(tekst: string): string {
  return tekst.replace(SLEUTEL_IN_TEKST, VERBORGEN).replace(GEHEIME_PARAMETER, `$1${VERBORGEN}`);
}

const GEHEIME_VELDEN = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'key', 'sleutel', 'password', 'wachtwoord', 'token'];

interface LogVerzoek {
  method?: string;
  url?: string;
  /** The URL as it arrived (the REST edge rewrites `url` while it serves the request). */
  originalUrl?: string;
  host?: string;
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** The request being served in the current async context. */
const lopendVerzoek = new AsyncLocalStorage<{ reqId: string }>();
const verzoekBronnen = new WeakMap<FastifyRequest, AsyncResource>();

/**
 * Serve each request of `app` in an async context of its own that knows its id. Entered on arrival and
 * entered again before validation: Fastify runs validation, the handler and the hooks after them from
 * the request stream's 'end' event, which Node fires in the socket's context, not the request's.
 */
export function volgVerzoekInLog(app: FastifyInstance): void {
  app.addHook('onRequest', (req, _reply, done) => {
    // Fastify keeps the URL as it arrived from the first read of originalUrl on: read it before the REST
    // edge rewrites req.url, so the access line (VerzoekLog) sees the path that was asked for.
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

/**
 * One log line per request, when it has been answered (Fastify's default is two, each passed through
 * the redaction). Like an access log, a request whose client goes away before the answer leaves no line.
 */
export class VerzoekLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    // The id explicitly: Fastify calls this when the answer is written, outside the request's async context.
    if (error) reply.log.error({ reqId: request.id, req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ reqId: request.id, req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/**
 * Run `fn` outside any request's context: for work a request sets going that outlives it (a timer, a
 * background worker's round), whose lines must not carry that request's id.
 */
export function buitenVerzoek<T>(fn: () => T): T {
  return lopendVerzoek.exit(fn);
}

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, bestemming?: DestinationStream): Logger {
  return pino(
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
      // Replaces Fastify's request serializer (it merges ours over its own) with one that hides keys in the URL.
      serializers: {
        req: (req: LogVerzoek) => {
          const url = req.originalUrl ?? req.url;
          return {
            method: req.method,
            url: typeof url === 'string' ? verbergSleutels(url) : url,
            host: req.host ?? req.hostname,
            remoteAddress: req.ip,
            remotePort: req.socket?.remotePort,
          };
        },
      },
    },
    bestemming,
  );
}
