/**
 * Static answers that never change while the process runs, compressed once per encoding. Runs before
 * @fastify/compress, which leaves an answer that already has a Content-Encoding alone.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyInstance } from 'fastify';

const ENCODINGS = ['br', 'gzip'] as const;

export function gecomprimeerdeBestanden(app: FastifyInstance, paden: string[]): void {
  const cache = new Map<string, { br?: Buffer; gzip?: Buffer }>();
  app.addHook('onSend', async (req, reply, payload) => {
    const { pad } = req.verzoek;
    if (!paden.includes(pad) || reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
    reply.header('Cache-Control', 'public, max-age=86400');
    const vary = reply.getHeader('Vary');
    reply.header('Vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
    const encoding = negotiate(String(req.headers['accept-encoding'] ?? ''), [...ENCODINGS]) as (typeof ENCODINGS)[number] | null;
    if (!encoding) return payload;
    let c = cache.get(pad);
    if (!c) cache.set(pad, (c = {}));
    c[encoding] ??= encoding === 'br'
      ? brotliCompressSync(payload, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } })
      : gzipSync(payload, { level: 9 });
    reply.header('Content-Encoding', encoding);
    reply.removeHeader('Content-Length');
    return c[encoding];
  });
}
