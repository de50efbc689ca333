/**
 * CORS and compression, the HTTP edges a client meets (README "Decisions taken here").
 *
 * CORS: the public API (/api/v1/*) and /mcp may be called from any web origin. They authenticate
 * only with a bearer key the caller sends itself, never with cookies, so a foreign page can do
 * nothing a script with the key could not; credentials are not allowed. A preflight (OPTIONS)
 * there answers 204 with the allowed methods and headers, also without an Origin header. Every
 * other path (/docs, health, the web app and its cookie-authenticated /trpc) gets no CORS headers:
 * OPTIONS there is 404.
 *
 * Compression: gzip or brotli for answers over 1 KiB when the client accepts it; the 4 MB docs
 * script is compressed once and kept (brotli quality 9), not per request.
 */
import { constants } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import compress from '@fastify/compress';
import { KOSTEN_HEADER, SALDO_HEADER } from '../core/kosten.ts';
import { gecomprimeerdeBestanden } from './compressie-cache.ts';

const OPEN = {
  origin: '*',
  credentials: false,
  methods: ['GET', 'POST'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'Accept', 'Mcp-Protocol-Version', 'Last-Event-ID'],
  exposedHeaders: ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'Idempotent-Replayed', 'WWW-Authenticate', 'Allow', KOSTEN_HEADER, SALDO_HEADER],
  maxAge: 600,
  strictPreflight: false,
};

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
