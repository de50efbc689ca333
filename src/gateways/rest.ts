/**
 * The public REST surface: the tRPC router exposed by trpc-to-openapi under /api/v1. This gateway is
 * thin: it builds the context from the HTTP request, answers 404/405 for unknown routes, and rewrites
 * every error body into the contract's `{"fout": "..."}` (the messages come from core/errors.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fastifyTRPCOpenApiPlugin, type OpenAPIObject } from 'trpc-to-openapi';
import { appRouter } from '../procedures/router.ts';
import { createCallerFactory } from '../core/trpc.ts';
import { createContextInner, type Context, type Services } from '../core/context.ts';
import { kostenHeaders } from '../core/kosten.ts';
import { foutVoorStatus, naarFout } from '../core/errors.ts';
import { ongeldigeBodyFout } from './json-body.ts';
import { stuurFout } from './fout-antwoord.ts';
import { bouwOpenApiDocument } from './openapi.ts';
import { REST_PREFIX } from './verzoek.ts';

export { REST_PREFIX };

const createCaller = createCallerFactory(appRouter);

interface RouteSjabloon {
  methode: string;
  patroon: RegExp;
}

/** The (method, path) pairs the router serves, to tell a wrong method (405) from an unknown path (404). */
function routeSjablonen(doc: OpenAPIObject): RouteSjabloon[] {
  const out: RouteSjabloon[] = [];
  for (const [pad, item] of Object.entries(doc.paths ?? {})) {
    const patroon = new RegExp(`^${pad.replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
    for (const methode of ['get', 'post', 'put', 'patch', 'delete']) {
      if ((item as Record<string, unknown>)[methode]) out.push({ methode: methode.toUpperCase(), patroon });
    }
  }
  return out;
}


export async function registerRest(app: FastifyInstance, services: Services): Promise<OpenAPIObject> {
  const doc = bouwOpenApiDocument(services.config);
  const sjablonen = routeSjablonen(doc);

  await app.register(async (scope) => {
    scope.get('/openapi.json', { config: { publiek: true } }, async () => doc);

    scope.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
      if ((req.routeOptions.config as { publiek?: boolean } | undefined)?.publiek) return;
      // A POST without any body (POST /webhooks/{id}/test) needs no content type: it is an empty JSON body.
      const leeg = !req.headers['transfer-encoding'] && (req.headers['content-length'] ?? '0') === '0';
      if (req.method === 'POST' && leeg && !req.headers['content-type']) req.headers['content-type'] = 'application/json';
      const pad = req.verzoek.pad.slice(REST_PREFIX.length) || '/';
      const treffers = sjablonen.filter((s) => s.patroon.test(pad));
      if (treffers.length === 0) {
        if (pad === '/projecten' || pad.startsWith('/projecten/')) {
          // The management product: 401 without a valid key, 403 for an insight key (core rules).
          try {
            await createCaller(createContextInner({ services, kanaal: 'rest', authorization: req.headers.authorization, requestId: String(req.id) })).beheer.toegang();
          } catch (err) {
            const f = naarFout(err);
            return stuurFout(reply, f.status, f.fout, f.headers);
          }
          return stuurFout(reply, 404, 'De beheer-API (/api/v1/projecten) wordt niet door deze dienst aangeboden.');
        }
        return stuurFout(reply, 404, `Onbekend pad: ${req.method} ${REST_PREFIX}${pad}`);
      }
      // HEAD is GET without the body (Node leaves the body out of a HEAD answer by itself); the
      // procedures are looked up by method, so the request is handed on as GET.
      if (req.method === 'HEAD' && treffers.some((s) => s.methode === 'GET')) req.raw.method = 'GET';
      if (!treffers.some((s) => s.methode === req.method)) {
        const toegestaan = [...new Set(treffers.map((s) => s.methode))].join(', ');
        return stuurFout(reply, 405, `Methode ${req.method} is niet toegestaan op ${REST_PREFIX}${pad}; gebruik ${toegestaan}.`, { Allow: toegestaan });
      }
    });

    // trpc-to-openapi writes its own error shape; the errorFormatter put our Dutch message in it.
    scope.addHook('onSend', async (_req, reply, payload) => {
      if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
      try {
        const body = JSON.parse(payload) as { fout?: string; data?: { fout?: string } };
        if (typeof body.fout === 'string' && Object.keys(body).length === 1) return payload;
        reply.type('application/json; charset=utf-8');
        return JSON.stringify({ fout: body.data?.fout ?? body.fout ?? foutVoorStatus(reply.statusCode) });
      } catch {
        return JSON.stringify({ fout: foutVoorStatus(reply.statusCode) });
      }
    });

    await scope.register(fastifyTRPCOpenApiPlugin, {
      router: appRouter,
      basePath: '/',
      createContext: ({ req, res }: { req: FastifyRequest; res: FastifyReply }) =>
        createContextInner({
          services,
          kanaal: 'rest',
          authorization: req.headers.authorization,
          idempotencyKey: typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : undefined,
          ongeldigeJson: ongeldigeBodyFout(req.body),
          requestId: String(req.id),
          uitslag: req.verzoek.uitslag,
          setHeader: (k, v) => void res.header(k, v),
        }),
      responseMeta: ({ ctx, errors }: { ctx?: Context; errors: unknown[] }) => {
        const kosten = kostenHeaders(ctx?.uitslag.kosten);
        if (errors.length === 0) return { headers: kosten };
        const f = naarFout(errors[0]);
        return { status: f.status, headers: { ...kosten, ...f.headers } };
      },
      onError: ({ error, req }: { error: unknown; req: FastifyRequest }) => {
        const f = naarFout(error);
        if (f.intern) req.log.error({ err: error }, 'interne fout bij REST-verzoek');
      },
    });
  }, { prefix: REST_PREFIX });

  return doc;
}
