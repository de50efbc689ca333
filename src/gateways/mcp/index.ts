/**
 * POST /mcp, stateless: the key is authenticated once per HTTP request. A tools/call is answered here with
 * one tRPC call to the procedure REST calls; every other message goes through the SDK. Tool failures are
 * isError results with `{"fout", "status"}`; an unknown tool is -32602; an outage is HTTP 503.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { ErrorCode, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { createContextInner, type Context, type Services } from '../../core/context.ts';
import { FOUT_SOORTEN, naarFout } from '../../core/errors.ts';
import { kostenHeaders } from '../../core/kosten.ts';
import { prijsTekst } from '../../core/prijzen.ts';
import { alsStoring, mcpToegang } from '../../core/trpc.ts';
import { createCaller, MCP_TOOLS, type McpTool } from './tools.ts';
import { stuurFout } from '../fout-antwoord.ts';
import { ongeldigeBodyFout } from '../json-body.ts';

interface ToolCall {
  jsonrpc: '2.0';
  id: string | number;
  method: 'tools/call';
  params?: { name?: unknown; arguments?: unknown };
}

function isToolCall(body: unknown): body is ToolCall {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && (body as { method?: unknown }).method === 'tools/call';
}

type ToolAntwoord = { isError?: boolean; content: { type: 'text'; text: string }[]; structuredContent: Record<string, unknown>; _meta: Record<string, unknown> };

/** Prices from core/prijzen.ts. */
export const INSTRUCTIES = [
  'Insight geeft per Nederlands adres een oordeel: marktwaarde, kenmerken uit de BAG, WOZ-waarden en omgevingsinvloeden. ' +
    'Elke tool neemt postcode, huisnummer en eventueel toevoeging (huisletter A, toevoeging -2, beide A-2) en betaalt met het tegoed van de sleutel ' +
    `(1 credit = ${prijsTekst(1)}):`,
  ...MCP_TOOLS.map((t) => `- ${t.name} (${t.title}): ${t.kosten} per aanroep.`),
  'Niet in rekening gebracht: ongeldige invoer, een onbekend adres, onvoldoende tegoed, en een identieke aanroep binnen 24 uur (die krijgt het bewaarde antwoord). ' +
    'Wat een aanroep kostte en het saldo erna staan in _meta (gefactureerd_cent, saldo_credits). ' +
    'Een fout is een resultaat met isError en {"fout", "status"}; de gegevens zijn in het Nederlands.',
  'Een sleutel kan een maandlimiet in credits hebben (per kalendermaand, Europe/Amsterdam): een aanroep die er niet meer in past krijgt status 402 met een eigen melding over de maandlimiet, zonder kosten; stop dan tot de volgende maand of tot de eigenaar de limiet verhoogt. ' +
    'Een testsleutel (pct_test_...) kost niets maar kent alleen de adressen van de synthetische demogemeente Fictiedal (Verzonnenveen, Nergenshuizen) (postcodes met de letters SA, SD of SS, bijvoorbeeld 7800SD 3); elk ander adres geeft 404, en zijn antwoorden dragen test: true.',
].join('\n');

/** The SDK would build a fresh Ajv per server. */
const schemaValidator = new AjvJsonSchemaValidator();

/** An outage or a key refused after the gate: answered as HTTP, never as a tool result. */
class HttpWeigering {
  readonly fout: ReturnType<typeof naarFout>;
  constructor(fout: ReturnType<typeof naarFout>) {
    this.fout = fout;
  }
}

function toolFout(status: number, fout: string, meta: Record<string, unknown>): ToolAntwoord {
  const body = { fout, status };
  return { isError: true, content: [{ type: 'text' as const, text: JSON.stringify(body) }], structuredContent: body, _meta: meta };
}

