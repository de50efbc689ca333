/**
 * /trpc: the web app's part of the router. The session cookie is parsed in this scope alone, so on REST and
 * MCP it is no credential. HttpOnly, SameSite=Lax, Secure unless plain http to a loopback host.
 */
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import { createContextInner, type Context, type Services } from '../core/context.ts';
import { FOUT_SOORTEN, naarFout } from '../core/errors.ts';
import { stuurFout } from './fout-antwoord.ts';
import { scanFout } from './json-body.ts';
import { appWebRouter } from '../procedures/app/router.ts';
import { registerVerbruikExport } from './verbruik-export.ts';

export const SESSIE_COOKIE = 'insight_sessie';
export const TRPC_PREFIX = '/trpc';
export const CSRF_HEADER = 'x-csrf-token';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function veiligeCookie(req: FastifyRequest): boolean {
  return !(req.protocol === 'http' && LOOPBACK.has(req.hostname));
}

function kop(req: FastifyRequest, naam: string): string | undefined {
  const v = req.headers[naam];
  return typeof v === 'string' ? v : undefined;
}

export function maakWebContext(services: Services, req: FastifyRequest, reply: FastifyReply): Context {
  const cookieOpties = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: veiligeCookie(req) };
  return createContextInner({
    services,
    kanaal: 'intern',
    authorization: kop(req, 'authorization'),
    requestId: String(req.id),
    setHeader: (k, v) => void reply.header(k, v),
    web: {
      sessieToken: req.cookies[SESSIE_COOKIE],
      csrfToken: kop(req, CSRF_HEADER),
      origin: kop(req, 'origin'),
      host: req.host || undefined,
      ip: req.ip,
      zetSessieCookie: (token, verlooptOp) => void reply.setCookie(SESSIE_COOKIE, token, { ...cookieOpties, expires: verlooptOp }),
      wisSessieCookie: () => void reply.clearCookie(SESSIE_COOKIE, cookieOpties),
    },
  });
}

export async function registerTrpc(app: FastifyInstance, services: Services) {
  await app.register(async (scope) => {
    await scope.register(fastifyCookie);
    scope.addHook('onSend', async (_req, reply) => {
      reply.header('Cache-Control', 'no-store');
    });
    // Same-origin only: a preflight gets the same 404 as on every non-API path.
    scope.addHook('onRequest', async (req, reply) => {
      if (req.method === 'OPTIONS') return stuurFout(reply, 404, `Onbekend pad: ${req.method} ${req.verzoek.pad}`);
      // JSON only: tRPC's multipart parser read bodies past BODY_LIMIT into memory before judging them.
      if (req.method === 'POST' && !/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
        return stuurFout(reply, 415, FOUT_SOORTEN.media_type.fout);
      }
    });
    scope.addHook('preValidation', async (req, reply) => {
      const fout = typeof req.body === 'string' ? scanFout(req.body) : undefined;
      if (fout) return stuurFout(reply, 400, fout);
    });
    registerVerbruikExport(scope, (req, reply) => maakWebContext(services, req, reply));
    await scope.register(fastifyTRPCPlugin, {
      prefix: TRPC_PREFIX,
      trpcOptions: {
        router: appWebRouter,
        maxBodySize: services.config.BODY_LIMIT,
        createContext: ({ req, res }: { req: FastifyRequest; res: FastifyReply }) => maakWebContext(services, req, res),
        responseMeta: ({ errors }: { errors: unknown[] }) => {
          if (errors.length === 0) return {};
          const f = naarFout(errors[0]);
          return { status: f.status, headers: f.headers };
        },
        onError: ({ error, req }: { error: unknown; req: FastifyRequest }) => {
          if (naarFout(error).intern) req.log.error({ err: error }, 'interne fout bij /trpc-verzoek');
        },
      },
    } satisfies FastifyTRPCPluginOptions<typeof appWebRouter>);
  });
}
