/**
 * pino logger. One redaction rule for everything that can carry a key (decisions section 4: a key never
 * appears in a log): credential headers and body fields are censored by path, and every logged URL —
 * path and query string — passes verbergSleutels(), which hides anything in the key format and the
 * value of any query parameter named like a credential.
 */
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
  host?: string;
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, bestemming?: DestinationStream): Logger {
  return pino(
    {
      level: config.LOG_LEVEL,
      redact: {
        paths: GEHEIME_VELDEN.flatMap((v) => [`req.headers["${v}"]`, `headers["${v}"]`, `body["${v}"]`, `*.body["${v}"]`, `"${v}"`, `*["${v}"]`]),
        censor: VERBORGEN,
      },
      // Replaces Fastify's request serializer (it merges ours over its own) with one that hides keys in the URL.
      serializers: {
        req: (req: LogVerzoek) => ({
          method: req.method,
          url: typeof req.url === 'string' ? verbergSleutels(req.url) : req.url,
          host: req.host ?? req.hostname,
          remoteAddress: req.ip,
          remotePort: req.socket?.remotePort,
        }),
      },
    },
    bestemming,
  );
}