async function roepAan(ctx: Context, req: FastifyRequest, tool: McpTool, args: Record<string, unknown>): Promise<ToolAntwoord> {
  // Refused by the procedure after the rate limit, as REST refuses an unknown field: counted, with cost and balance.
  const onbekend = Object.keys(args).filter((k) => !Object.hasOwn(tool.inputShape, k));
  if (onbekend.length) ctx.ongeldigeInvoer = { soort: 'ongeldige_invoer', fout: `Ongeldige invoer: onbekend argument ${onbekend.map((k) => `'${k}'`).join(', ')}.` };
  const bekend = onbekend.length ? Object.fromEntries(Object.entries(args).filter(([k]) => !onbekend.includes(k))) : args;
  ctx.uitslag.kosten = undefined;
  try {
    const antwoord = (await tool.call(createCaller(ctx), bekend)) as Record<string, unknown>;
    return { content: [{ type: 'text' as const, text: JSON.stringify(antwoord) }], structuredContent: antwoord, _meta: { ...(ctx.uitslag.kosten ?? {}) } };
  } catch (err) {
    const f = naarFout(err);
    if (f.status === 503 || f.status === 401) throw new HttpWeigering(f);
    if (f.intern) req.log.error({ err, tool: tool.name }, 'interne fout bij MCP-tool');
    const wacht = Number(f.headers['Retry-After']);
    const meta = { ...(ctx.uitslag.kosten ?? {}), ...(wacht > 0 ? { opnieuw_na_seconden: wacht } : {}) };
    return toolFout(f.status, f.status === 400 ? f.fout.replace(/\badres\.(?=postcode|huisnummer|toevoeging)/g, '') : f.fout, meta);
  }
}

/** What the SDK's transport would refuse, refused first with a Dutch `{fout}` (one message per request, since 2025-06-18). */
function transportFout(req: FastifyRequest, body: unknown): { status: number; fout: string } | undefined {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return { status: 406, fout: 'Niet aanvaardbaar: de client moet zowel application/json als text/event-stream accepteren (Accept-header).' };
  }
  const type = req.headers['content-type'];
  if (type !== undefined && !/^application\/json\s*(;|$)/i.test(type)) return { status: 415, fout: FOUT_SOORTEN.media_type.fout };
  if (Array.isArray(body)) return { status: 400, fout: 'Stuur één JSON-RPC-bericht per verzoek; batches worden niet ondersteund.' };
  if (body === undefined || typeof body !== 'object' || !JSONRPCMessageSchema.safeParse(body).success) {
    return { status: 400, fout: 'De body is geen geldig JSON-RPC-bericht.' };
  }
  const versie = req.headers['mcp-protocol-version'];
  if (versie !== undefined && (body as { method?: unknown }).method !== 'initialize' && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(versie))) {
    return { status: 400, fout: `Niet-ondersteunde MCP-protocolversie ${String(versie)}; ondersteund: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}.` };
  }
  return undefined;
}

function toolVan(bericht: ToolCall): McpTool | undefined {
  return MCP_TOOLS.find((t) => t.name === bericht.params?.name);
}

/** Absent is none; `null` is no object, as in beantwoordToolCall. */
function isArgumentenObject(args: unknown): boolean {
  return args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args));
}

/** A call of a known tool with an object of arguments; any other tools/call counts as a protocol message. */
function isUitvoerbaar(bericht: unknown): bericht is ToolCall {
  return isToolCall(bericht) && toolVan(bericht) !== undefined && isArgumentenObject(bericht.params?.arguments);
}

/** Every refusal before a message is handled, a tools/call's included, so it counts as a protocol message. */
function weigering(req: FastifyRequest, bericht: unknown): { status: number; fout: string } | undefined {
  const ongeldig = ongeldigeBodyFout(bericht);
  if (ongeldig !== undefined) return { status: 400, fout: ongeldig };
  const fout = transportFout(req, bericht);
  if (fout || !isToolCall(bericht) || typeof bericht.id === 'string' || typeof bericht.id === 'number') return fout;
  return { status: 400, fout: 'Ongeldige invoer: een tools/call zonder id is een melding en wordt niet uitgevoerd; geef de aanroep een id.' };
}

