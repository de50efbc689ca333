/**
 * /app: the Vite build in web/dist. index.html for every client-side route, never cached, with a strict
 * CSP; hashed assets cached for a year (their name changes with their content). No CDN, no inline code.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { stuurFout } from './fout-antwoord.ts';

export const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/dist');

export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const BEVEILIGING = {
  'Content-Security-Policy': APP_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

export async function registerAppStatic(app: FastifyInstance, dist = WEB_DIST) {
  const indexPad = path.join(dist, 'index.html');
  const index = existsSync(indexPad) ? readFileSync(indexPad, 'utf8') : null;

  const stuurIndex = async (_req: unknown, reply: FastifyReply) => {
    if (index === null) return stuurFout(reply, 503, 'De web-app is niet gebouwd; voer `npm run build:web` uit en start de server opnieuw.');
    return reply.headers({ ...BEVEILIGING, 'Cache-Control': 'no-cache' }).type('text/html; charset=utf-8').send(index);
  };

  await app.register(async (scope) => {
    scope.addHook('onSend', async (_req, reply) => {
      reply.headers(BEVEILIGING);
    });
    if (existsSync(path.join(dist, 'assets'))) {
      await scope.register(fastifyStatic, {
        root: path.join(dist, 'assets'),
        prefix: '/app/assets/',
        decorateReply: false,
        index: false,
        wildcard: true,
        cacheControl: true,
        maxAge: '365d',
        immutable: true,
      });
    }
    scope.get('/app', stuurIndex);
    scope.get('/app/', stuurIndex);
    // Client-side routes get the same page, with or without a trailing slash; unknown asset names stay 404.
    scope.get('/app/:pagina', stuurIndex);
    scope.get('/app/:pagina/', stuurIndex);
  });
}
