/** pino logger; the Authorization header (and anything that looks like a key) never reaches a log line. */
import { pino, type Logger } from 'pino';
import type { Config } from './config/env.ts';

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>): Logger {
  return pino({
    level: config.LOG_LEVEL,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'authorization', 'key', '*.key'],
      censor: '[verborgen]',
    },
  });
}
