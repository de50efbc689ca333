/**
 * CORS: /api/v1 and /mcp are open to any origin without credentials; they authenticate only with a bearer
 * key the caller sends, so a foreign page can do nothing a script with the key could not. Every other
 * path (the cookie-authenticated /trpc included) gets no CORS headers and OPTIONS is 404 there.
 * Compression: gzip or brotli over 1 KiB; the 4 MB docs script is compressed once (compressie-cache.ts).
 */
import { constants } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import compress from '@fastify/compress';
import { KOSTEN_HEADER, SALDO_HEADER, VERZOEK_HEADER } from '../core/kosten.ts';
import { gecomprimeerdeBestanden } from './compressie-cache.ts';

const OPEN = {
  origin: '*',
  credentials: false,
  // PATCH and DELETE: the webhooks of /api/v1.
  methods: ['GET', 'POST', 'PATCH', 'DELETE'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'Accept', 'Mcp-Protocol-Version', 'Last-Event-ID'],
  exposedHeaders: ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'Idempotent-Replayed', 'WWW-Authenticate', 'Allow', KOSTEN_HEADER, SALDO_HEADER, VERZOEK_HEADER],
  maxAge: 600,
  strictPreflight: false,
};

/** @fastify/compress's refusals of a request body, which the bare status would call bad input or a wrong type. */
export function compressieFout(code: string | undefined, encoding: unknown): string | undefined {
  const naam = String(encoding).slice(0, 40);
  if (code === 'FST_CP_ERR_INVALID_CONTENT') return `De body is niet geldig gecomprimeerd (Content-Encoding: ${naam}).`;
  if (code === 'FST_CP_ERR_INVALID_CONTENT_ENCODING') return `Content-Encoding ${naam} wordt niet ondersteund; gebruik gzip, deflate of br.`;
  return undefined;
}

export async function installHttpRanden(app: FastifyInstance): Promise<void> {
  await app.register(cors, {
    delegator: (req, cb) => cb(null, (req as FastifyRequest).verzoek.corsOpen ? OPEN : { origin: false }),
  });
  gecomprimeerdeBestanden(app, ['/docs/js/scalar.js']);
  await app.register(compress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } },
  });
}