async function beantwoordToolCall(ctx: Context, req: FastifyRequest, reply: FastifyReply, bericht: ToolCall) {
  const antwoord = (inhoud: Record<string, unknown>) =>
    reply.code(200).headers(kostenHeaders(ctx.uitslag.kosten)).type('application/json').send({ jsonrpc: '2.0', id: bericht.id, ...inhoud });
  const { name, arguments: args } = bericht.params ?? {};
  const tool = toolVan(bericht);
  if (!tool) {
    const message = `Onbekende tool '${String(name)}'; beschikbaar: ${MCP_TOOLS.map((t) => t.name).join(', ')}.`;
    return antwoord({ error: { code: ErrorCode.InvalidParams, message } });
  }
  if (!isArgumentenObject(args)) {
    return antwoord({ error: { code: ErrorCode.InvalidParams, message: 'Ongeldige invoer: arguments moet een object zijn.' } });
  }
  return antwoord({ result: await roepAan(ctx, req, tool, (args ?? {}) as Record<string, unknown>) });
}

/** The requests the SDK server answers here (test/mcp-protocol.test.ts); any other is -32601 in Dutch. */
export const METHODEN = ['initialize', 'ping', 'tools/list', 'tools/call'];

/** Not read-only: a call charges credits, writes usage and sends webhooks (docs/mcp.md). */
const TOOL_HINTS = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** For the other protocol messages; tool calls never reach it. */
function bouwServer(ctx: Context, req: FastifyRequest): McpServer {
  const server = new McpServer(
    { name: 'insight-api', version: '1.0.0' },
    { capabilities: { tools: {} }, instructions: INSTRUCTIES, jsonSchemaValidator: schemaValidator },
  );
  for (const tool of MCP_TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: TOOL_HINTS },
      (args: Record<string, unknown>) => roepAan(ctx, req, tool, args),
    );
  }
  server.server.registerCapabilities({ tools: { listChanged: undefined } });
  server.server.fallbackRequestHandler = async ({ method }) => {
    throw Object.assign(new Error(`Onbekende methode '${method}'; deze server kent ${METHODEN.join(', ')}.`), { code: ErrorCode.MethodNotFound });
  };
  return server;
}

export async function registerMcp(app: FastifyInstance, services: Services) {
  app.post('/mcp', async (req, reply) => {
    const ctx = createContextInner({
      services,
      kanaal: 'mcp',
      authorization: req.headers.authorization,
      requestId: String(req.id),
      uitslag: req.verzoek.uitslag,
      setHeader: (k, v) => {
        if (!reply.raw.headersSent) reply.raw.setHeader(k, v);
      },
    });
    const fout = (err: unknown) => {
      const f = naarFout(alsStoring(services, err));
      return stuurFout(reply, f.status, f.fout, { ...kostenHeaders(ctx.uitslag.kosten), ...f.headers });
    };
    const bericht = req.body;
    const geweigerd = weigering(req, bericht);
    try {
      await mcpToegang(ctx, !geweigerd && isUitvoerbaar(bericht));
    } catch (err) {
      return fout(err);
    }
    if (geweigerd) return stuurFout(reply, geweigerd.status, geweigerd.fout, kostenHeaders(ctx.uitslag.kosten));

    if (isToolCall(bericht)) {
      try {
        return await beantwoordToolCall(ctx, req, reply, bericht);
      } catch (err) {
        if (!(err instanceof HttpWeigering)) throw err;
        return stuurFout(reply, err.fout.status, err.fout.fout, { ...(err.fout.status === 401 ? kostenHeaders(ctx.uitslag.kosten) : {}), ...err.fout.headers });
      }
    }

    const server = bouwServer(ctx, req);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    for (const [k, v] of Object.entries({ ...reply.getHeaders(), ...kostenHeaders(ctx.uitslag.kosten) })) if (v !== undefined) reply.raw.setHeader(k, v as string);
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, bericht);
    } catch (err) {
      req.log.error({ err }, 'MCP-verzoek mislukt');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ fout: naarFout(err).fout }));
      }
    }
  });
}
