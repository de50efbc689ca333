/** /api/v1: the route is matched once, on arrival, and every error translated once, here. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fastifyTRPCOpenApiPlugin, forEachOpenApiProcedure, type OpenAPIObject, type OpenApiProcedureMatch } from 'trpc-to-openapi';
import { appRouter } from '../procedures/router.ts';
import { createCallerFactory } from '../core/trpc.ts';
import { createContextInner, type Context, type Services } from '../core/context.ts';
import { kostenHeaders } from '../core/kosten.ts';
import { naarFout } from '../core/errors.ts';
import { ongeldigeBodyFout } from './json-body.ts';
import { stuurFout, stuurNietToegestaan } from './fout-antwoord.ts';
import { bouwOpenApiDocument } from './openapi.ts';
import { REST_PREFIX } from './verzoek.ts';

export { REST_PREFIX };

const createCaller = createCallerFactory(appRouter);

interface Route {
  methode: string;
  sjabloon: string;
  patroon: RegExp;
  procedure: OpenApiProcedureMatch['procedure'];
}

/** Tells a wrong method (405) from an unknown path (404). */
function routeTabel(): Route[] {
  const out: Route[] = [];
  forEachOpenApiProcedure(appRouter._def.procedures, ({ path, type, procedure, meta: { openapi } }) => {
    if (type === 'subscription') return;
    const patroon = new RegExp(`^${openapi.path.replace(/\{([^}]+)\}/g, '(?<$1>[^/]+)')}/?$`);
    out.push({ methode: openapi.method, sjabloon: `${REST_PREFIX}${openapi.path}`, patroon, procedure: { type, path, procedure } });
  });
  return out;
}

let tabel: Route[] | undefined;
const routes = () => (tabel ??= routeTabel());

/** The methods of a REST path, for a method the router does not know (methoden.ts). */
export function restMethoden(pad: string): string[] {
  const rest = pad.slice(REST_PREFIX.length) || '/';
  return [...new Set(routes().filter((r) => r.patroon.test(rest)).map((r) => r.methode))];
}

export async function registerRest(app: FastifyInstance, services: Services): Promise<OpenAPIObject> {
  const doc = bouwOpenApiDocument(services.config);

  await app.register(async (scope) => {
    scope.get('/openapi.json', { config: { publiek: true } }, async () => doc);

    scope.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
      if ((req.routeOptions.config as { publiek?: boolean } | undefined)?.publiek) return;
      // POST /webhooks/{id}/test has no body and needs no content type.
      const leeg = !req.headers['transfer-encoding'] && (req.headers['content-length'] ?? '0') === '0';
      if (req.method === 'POST' && leeg && !req.headers['content-type']) req.headers['content-type'] = 'application/json';
      const type = req.headers['content-type'];
      if (type && /[A-Z]/.test(type)) req.headers['content-type'] = type.replace(/^[^;]*/, (m) => m.toLowerCase());
      const pad = req.verzoek.pad.slice(REST_PREFIX.length) || '/';
      const treffers = routes().filter((r) => r.patroon.test(pad));
      if (treffers.length === 0) {
        if (pad === '/projecten' || pad.startsWith('/projecten/')) {
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
      // HEAD is GET without the body (Node drops it); procedures are looked up by method.
      if (req.method === 'HEAD' && treffers.some((s) => s.methode === 'GET')) req.raw.method = 'GET';
      const route = treffers.find((r) => r.methode === req.raw.method);
      if (!route) return stuurNietToegestaan(reply, req.method, `${REST_PREFIX}${pad}`, [...new Set(treffers.map((r) => r.methode))]);
      req.verzoek.route = { procedure: route.procedure, pathInput: route.patroon.exec(pad)?.groups ?? {}, sjabloon: route.sjabloon };
    });

    await scope.register(fastifyTRPCOpenApiPlugin, {
      router: appRouter,
      basePath: '/',
      createContext: ({ req, res }: { req: FastifyRequest; res: FastifyReply }) => {
        const geenJson = ongeldigeBodyFout(req.body);
        return createContextInner({
          services,
          kanaal: 'rest',
          authorization: req.headers.authorization,
          idempotencyKey: typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : undefined,
          ongeldigeInvoer: geenJson === undefined ? undefined : { soort: 'ongeldige_json', fout: geenJson },
          requestId: String(req.id),
          uitslag: req.verzoek.uitslag,
          setHeader: (k, v) => void res.header(k, v),
        });
      },
      getProcedure: (_method: string, _path: string, req: FastifyRequest) => req.verzoek.route,
      responseMeta: ({ ctx }: { ctx?: Context }) => ({ headers: kostenHeaders(ctx?.uitslag.kosten) }),
      errorResponse: ({ error, ctx, req }: { error: unknown; ctx?: Context; req: FastifyRequest }) => {
        const f = naarFout(error);
        if (f.intern) req.log.error({ err: error }, 'interne fout bij REST-verzoek');
        return { status: f.status, headers: { ...kostenHeaders(ctx?.uitslag.kosten), ...f.headers, 'Content-Type': 'application/json; charset=utf-8' }, body: { fout: f.fout } };
      },
    });
  }, { prefix: REST_PREFIX });

  return doc;
}
